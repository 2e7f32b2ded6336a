import Foundation
import VisionTasksModelFormat

/// The palm detector → region → hand landmarks pipeline of MediaPipe's hand landmarker graphs, one frame at a time,
/// with its video-mode state (tracked regions). The gesture recognizer runs it too. MediaPipe smooths no hand.
final class HandLandmarkerPipeline: TaskPipeline {
    typealias Options = HandLandmarkerOptions
    let options: TaskSettings<HandOptions>
    let detector: SSDDetector
    let landmarker: HandLandmarksModel
    private var tracker: RegionTracker
    /// Only with `.always`: MediaPipe smooths no hand.
    private var smoothing: SmoothingState<HandSmoothing>
    /// Identities across frames in video and live-stream modes (ours; read from the results, changing none).
    private var identityTracker = IdentityTracker()

    // Constants of MediaPipe's hand_detector_graph.cc and hand_landmarks_detector_graph.cc.
    static let suppressionThreshold: Float = 0.3
    /// The palm box, turned so that keypoint 0 (wrist) to keypoint 2 (middle finger's knuckle) points at the target.
    /// hand_detector_graph.cc passes 90 to the field in *radians* (`rotation_vector_target_angle`), so the target is
    /// 90 rad (π/2 + 26.6° after normalization), not 90°: MediaPipe's results follow that, and so do ours (with π/2
    /// they move by 1e-2).
    static let regionFromDetection = RegionFromDetection(shape: .boundingBox, startKeypoint: 0, endKeypoint: 2, targetAngle: 90)
    static let detectionTransformation = RegionTransformation(scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)

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
        landmarker = try HandLandmarksModel(bundle: bundle, threads: threads, minimumPresence: options.minHandPresenceConfidence)
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
        [NamedStageTimings("detector", detector.timings), NamedStageTimings("landmarks", landmarker.model.timings)]
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
        try landmarker.landmarks(image, rect: rect)
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
