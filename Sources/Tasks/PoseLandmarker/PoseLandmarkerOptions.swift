/// Options of a ``PoseLandmarker``, with MediaPipe's names and defaults.
public final class PoseLandmarkerOptions {
    /// Every option but the delegate, in one value: ``copy()`` copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var baseOptions = BaseOptions()
        var runningMode: RunningMode = .image
        var numPoses = 1
        var minPoseDetectionConfidence: Float = 0.5
        var minPosePresenceConfidence: Float = 0.5
        var minTrackingConfidence: Float = 0.5
        var outputSegmentationMasks = false
        var landmarkSmoothing: LandmarkSmoothing = .mediapipe
    }

    var values = Values()

    public var baseOptions: BaseOptions {
        get { values.baseOptions } set { values.baseOptions = newValue }
    }
    public var runningMode: RunningMode {
        get { values.runningMode } set { values.runningMode = newValue }
    }
    /// The most poses to return (≥ 1). With 1, video and live-stream modes smooth the landmarks, as MediaPipe does.
    public var numPoses: Int {
        get { values.numPoses } set { values.numPoses = newValue }
    }
    /// Pose detector score threshold.
    public var minPoseDetectionConfidence: Float {
        get { values.minPoseDetectionConfidence } set { values.minPoseDetectionConfidence = newValue }
    }
    /// Landmark model pose-presence threshold.
    public var minPosePresenceConfidence: Float {
        get { values.minPosePresenceConfidence } set { values.minPosePresenceConfidence = newValue }
    }
    /// In video and live-stream modes: the overlap (IoU) above which a new detection replaces a tracked pose.
    public var minTrackingConfidence: Float {
        get { values.minTrackingConfidence } set { values.minTrackingConfidence = newValue }
    }
    public var outputSegmentationMasks: Bool {
        get { values.outputSegmentationMasks } set { values.outputSegmentationMasks = newValue }
    }
    /// Which poses video and live-stream modes smooth: by default as MediaPipe (a single pose, numPoses 1); `.always`
    /// gives every tracked pose filters of its own; `.never` turns smoothing off. (Not a MediaPipe option.)
    public var landmarkSmoothing: LandmarkSmoothing {
        get { values.landmarkSmoothing } set { values.landmarkSmoothing = newValue }
    }
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)?

    public init() {}

    /// A copy with the same options and delegate.
    public func copy() -> PoseLandmarkerOptions {
        let copy = PoseLandmarkerOptions()
        copy.values = values
        copy.poseLandmarkerLiveStreamDelegate = poseLandmarkerLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try baseOptions.validate()
        try OptionCheck.count(numPoses, "numPoses")
        try OptionCheck.confidence(minPoseDetectionConfidence, "minPoseDetectionConfidence")
        try OptionCheck.confidence(minPosePresenceConfidence, "minPosePresenceConfidence")
        try OptionCheck.confidence(minTrackingConfidence, "minTrackingConfidence")
        try OptionCheck.liveStreamDelegate(isSet: poseLandmarkerLiveStreamDelegate != nil, runningMode: runningMode,
                                           "poseLandmarkerLiveStreamDelegate")
    }
}

/// Receives a ``PoseLandmarker``'s live-stream results, in timestamp order, one at a time, on the landmarker's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `detectAsync` call is answered exactly once. Optional.
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension PoseLandmarkerLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func poseLandmarker(_ poseLandmarker: PoseLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}

/// Landmarks of every pose found, in image-normalized and world coordinates, and optional segmentation masks.
public struct PoseLandmarkerResult: Sendable, Equatable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var segmentationMasks: [Mask]?
    public var timestampInMilliseconds: Int

    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], segmentationMasks: [Mask]?,
                timestampInMilliseconds: Int) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
