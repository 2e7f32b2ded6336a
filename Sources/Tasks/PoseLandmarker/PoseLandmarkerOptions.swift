/// Options of a ``PoseLandmarker``, with MediaPipe's names and defaults.
public final class PoseLandmarkerOptions {
    public var baseOptions = BaseOptions()
    public var runningMode: RunningMode = .image
    /// The most poses to return (≥ 1). Landmark smoothing in video and live-stream modes needs 1, as in MediaPipe.
    public var numPoses: Int = 1
    /// Pose detector score threshold.
    public var minPoseDetectionConfidence: Float = 0.5
    /// Landmark model pose-presence threshold.
    public var minPosePresenceConfidence: Float = 0.5
    /// In video and live-stream modes: the overlap (IoU) above which a new detection replaces a tracked pose.
    public var minTrackingConfidence: Float = 0.5
    public var outputSegmentationMasks = false
    /// Receives live-stream results; required in `.liveStream` mode.
    public weak var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)?

    public init() {}

    func validate() throws(VisionTaskError) {
        guard numPoses >= 1 else { throw .invalidOption(name: "numPoses", reason: "\(numPoses) is below 1") }
        try validateConfidence(minPoseDetectionConfidence, "minPoseDetectionConfidence")
        try validateConfidence(minPosePresenceConfidence, "minPosePresenceConfidence")
        try validateConfidence(minTrackingConfidence, "minTrackingConfidence")
        if runningMode == .liveStream, poseLandmarkerLiveStreamDelegate == nil { throw .missingLiveStreamDelegate }
        if runningMode != .liveStream, poseLandmarkerLiveStreamDelegate != nil {
            throw .invalidOption(name: "poseLandmarkerLiveStreamDelegate", reason: "only used in live-stream mode")
        }
    }
}

/// Receives a ``PoseLandmarker``'s live-stream results, in timestamp order, on the landmarker's delivery queue.
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject, Sendable {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
}

/// Landmarks of every pose found, in image-normalized and world coordinates, and optional segmentation masks.
public struct PoseLandmarkerResult: Sendable, Equatable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var segmentationMasks: [Mask]?
    public var timestampInMilliseconds: Int
}
