/// Options of a ``FaceLandmarker``, with MediaPipe's names and defaults (``TaskOptions`` has the shared ones).
public final class FaceLandmarkerOptions: TaskOptions, TaskOptionsValues {
    /// The face options in one value: a copy copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var numFaces = 1
        var minFaceDetectionConfidence: Float = 0.5
        var minFacePresenceConfidence: Float = 0.5
        var minTrackingConfidence: Float = 0.5
        var outputFaceBlendshapes = false
        var outputFacialTransformationMatrixes = false
        var landmarkSmoothing: LandmarkSmoothing = .mediapipe
        /// The face detector's non-maximum suppression (not an option of the face landmarker; the holistic
        /// landmarker's `minFaceSuppressionThreshold`).
        var detectorSuppressionThreshold = FaceLandmarkerPipeline.suppressionThreshold
    }

    var values = Values()

    override func validateTaskOptions() throws(VisionTaskError) {
        try OptionCheck.landmarker("Face", count: numFaces, detection: minFaceDetectionConfidence,
                                   presence: minFacePresenceConfidence, tracking: minTrackingConfidence)
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var faceLandmarkerLiveStreamDelegate: (any FaceLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any FaceLandmarkerLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }

    /// The most faces to return (≥ 1). With 1, video and live-stream modes smooth the landmarks, as MediaPipe does.
    public var numFaces: Int {
        get { values.numFaces } set { values.numFaces = newValue }
    }
    /// Face detector score threshold.
    public var minFaceDetectionConfidence: Float {
        get { values.minFaceDetectionConfidence } set { values.minFaceDetectionConfidence = newValue }
    }
    /// Landmark model face-presence threshold.
    public var minFacePresenceConfidence: Float {
        get { values.minFacePresenceConfidence } set { values.minFacePresenceConfidence = newValue }
    }
    /// In video and live-stream modes: the overlap (IoU) above which a new detection replaces a tracked face.
    public var minTrackingConfidence: Float {
        get { values.minTrackingConfidence } set { values.minTrackingConfidence = newValue }
    }
    /// Whether results carry the 52 blendshape scores of each face.
    public var outputFaceBlendshapes: Bool {
        get { values.outputFaceBlendshapes } set { values.outputFaceBlendshapes = newValue }
    }
    /// Whether results carry each face's 4 × 4 transformation from MediaPipe's canonical face model.
    public var outputFacialTransformationMatrixes: Bool {
        get { values.outputFacialTransformationMatrixes } set { values.outputFacialTransformationMatrixes = newValue }
    }
    /// Which faces video and live-stream modes smooth: by default as MediaPipe (a single face, numFaces 1); `.always`
    /// gives every tracked face filters of its own; `.never` turns smoothing off. (Not a MediaPipe option.)
    public var landmarkSmoothing: LandmarkSmoothing {
        get { values.landmarkSmoothing } set { values.landmarkSmoothing = newValue }
    }
}
