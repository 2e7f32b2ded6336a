import Foundation
import VisionTasksModelFormat

/// MediaPipe's single-hand landmarks detector graph (hand_landmarks_detector_graph.cc): the hand landmark model on one
/// rotated region, its presence score against a threshold, landmarks in image and world coordinates, the handedness,
/// and the region the landmarks give the next frame. The Hand Landmarker, the Gesture Recognizer and the Holistic
/// Landmarker (whose hand regions come from the pose, not from a palm detector) run it.
final class HandLandmarksModel {
    static let member = "hand_landmarks_detector.tflite"
    let model: LandmarkModel
    /// Hands whose presence score is not above it are not returned.
    let minimumPresence: Float

    static let landmarkCount = 21
    /// `normalize_z` of the landmark decoding: z is divided by it after the input size.
    static let zNormalization: Float = 0.4
    static let landmarksTransformation = RegionTransformation(scaleX: 2, scaleY: 2, shiftY: -0.1, squareLong: true)

    init(bundle: TaskBundle, threads: Int?, minimumPresence: Float) throws(VisionTaskError) {
        model = try LandmarkModel(bundle: bundle, member: Self.member, threads: threads, defaultRange: 0...1)
        self.minimumPresence = minimumPresence
        let outputs = model.runner.interpreter.outputs
        guard outputs.count == 4, outputs[0].elementCount == Self.landmarkCount * 3, outputs[1].elementCount == 1,
              outputs[2].elementCount == 1, outputs[3].elementCount == Self.landmarkCount * 3 else {
            throw .wrongModel("\(Self.member) does not output 21 landmarks, presence, handedness and world landmarks")
        }
    }

    /// Runs the landmark model on one region; nil when the model says no hand is there.
    func landmarks(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> HandEstimate? {
        try model.run(image, rect: rect) { (runner, transform) throws(VisionTaskError) in
            // Presence and handedness come out of the model as probabilities (its last layers are logistic).
            let presence = try runner.output(1).first ?? 0
            guard presence > minimumPresence else { return nil }
            let points = model.points(try runner.output(0), count: Self.landmarkCount, stride: 3, zScale: Self.zNormalization)
            let projected = LandmarkProjection.project(points, transform: transform, through: rect)
            let worldRaw = try runner.output(3)
            let world = (0..<Self.landmarkCount).map { i in
                let q = LandmarkProjection.rotateWorld(SIMD3(worldRaw[3 * i], worldRaw[3 * i + 1], worldRaw[3 * i + 2]), by: rect.rotation)
                return Landmark(x: q.x, y: q.y, z: q.z)
            }
            let rightScore = try runner.output(2).first ?? 0.5
            return HandEstimate(landmarks: projected.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) }, world: world,
                                handedness: Self.handedness(rightScore: rightScore), rightScore: rightScore, rect: rect,
                                nextRect: Self.nextRegion(projected, image: image), instance: 0)
        }
    }

    /// TensorsToClassificationCalculator with binary classification and top_k 1 over MediaPipe's label map
    /// (0 "Right" with the model's score, 1 "Left" with its complement): labels meant for unmirrored images (the
    /// legacy solution's, for selfie images, were the other way round).
    static func handedness(rightScore: Float) -> Category {
        let right = Double(rightScore), left = 1 - right
        return right >= left ? Category(index: 0, score: Float(right), categoryName: "Right", displayName: "Right")
            : Category(index: 1, score: Float(left), categoryName: "Left", displayName: "Left")
    }

    /// HandLandmarksToRectCalculator on the wrist, the thumb's first joints and the knuckles and first joints of the
    /// fingers (landmarks 0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18): turned so that the wrist points at the middle of the
    /// knuckles, bounded in that frame; then grown as MediaPipe grows it.
    static func nextRegion(_ landmarks: [SIMD3<Float>], image: MPImage) -> NormalizedRect {
        let w = Float(image.width), h = Float(image.height)
        let subset = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].map { SIMD2(landmarks[$0].x, landmarks[$0].y) }
        let wrist = subset[0] * SIMD2(w, h)
        let middle = ((subset[4] + subset[8]) / 2 + subset[6]) / 2 * SIMD2(w, h)
        let rotation = normalizeRadians(.pi / 2 - atan2f(-(middle.y - wrist.y), middle.x - wrist.x))
        let reverse = normalizeRadians(-rotation)
        var lo = subset[0], hi = subset[0]
        for p in subset { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let center = (lo + hi) / 2
        // The calculator starts its maxima at the smallest positive float, its minima at the largest.
        var pmin = SIMD2<Float>(repeating: .greatestFiniteMagnitude), pmax = SIMD2<Float>(repeating: .leastNormalMagnitude)
        let c = cosf(reverse), s = sinf(reverse)
        for p in subset {
            let o = (p - center) * SIMD2(w, h)
            let q = SIMD2(o.x * c - o.y * s, o.x * s + o.y * c)
            pmin = pointwiseMin(pmin, q); pmax = pointwiseMax(pmax, q)
        }
        let pc = (pmin + pmax) / 2
        let cr = cosf(rotation), sr = sinf(rotation)
        let cx = pc.x * cr - pc.y * sr + w * center.x, cy = pc.x * sr + pc.y * cr + h * center.y
        let rect = NormalizedRect(xCenter: cx / w, yCenter: cy / h, width: (pmax.x - pmin.x) / w, height: (pmax.y - pmin.y) / h,
                                  rotation: rotation)
        return landmarksTransformation.apply(rect, imageWidth: image.width, imageHeight: image.height)
    }
}
