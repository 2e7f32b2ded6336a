/// Options of a ``FaceDetector``, with MediaPipe's names and its iOS defaults.
public final class FaceDetectorOptions: TaskOptions, TaskOptionsValues {
    /// The detector's fields, in one value: a copy copies it whole.
    struct Values: Sendable {
        var minDetectionConfidence: Float = 0.5
        /// MPPFaceDetectorOptions' default; the graph's own proto says 0.5, but every MediaPipe API sets 0.3.
        var minSuppressionThreshold: Float = 0.3
    }

    var values = Values()

    /// Faces scoring below this are not returned, in [0, 1].
    public var minDetectionConfidence: Float {
        get { values.minDetectionConfidence } set { values.minDetectionConfidence = newValue }
    }
    /// The overlap (IoU) above which two detections are taken as one face and merged, in [0, 1].
    public var minSuppressionThreshold: Float {
        get { values.minSuppressionThreshold } set { values.minSuppressionThreshold = newValue }
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var faceDetectorLiveStreamDelegate: (any FaceDetectorLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any FaceDetectorLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }

    override func validateTaskOptions() throws(VisionTaskError) {
        try OptionCheck.confidence(minDetectionConfidence, "minDetectionConfidence")
        try OptionCheck.confidence(minSuppressionThreshold, "minSuppressionThreshold")
    }
}
