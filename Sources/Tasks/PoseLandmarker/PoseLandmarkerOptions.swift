/// Options of a ``PoseLandmarker``, with MediaPipe's names and defaults (``TaskOptions`` has the shared ones).
public final class PoseLandmarkerOptions: TaskOptions, TaskOptionsValues {
    /// The pose options in one value: a copy copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var numPoses = 1
        var minPoseDetectionConfidence: Float = 0.5
        var minPosePresenceConfidence: Float = 0.5
        var minTrackingConfidence: Float = 0.5
        var outputSegmentationMasks = false
        var landmarkSmoothing: LandmarkSmoothing = .mediapipe
        /// The pose detector's non-maximum suppression (not an option of the pose landmarker; the holistic
        /// landmarker's `minPoseSuppressionThreshold`).
        var detectorSuppressionThreshold = PoseLandmarkerPipeline.suppressionThreshold
        /// Whether video and live-stream results carry identities (``PoseLandmarkerResult/identities``). Not an
        /// option of the public API: the tests turn it off to show that identities change no landmark.
        var followsIdentities = true
    }

    var values = Values()

    override func validateTaskOptions() throws(VisionTaskError) {
        try OptionCheck.landmarker("Pose", count: numPoses, detection: minPoseDetectionConfidence,
                                   presence: minPosePresenceConfidence, tracking: minTrackingConfidence)
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any PoseLandmarkerLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
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
    /// Whether results carry a segmentation mask per pose (``PoseLandmarkerResult/segmentationMasks``); off by
    /// default. MediaPipe's name; ``outputSegmentationMasks`` is the same option.
    public var shouldOutputSegmentationMasks: Bool {
        get { values.outputSegmentationMasks } set { values.outputSegmentationMasks = newValue }
    }
    /// The guides' name of ``shouldOutputSegmentationMasks`` (their option table's `output_segmentation_masks`).
    public var outputSegmentationMasks: Bool {
        get { values.outputSegmentationMasks } set { values.outputSegmentationMasks = newValue }
    }
    /// Which poses video and live-stream modes smooth: by default as MediaPipe (a single pose, numPoses 1); `.always`
    /// gives every tracked pose filters of its own; `.never` turns smoothing off. (Not a MediaPipe option.)
    public var landmarkSmoothing: LandmarkSmoothing {
        get { values.landmarkSmoothing } set { values.landmarkSmoothing = newValue }
    }
}
