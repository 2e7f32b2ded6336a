import Foundation
import VisionTasksModelFormat

/// The regions of MediaPipe's holistic graph (holistic_pose_tracking.cc, holistic_face_tracking.cc,
/// holistic_hand_tracking.cc), each as MediaPipe derives it: from detections, from landmarks of the pose, or from the
/// last frame's landmarks.
enum HolisticRegions {
    /// The pose's next region comes from its two auxiliary landmarks as the pose landmarker's does (alignment points,
    /// 90°), grown 1.25 times and squared; unscaled, the same region sets the smoothing's object scale.
    static func poseScaleRegion(_ auxiliary: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        PoseLandmarkerPipeline.regionFromDetection.rect(start: SIMD2(auxiliary[0].x, auxiliary[0].y), end: SIMD2(auxiliary[1].x, auxiliary[1].y),
                                                        imageWidth: imageWidth, imageHeight: imageHeight)
    }

    static func poseRegion(_ auxiliary: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        PoseLandmarkerPipeline.regionTransformation.apply(poseScaleRegion(auxiliary, imageWidth: imageWidth, imageHeight: imageHeight),
                                                          imageWidth: imageWidth, imageHeight: imageHeight)
    }

    // MARK: Face

    /// The face from the pose: the box of pose landmarks 0–10, turned so that the right eye (5) to the left eye (2)
    /// is horizontal, squared and grown 3 times (GetFaceRoiFromPoseFaceLandmarks).
    static func faceFromPose(_ pose: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let points = pose.prefix(11).map { SIMD2($0.x, $0.y) }
        let rect = RegionFromDetection(shape: .boundingBox, startKeypoint: 5, endKeypoint: 2, targetAngle: 0)
            .rect(start: points[5], end: points[2], box: box(points), imageWidth: imageWidth, imageHeight: imageHeight)
        return RegionTransformation(scaleX: 3, scaleY: 3, squareLong: true).apply(rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The face from the face detector's first detection: the box of its six keypoints (`USE_KEYPOINTS`), turned so
    /// that the eyes (0 → 1) are horizontal, squared and grown twice (GetFaceRoiFromFaceDetections).
    static func faceFromDetection(_ detection: RawDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let rect = RegionFromDetection(shape: .boundingBox, startKeypoint: 0, endKeypoint: 1, targetAngle: 0)
            .rect(start: detection.keypoints[0], end: detection.keypoints[1], box: box(detection.keypoints),
                  imageWidth: imageWidth, imageHeight: imageHeight)
        return RegionTransformation(scaleX: 2, scaleY: 2, squareLong: true).apply(rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The face from its last landmarks: their box, turned so that the outer eye corners (33 → 263) are horizontal,
    /// grown 1.5 times and *not* squared (GetFaceRoiFromFaceLandmarks; the face landmarker squares it).
    static func faceFromLandmarks(_ face: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let points = face.map { SIMD2($0.x, $0.y) }
        let rect = RegionFromDetection(shape: .boundingBox, startKeypoint: 33, endKeypoint: 263, targetAngle: 0)
            .rect(start: points[33], end: points[263], box: box(points), imageWidth: imageWidth, imageHeight: imageHeight)
        return RegionTransformation(scaleX: 1.5, scaleY: 1.5).apply(rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// RoiTrackingCalculator's options in TrackFaceRoi.
    static let faceTracking = RegionTracking(rotationDegrees: 15, translation: 0.1, scale: 0.3, recropMargin: -0.2)

    // MARK: Hands

    /// The person's own left and right hands: pose landmarks of the wrist, the pinky's and the index's knuckle.
    struct HandSide: Sendable {
        let wrist: Int, pinky: Int, index: Int
        static let left = HandSide(wrist: 15, pinky: 17, index: 19)
        static let right = HandSide(wrist: 16, pinky: 18, index: 20)
    }

    /// The hand is looked for only when the pose's wrist is visible above this (GetPosePalmVisibility).
    static let wristVisibility: Float = 0.1

    /// HandDetectionsFromPoseToRectsCalculator: centred on the estimated middle finger's knuckle (two thirds of the
    /// way from the pinky's to the index's), twice its distance from the wrist on a side, turned so that the wrist
    /// points at it (90°); then grown 2.7 times, shifted by −0.1 of its height and squared.
    static func handFromPose(_ pose: [NormalizedLandmark], side: HandSide, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let w = Float(imageWidth), h = Float(imageHeight)
        let wrist = SIMD2(pose[side.wrist].x * w, pose[side.wrist].y * h)
        let index = SIMD2(pose[side.index].x * w, pose[side.index].y * h)
        let pinky = SIMD2(pose[side.pinky].x * w, pose[side.pinky].y * h)
        let middle = (2 * index + pinky) / 3
        let d = middle - wrist
        let size = (d.x * d.x + d.y * d.y).squareRoot() * 2
        let rect = NormalizedRect(xCenter: middle.x / w, yCenter: middle.y / h, width: size / w, height: size / h,
                                  rotation: normalizeRadians(.pi / 2 - atan2f(-d.y, d.x)))
        return RegionTransformation(scaleX: 2.7, scaleY: 2.7, shiftY: -0.1, squareLong: true)
            .apply(rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// RoiTrackingCalculator's options in TrackHandRoi.
    static let handTracking = RegionTracking(rotationDegrees: 40, translation: 0.2, scale: 0.4, recropMargin: -0.1)

    /// (xMin, yMin, width, height) of the points, as LandmarksToDetectionCalculator and `USE_KEYPOINTS` take it.
    static func box(_ points: [SIMD2<Float>]) -> (Float, Float, Float, Float) {
        var lo = points[0], hi = points[0]
        for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        return (lo.x, lo.y, hi.x - lo.x, hi.y - lo.y)
    }
}

/// MediaPipe's HandRoiRefinementGraph: the hand re-crop model on the region the pose gives (letterboxed, border
/// replicated), whose two output points — the hand's centre and a guide point — give the refined region: a square
/// centred on the first, twice their distance on a side, turned so that the vector between them points down (−90°),
/// shifted by −0.1 of its height.
final class HandRegionRefinement {
    static let member = "hand_roi_refinement.tflite"
    let runner: TensorRunner
    let input: ImageInput
    private var postprocessing: Double = 0

    init(bundle: TaskBundle, threads: Int?) throws(VisionTaskError) {
        runner = try TensorRunner(bundle: bundle, member: Self.member, threads: threads)
        input = try ImageInput(runner, defaultRange: 0...1)
        guard runner.interpreter.outputs.first?.elementCount == 4 else {
            throw .wrongModel("\(Self.member) does not output two points")
        }
    }

    func refine(_ image: MPImage, region: NormalizedRect) throws(VisionTaskError) -> NormalizedRect {
        let transform = try input.run(image, region: region.region(imageWidth: image.width, imageHeight: image.height),
                                      keepAspectRatio: true, border: .replicate)
        let start = now()
        defer { postprocessing += Double(now() - start) / 1e6 }
        let raw = try runner.output(0)
        let w = Double(image.width), h = Double(image.height)
        // TensorsToLandmarksCalculator (two points of two values, in input pixels), then LandmarkProjectionCalculator
        // through the sampled region's matrix, which includes the letterbox.
        let points = (0..<2).map { i in
            let p = transform.imagePoint(tensorX: Double(raw[2 * i]) / Double(input.width), tensorY: Double(raw[2 * i + 1]) / Double(input.height))
            return SIMD2(Float(p.x / w), Float(p.y / h))
        }
        let rect = RegionFromDetection(shape: .alignmentPoints, startKeypoint: 0, endKeypoint: 1, targetAngle: -.pi / 2)
            .rect(start: points[0], end: points[1], imageWidth: image.width, imageHeight: image.height)
        return RegionTransformation(shiftY: -0.1, squareLong: true).apply(rect, imageWidth: image.width, imageHeight: image.height)
    }

    var timings: StageTimings {
        var t = runner.timings
        t.postprocessing = postprocessing
        return t
    }
}
