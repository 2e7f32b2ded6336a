/// Options of a ``FaceLandmarker``, with MediaPipe's names and defaults.
public final class FaceLandmarkerOptions {
    /// Every option but the delegate, in one value: ``copy()`` copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var baseOptions = BaseOptions()
        var runningMode: RunningMode = .image
        var numFaces = 1
        var minFaceDetectionConfidence: Float = 0.5
        var minFacePresenceConfidence: Float = 0.5
        var minTrackingConfidence: Float = 0.5
        var outputFaceBlendshapes = false
        var outputFacialTransformationMatrixes = false
        var landmarkSmoothing: LandmarkSmoothing = .mediapipe
    }

    var values = Values()

    public var baseOptions: BaseOptions {
        get { values.baseOptions } set { values.baseOptions = newValue }
    }
    public var runningMode: RunningMode {
        get { values.runningMode } set { values.runningMode = newValue }
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
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var faceLandmarkerLiveStreamDelegate: (any FaceLandmarkerLiveStreamDelegate)?

    public init() {}

    /// A copy with the same options and delegate.
    public func copy() -> FaceLandmarkerOptions {
        let copy = FaceLandmarkerOptions()
        copy.values = values
        copy.faceLandmarkerLiveStreamDelegate = faceLandmarkerLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try baseOptions.validate()
        try OptionCheck.count(numFaces, "numFaces")
        try OptionCheck.confidence(minFaceDetectionConfidence, "minFaceDetectionConfidence")
        try OptionCheck.confidence(minFacePresenceConfidence, "minFacePresenceConfidence")
        try OptionCheck.confidence(minTrackingConfidence, "minTrackingConfidence")
        try OptionCheck.liveStreamDelegate(isSet: faceLandmarkerLiveStreamDelegate != nil, runningMode: runningMode,
                                           "faceLandmarkerLiveStreamDelegate")
    }
}

/// Receives a ``FaceLandmarker``'s live-stream results, in timestamp order, one at a time, on the landmarker's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol FaceLandmarkerLiveStreamDelegate: AnyObject {
    func faceLandmarker(_ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `detectAsync` call is answered exactly once. Optional.
    func faceLandmarker(_ faceLandmarker: FaceLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension FaceLandmarkerLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func faceLandmarker(_ faceLandmarker: FaceLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}

/// The faces found: 478 landmarks each (the face mesh and both irises), and, when asked for, 52 blendshape scores and
/// the transformation from MediaPipe's canonical face model. Faces are in the same order in every array.
public struct FaceLandmarkerResult: Sendable, Equatable {
    public var faceLandmarks: [[NormalizedLandmark]]
    /// One ``Classifications`` per face (head 0, 52 categories in the model's order), empty unless
    /// `outputFaceBlendshapes` is set.
    public var faceBlendshapes: [Classifications]
    /// One 4 × 4 matrix per face, empty unless `outputFacialTransformationMatrixes` is set.
    public var facialTransformationMatrixes: [TransformMatrix]
    public var timestampInMilliseconds: Int

    public init(faceLandmarks: [[NormalizedLandmark]], faceBlendshapes: [Classifications],
                facialTransformationMatrixes: [TransformMatrix], timestampInMilliseconds: Int) {
        self.faceLandmarks = faceLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.facialTransformationMatrixes = facialTransformationMatrixes
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
