import Foundation
import VisionTasksModelFormat

/// The palm detector → region → hand landmarks pipeline of MediaPipe's hand landmarker graphs, one frame at a time,
/// with its video-mode state (tracked regions). The gesture recognizer runs it too. MediaPipe smooths no hand.
final class HandLandmarkerPipeline: TaskPipeline {
    typealias Options = HandLandmarkerOptions
    let options: TaskSettings<HandOptions>
    let detector: SSDDetector
    let landmarker: LandmarkModel
    private var tracker: RegionTracker
    /// Only with `.always`: MediaPipe smooths no hand.
    private var smoothing: SmoothingState<HandSmoothing>
    /// Identities across frames in video and live-stream modes (ours; read from the results, changing none).
    private var identityTracker = IdentityTracker()

    // Constants of MediaPipe's hand_detector_graph.cc and hand_landmarks_detector_graph.cc.
    static let landmarkCount = 21
    static let suppressionThreshold: Float = 0.3
    /// The palm box, turned so that keypoint 0 (wrist) to keypoint 2 (middle finger's knuckle) points at the target.
    /// hand_detector_graph.cc passes 90 to the field in *radians* (`rotation_vector_target_angle`), so the target is
    /// 90 rad (π/2 + 26.6° after normalization), not 90°: MediaPipe's results follow that, and so do ours (with π/2
    /// they move by 1e-2).
    static let regionFromDetection = RegionFromDetection(shape: .boundingBox, startKeypoint: 0, endKeypoint: 2, targetAngle: 90)
    static let detectionTransformation = RegionTransformation(scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)
    static let landmarksTransformation = RegionTransformation(scaleX: 2, scaleY: 2, shiftY: -0.1, squareLong: true)
    /// `normalize_z` of the landmark decoding: z is divided by it after the input size.
    static let zNormalization: Float = 0.4

    init(bundle: TaskBundle, options: TaskSettings<HandOptions>) throws(VisionTaskError) {
        self.options = options
        try bundle.requireMembers(["hand_detector.tflite", "hand_landmarks_detector.tflite"], for: "hand landmarker")
        let threads = options.baseOptions.numThreads
        detector = try SSDDetector(
            runner: try TensorRunner(bundle: bundle, member: "hand_detector.tflite", threads: threads), defaultRange: 0...1,
            anchors: SSDAnchorOptions(inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75,
                                      strides: [8, 16, 16, 16], aspectRatios: [1]),
            coordinateCount: 18, keypointCount: 7, minimumScore: options.minHandDetectionConfidence,
            suppressionThreshold: Self.suppressionThreshold)
        landmarker = try LandmarkModel(bundle: bundle, member: "hand_landmarks_detector.tflite", threads: threads, defaultRange: 0...1)
        let outputs = landmarker.runner.interpreter.outputs
        guard outputs.count == 4, outputs[0].elementCount == Self.landmarkCount * 3, outputs[1].elementCount == 1,
              outputs[2].elementCount == 1, outputs[3].elementCount == Self.landmarkCount * 3 else {
            throw .wrongModel("hand_landmarks_detector.tflite does not output 21 landmarks, presence, handedness and world landmarks")
        }
        (tracker, smoothing) = Self.videoState(options)
    }

    /// The video-mode state of a new pipeline.
    private static func videoState(_ options: TaskSettings<HandOptions>) -> (RegionTracker, SmoothingState<HandSmoothing>) {
        // Hands keep their tracked region against a new palm that overlaps it (HandAssociationCalculator).
        (RegionTracker(maximumCount: options.numHands, replacementOverlap: options.minTrackingConfidence, association: .trackedKeepsItsPlace),
         SmoothingState(options.landmarkSmoothing, runningMode: options.runningMode, maximumCount: options.numHands,
                        mediapipeSmooths: false) { HandSmoothing() })
    }

    func resetVideoState() {
        (tracker, smoothing) = Self.videoState(options)
        identityTracker.reset()
    }

    var stageTimings: [NamedStageTimings] {
        [NamedStageTimings("detector", detector.timings), NamedStageTimings("landmarks", landmarker.timings)]
    }

    func process(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> HandLandmarkerResult {
        let hands = try hands(image, timestampMilliseconds: timestamp)
        var result = HandLandmarkerResult(handedness: hands.map { [$0.handedness] }, landmarks: hands.map(\.landmarks),
                                          worldLandmarks: hands.map(\.world), timestampInMilliseconds: timestamp ?? 0)
        result.identities = hands.compactMap(\.identity)
        return result
    }

    /// The hands of one frame, tracked from the last in video and live-stream modes.
    func hands(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> [HandEstimate] {
        var hands = try tracker.frame(tracking: timestamp != nil) { () throws(VisionTaskError) in try detect(image) } estimate: {
            (rect) throws(VisionTaskError) in try landmarks(image, rect: rect)
        } deduplicate: {
            HandLandmarksDeduplication.removingDuplicates($0, imageWidth: image.width, imageHeight: image.height)
        }
        if let timestamp {
            smoothing.apply(&hands) {
                $0.apply($1, imageWidth: image.width, imageHeight: image.height, timestampMilliseconds: timestamp)
            } reset: { $0.reset() }
            // No colour for hands: one person's two hands look alike, so hands are followed by position.
            let identities = identityTracker.identities(of: hands.map { hand in
                IdentityObservation(points: hand.landmarks.map { SIMD2($0.x * Float(image.width), $0.y * Float(image.height)) })
            }, timestampMilliseconds: timestamp)
            for i in hands.indices { hands[i].identity = identities[i] }
        }
        return hands
    }

    /// Hand regions from the palm detector, best first, at most `numHands`.
    func detect(_ image: MPImage) throws(VisionTaskError) -> [NormalizedRect] {
        try detector.detect(image, backProjection: .region).prefix(options.numHands).map {
            Self.detectionTransformation.apply(Self.regionFromDetection.rect(for: $0, imageWidth: image.width, imageHeight: image.height),
                                               imageWidth: image.width, imageHeight: image.height)
        }
    }

    /// Runs the landmark model on one region; nil when the model says no hand is there.
    func landmarks(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> HandEstimate? {
        try landmarker.run(image, rect: rect) { (runner, transform) throws(VisionTaskError) in
            // Presence and handedness come out of the model as probabilities (its last layers are logistic).
            let presence = try runner.output(1).first ?? 0
            guard presence > options.minHandPresenceConfidence else { return nil }
            let points = landmarker.points(try runner.output(0), count: Self.landmarkCount, stride: 3, zScale: Self.zNormalization)
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

/// One hand found in one frame.
struct HandEstimate: TrackedEstimate {
    var landmarks: [NormalizedLandmark]
    var world: [Landmark]
    var handedness: Category
    /// The model's probability that this is a right hand (the gesture embedder's handedness input).
    var rightScore: Float
    /// The region the landmarks were found in.
    var rect: NormalizedRect
    var nextRect: NormalizedRect
    var instance: Int
    /// Its identity across frames (``IdentityTracker``); nil in image mode.
    var identity: Int? = nil
}
