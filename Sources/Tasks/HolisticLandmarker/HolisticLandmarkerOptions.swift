/// Options of a ``HolisticLandmarker``, with MediaPipe's names and defaults (``TaskOptions`` has the shared ones).
/// Where MediaPipe 0.10 and 1.x name an option differently, both names are here and set the same value.
public final class HolisticLandmarkerOptions: TaskOptions, TaskOptionsValues {
    /// The holistic options in one value: a copy copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var minFaceDetectionConfidence: Float = 0.5
        var minFaceSuppressionThreshold: Float = 0.3
        var minFacePresenceConfidence: Float = 0.5
        var minPoseDetectionConfidence: Float = 0.5
        var minPoseSuppressionThreshold: Float = 0.3
        var minPosePresenceConfidence: Float = 0.5
        var minHandLandmarksConfidence: Float = 0.5
        var outputFaceBlendshapes = false
        var outputPoseSegmentationMasks = false
        var numPeople = 1
    }

    var values = Values()

    override func validateTaskOptions() throws(VisionTaskError) {
        try OptionCheck.confidence(minFaceDetectionConfidence, "minFaceDetectionConfidence")
        try OptionCheck.confidence(minFaceSuppressionThreshold, "minFaceSuppressionThreshold")
        try OptionCheck.confidence(minFacePresenceConfidence, "minFacePresenceConfidence")
        try OptionCheck.confidence(minPoseDetectionConfidence, "minPoseDetectionConfidence")
        try OptionCheck.confidence(minPoseSuppressionThreshold, "minPoseSuppressionThreshold")
        try OptionCheck.confidence(minPosePresenceConfidence, "minPosePresenceConfidence")
        try OptionCheck.confidence(minHandLandmarksConfidence, "minHandLandmarksConfidence")
        try OptionCheck.count(numPeople, "numPeople")
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var holisticLandmarkerLiveStreamDelegate: (any HolisticLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any HolisticLandmarkerLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }

    /// Face detector score threshold, inside the face region the pose gives.
    public var minFaceDetectionConfidence: Float {
        get { values.minFaceDetectionConfidence } set { values.minFaceDetectionConfidence = newValue }
    }
    /// Overlap (IoU) above which two face detections are merged.
    public var minFaceSuppressionThreshold: Float {
        get { values.minFaceSuppressionThreshold } set { values.minFaceSuppressionThreshold = newValue }
    }
    /// Face landmark model presence threshold.
    public var minFacePresenceConfidence: Float {
        get { values.minFacePresenceConfidence } set { values.minFacePresenceConfidence = newValue }
    }
    /// MediaPipe 0.10's name of ``minFacePresenceConfidence``.
    public var minFaceLandmarksConfidence: Float {
        get { values.minFacePresenceConfidence } set { values.minFacePresenceConfidence = newValue }
    }
    /// Pose detector score threshold.
    public var minPoseDetectionConfidence: Float {
        get { values.minPoseDetectionConfidence } set { values.minPoseDetectionConfidence = newValue }
    }
    /// Overlap (IoU) above which two pose detections are merged.
    public var minPoseSuppressionThreshold: Float {
        get { values.minPoseSuppressionThreshold } set { values.minPoseSuppressionThreshold = newValue }
    }
    /// Pose landmark model presence threshold.
    public var minPosePresenceConfidence: Float {
        get { values.minPosePresenceConfidence } set { values.minPosePresenceConfidence = newValue }
    }
    /// MediaPipe 0.10's name of ``minPosePresenceConfidence``.
    public var minPoseLandmarksConfidence: Float {
        get { values.minPosePresenceConfidence } set { values.minPosePresenceConfidence = newValue }
    }
    /// Hand landmark model presence threshold.
    public var minHandLandmarksConfidence: Float {
        get { values.minHandLandmarksConfidence } set { values.minHandLandmarksConfidence = newValue }
    }
    /// Whether results carry the face's 52 blendshape scores.
    public var outputFaceBlendshapes: Bool {
        get { values.outputFaceBlendshapes } set { values.outputFaceBlendshapes = newValue }
    }
    /// Whether results carry the pose's segmentation mask (MediaPipe 1.x's name).
    public var outputPoseSegmentationMasks: Bool {
        get { values.outputPoseSegmentationMasks } set { values.outputPoseSegmentationMasks = newValue }
    }
    /// The most people to find (≥ 1), each with their own face and hands, in ``HolisticLandmarkerResult/people``. With
    /// 1, the default, the landmarker is MediaPipe's; with more, the pose detector runs while fewer are tracked and each
    /// person is tracked and smoothed on their own. (Not a MediaPipe option: its holistic graph follows one person.)
    public var numPeople: Int {
        get { values.numPeople } set { values.numPeople = newValue }
    }
    /// MediaPipe 0.10's name of ``outputPoseSegmentationMasks``.
    public var outputSegmentationMask: Bool {
        get { values.outputPoseSegmentationMasks } set { values.outputPoseSegmentationMasks = newValue }
    }
}
