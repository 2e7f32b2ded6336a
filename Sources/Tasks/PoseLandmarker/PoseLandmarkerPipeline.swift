import Foundation
import VisionTasksModelFormat

/// The detector → region → landmarks pipeline of MediaPipe's pose landmarker graphs, one frame at a time, with its
/// video-mode state (tracked regions, smoothing).
final class PoseLandmarkerPipeline: TaskPipeline {
    typealias Options = PoseLandmarkerOptions
    let options: TaskSettings<PoseLandmarkerOptions.Values>
    let detector: SSDDetector
    let landmarker: LandmarkModel
    private var tracker: RegionTracker
    /// MediaPipe's smoothing of a single pose (numPoses 1), or one per tracked pose (`.always`).
    private var smoothing: SmoothingState<PoseSmoothing>
    /// Identities across frames in video and live-stream modes (ours; read from the results, changing none).
    private var identityTracker = IdentityTracker()

    // Constants of MediaPipe's pose_detector_graph.cc and pose_landmarks_detector_graph.cc.
    static let landmarkCount = 39
    static let poseLandmarkCount = 33
    static let suppressionThreshold: Float = 0.5
    /// Detector keypoint 0 (hips centre) to keypoint 1 (above the head): the vector between them points up.
    static let regionFromDetection = RegionFromDetection(shape: .alignmentPoints, startKeypoint: 0, endKeypoint: 1, targetAngle: .pi / 2)
    static let regionTransformation = RegionTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true)

    init(bundle: TaskBundle, options: TaskSettings<PoseLandmarkerOptions.Values>) throws(VisionTaskError) {
        self.options = options
        try bundle.requireMembers(["pose_detector.tflite", "pose_landmarks_detector.tflite"], for: "pose landmarker")
        let threads = options.baseOptions.numThreads
        // Legacy graphs feed the detector [-1, 1] and the landmark model [0, 1]; metadata overrides both.
        detector = try SSDDetector(
            runner: try TensorRunner(bundle: bundle, member: "pose_detector.tflite", threads: threads), defaultRange: -1...1,
            anchors: SSDAnchorOptions(inputWidth: 224, inputHeight: 224, minScale: 0.1484375, maxScale: 0.75,
                                      strides: [8, 16, 32, 32, 32], aspectRatios: [1]),
            coordinateCount: 12, keypointCount: 4, minimumScore: options.minPoseDetectionConfidence,
            suppressionThreshold: options.detectorSuppressionThreshold)
        landmarker = try LandmarkModel(bundle: bundle, member: "pose_landmarks_detector.tflite", threads: threads, defaultRange: 0...1)
        let outputs = landmarker.runner.interpreter.outputs
        guard outputs.count == 5, outputs[0].elementCount == Self.landmarkCount * 5, outputs[4].elementCount == Self.landmarkCount * 3 else {
            throw .wrongModel("the bundle's models do not have BlazePose's inputs and outputs")
        }
        (tracker, smoothing) = Self.videoState(options)
    }

    /// The video-mode state of a new pipeline.
    private static func videoState(_ options: TaskSettings<PoseLandmarkerOptions.Values>) -> (RegionTracker, SmoothingState<PoseSmoothing>) {
        (RegionTracker(maximumCount: options.numPoses, replacementOverlap: options.minTrackingConfidence,
                       association: options.landmarkSmoothing.association(otherwise: .detectionReplacesTracked)),
         // MediaPipe smooths only a single pose, and only when frames come in sequence (pose_landmarker_graph.cc).
         SmoothingState(options.landmarkSmoothing, runningMode: options.runningMode, maximumCount: options.numPoses) {
             PoseSmoothing()
         })
    }

    func resetVideoState() {
        (tracker, smoothing) = Self.videoState(options)
        identityTracker.reset()
        trackedOrientation = .up
    }

    /// Projecting segmentation masks onto the image (when the result is assembled).
    let maskClock = PostprocessingClock()

    /// The masks' projection only when the options ask for masks.
    var stageTimings: [NamedStageTimings] {
        [NamedStageTimings("detector", detector.timings), NamedStageTimings("landmarks", landmarker.timings)]
            + (options.outputSegmentationMasks ? [NamedStageTimings("masks", maskClock.value)] : [])
    }

    func process(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> PoseLandmarkerResult {
        Self.result(try poses(image, timestampMilliseconds: timestamp), timestampMilliseconds: timestamp ?? 0,
                    masks: options.outputSegmentationMasks ? maskClock : nil, threads: options.baseOptions.numThreads ?? 2)
    }

    /// The landmarks now; the segmentation masks, when asked for, later — in live stream beside the next frame, as
    /// MediaPipe's flow limiter lets the next frame in on the landmarks stream (`pose_landmarker.cc`) — masks are
    /// not smoothed, so nothing carried between frames is needed to project them.
    func start(_ image: MPImage, timestampMilliseconds timestamp: Int) throws(VisionTaskError) -> PipelineOutput<PoseLandmarkerResult> {
        let poses = try poses(image, timestampMilliseconds: timestamp)
        guard options.outputSegmentationMasks else {
            return .finished(Self.result(poses, timestampMilliseconds: timestamp, masks: nil, threads: 1))
        }
        let clock = maskClock
        // One thread: the next frame's landmarks have the others.
        return .unfinished { Self.result(poses, timestampMilliseconds: timestamp, masks: clock, threads: 1) }
    }

    /// The result; with `masks`, the segmentation masks projected (on up to `threads` threads) and timed.
    private static func result(_ poses: [PoseEstimate], timestampMilliseconds timestamp: Int,
                               masks: PostprocessingClock?, threads: Int) -> PoseLandmarkerResult {
        var result = PoseLandmarkerResult(landmarks: poses.map(\.landmarks), worldLandmarks: poses.map(\.world),
                                          segmentationMasks: masks.map { clock in
                                              clock.measure { poses.compactMap { $0.mask?.projected(threads: threads) } }
                                          },
                                          timestampInMilliseconds: timestamp)
        result.identities = poses.compactMap(\.identity)
        return result
    }

    /// The orientation of the frame the tracked regions are in: they are the upright picture's, so a change of
    /// orientation between frames drops them and the detector runs again.
    private var trackedOrientation = ImageOrientation.up

    /// The poses in the buffer's frame. MediaPipe's pose graph loses a turned person (its PoseDetectorGraph removes
    /// the letterbox from its detections but not the rotation), so a turned buffer is not run as MediaPipe runs it:
    /// its upright picture is (one copy of the pixels), and the poses come back into the buffer's frame — the upright
    /// result, mapped, where MediaPipe has none to give.
    private func poses(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> [PoseEstimate] {
        if image.orientation != trackedOrientation {
            tracker.track([])
            trackedOrientation = image.orientation
        }
        guard let turn = QuarterTurn(image.orientation), turn.k != 0 else {
            return try uprightPoses(image, timestampMilliseconds: timestamp)
        }
        let upright: MPImage
        do { upright = try turn.upright(image) } catch { throw .image(error) }
        return try uprightPoses(upright, timestampMilliseconds: timestamp).map { pose in
            var pose = pose
            for i in pose.landmarks.indices {
                (pose.landmarks[i].x, pose.landmarks[i].y) = turn.point(x: pose.landmarks[i].x, y: pose.landmarks[i].y)
            }
            for i in pose.world.indices {
                (pose.world[i].x, pose.world[i].y) = turn.direction(x: pose.world[i].x, y: pose.world[i].y)
            }
            pose.mask = pose.mask.map { mask in
                MaskProjection.Logits(values: mask.values, width: mask.width, height: mask.height,
                                      transform: turn.transform(mask.transform, uprightWidth: upright.width, uprightHeight: upright.height),
                                      imageWidth: image.width, imageHeight: image.height)
            }
            return pose
        }
    }

    /// The tracked (video, live stream) or detected poses of an upright picture, smoothed where MediaPipe smooths them.
    private func uprightPoses(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> [PoseEstimate] {
        var poses = try tracker.frame(tracking: timestamp != nil) { () throws(VisionTaskError) in try detect(image) } estimate: {
            (rect) throws(VisionTaskError) in try landmarks(image, rect: rect)
        }
        if let timestamp {
            smoothing.apply(&poses) {
                $0.apply($1, imageWidth: image.width, imageHeight: image.height, timestampMilliseconds: timestamp)
            } reset: { $0.noPose() }
            // After smoothing: the identities follow the landmarks the results give.
            guard options.followsIdentities else { return poses }
            let found = identityTracker.identities(of: poses.map { pose in
                IdentityObservation(points: pose.landmarks.map { SIMD2($0.x * Float(image.width), $0.y * Float(image.height)) },
                                    appearance: PoseAppearance.colour(of: pose.landmarks, in: image))
            }, timestampMilliseconds: timestamp)
            for i in poses.indices { poses[i].identity = found[i] }
        }
        return poses
    }

    /// Pose regions from the detector, best first: the alignment-point region from the hips centre and the point
    /// above the head.
    func detect(_ image: MPImage) throws(VisionTaskError) -> [NormalizedRect] {
        try detector.detect(image, backProjection: .letterbox).map { region(start: $0.keypoints[0], end: $0.keypoints[1], image: image) }
    }

    private func region(start: SIMD2<Float>, end: SIMD2<Float>, image: MPImage) -> NormalizedRect {
        let rect = Self.regionFromDetection.rect(start: start, end: end, imageWidth: image.width, imageHeight: image.height)
        return Self.regionTransformation.apply(rect, imageWidth: image.width, imageHeight: image.height)
    }

    /// Runs the landmark model on one region; nil when the model says no pose is there.
    func landmarks(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> PoseEstimate? {
        try landmarker.run(image, rect: rect) { (runner, transform) throws(VisionTaskError) in
            try decode(runner, transform, rect: rect, image: image)
        }
    }

    private func decode(_ runner: TensorRunner, _ transform: TensorToImageTransform, rect: NormalizedRect,
                        image: MPImage) throws(VisionTaskError) -> PoseEstimate? {
        let presence = try runner.output(1).first ?? 0
        guard presence > options.minPosePresenceConfidence else { return nil }
        let raw = try runner.output(0)
        var points = landmarker.points(raw, count: Self.landmarkCount, stride: 5)
        var visibility: [Float] = [], presences: [Float] = []
        for i in 0..<Self.landmarkCount {
            visibility.append(1 / (1 + expf(-raw[5 * i + 3])))
            presences.append(1 / (1 + expf(-raw[5 * i + 4])))
        }
        let heatmapShape = runner.interpreter.outputs[3].shape
        let heatmap = try runner.output(3)
        if heatmapShape.count == 4 {
            heatmap.withUnsafeBufferPointer {
                HeatmapRefinement().refine(&points, heatmap: $0, height: heatmapShape[1], width: heatmapShape[2], channels: heatmapShape[3])
            }
        }
        let projected = LandmarkProjection.project(points, transform: transform, through: rect)
        let landmarks = (0..<Self.poseLandmarkCount).map { i in
            NormalizedLandmark(x: projected[i].x, y: projected[i].y, z: projected[i].z, visibility: visibility[i], presence: presences[i])
        }
        let worldRaw = try runner.output(4)
        let world = (0..<Self.poseLandmarkCount).map { i in
            let q = LandmarkProjection.rotateWorld(SIMD3(worldRaw[3 * i], worldRaw[3 * i + 1], worldRaw[3 * i + 2]), by: rect.rotation)
            return Landmark(x: q.x, y: q.y, z: q.z, visibility: visibility[i], presence: presences[i])
        }
        let auxiliary = (projected[33], projected[34])
        let nextRect = region(start: SIMD2(auxiliary.0.x, auxiliary.0.y), end: SIMD2(auxiliary.1.x, auxiliary.1.y), image: image)
        var mask: MaskProjection.Logits?
        if options.outputSegmentationMasks {
            let shape = runner.interpreter.outputs[2].shape
            mask = MaskProjection.Logits(values: try runner.output(2), width: shape.count == 4 ? shape[2] : 256,
                                         height: shape.count == 4 ? shape[1] : 256, transform: transform,
                                         imageWidth: image.width, imageHeight: image.height)
        }
        return PoseEstimate(landmarks: landmarks, world: world, mask: mask, nextRect: nextRect, instance: 0,
                            auxiliary: [auxiliary.0, auxiliary.1])
    }
}

/// One pose found in one frame, before results are assembled.
struct PoseEstimate: TrackedEstimate {
    var landmarks: [NormalizedLandmark]
    var world: [Landmark]
    /// Projected onto the image when the result is assembled.
    var mask: MaskProjection.Logits?
    var nextRect: NormalizedRect
    /// The tracked instance it belongs to (``TrackedRegion/instance``).
    var instance: Int
    /// The model's two alignment points (hips centre, above the head), projected: the holistic landmarker smooths
    /// them before it derives the next frame's region.
    var auxiliary: [SIMD3<Float>] = []
    /// Its identity across frames (``IdentityTracker``); nil in image mode.
    var identity: Int? = nil
}
