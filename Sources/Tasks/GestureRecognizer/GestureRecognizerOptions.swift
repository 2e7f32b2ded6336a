/// Options of a ``GestureRecognizer``, with MediaPipe's names and defaults.
public final class GestureRecognizerOptions {
    /// Every option but the delegate, in one value: ``copy()`` copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var baseOptions = BaseOptions()
        var runningMode: RunningMode = .image
        var hand = HandOptions()
        var cannedGesturesClassifierOptions = ClassifierOptions()
        var customGesturesClassifierOptions = ClassifierOptions()
    }

    var values = Values()

    public var baseOptions: BaseOptions {
        get { values.baseOptions } set { values.baseOptions = newValue }
    }
    public var runningMode: RunningMode {
        get { values.runningMode } set { values.runningMode = newValue }
    }
    /// The most hands to return (≥ 1).
    public var numHands: Int {
        get { values.hand.numHands } set { values.hand.numHands = newValue }
    }
    /// Palm detector score threshold.
    public var minHandDetectionConfidence: Float {
        get { values.hand.minHandDetectionConfidence } set { values.hand.minHandDetectionConfidence = newValue }
    }
    /// Landmark model hand-presence threshold.
    public var minHandPresenceConfidence: Float {
        get { values.hand.minHandPresenceConfidence } set { values.hand.minHandPresenceConfidence = newValue }
    }
    /// In video and live-stream modes: the overlap (IoU) above which a new detection replaces a tracked hand.
    public var minTrackingConfidence: Float {
        get { values.hand.minTrackingConfidence } set { values.hand.minTrackingConfidence = newValue }
    }
    /// Which of the canned gestures ("None", "Closed_Fist", "Open_Palm", "Pointing_Up", "Thumb_Down", "Thumb_Up",
    /// "Victory", "ILoveYou") are reported.
    public var cannedGesturesClassifierOptions: ClassifierOptions {
        get { values.cannedGesturesClassifierOptions } set { values.cannedGesturesClassifierOptions = newValue }
    }
    /// Which gestures of a custom classifier (a bundle made with MediaPipe Model Maker) are reported.
    public var customGesturesClassifierOptions: ClassifierOptions {
        get { values.customGesturesClassifierOptions } set { values.customGesturesClassifierOptions = newValue }
    }
    /// Which hands video and live-stream modes smooth: by default none, as MediaPipe (it smooths no hand); `.always`
    /// gives every tracked hand filters of its own, and its gestures are recognized from the smoothed landmarks.
    /// (Not a MediaPipe option.)
    public var landmarkSmoothing: LandmarkSmoothing {
        get { values.hand.landmarkSmoothing } set { values.hand.landmarkSmoothing = newValue }
    }
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var gestureRecognizerLiveStreamDelegate: (any GestureRecognizerLiveStreamDelegate)?

    public init() {}

    /// A copy with the same options and delegate.
    public func copy() -> GestureRecognizerOptions {
        let copy = GestureRecognizerOptions()
        copy.values = values
        copy.gestureRecognizerLiveStreamDelegate = gestureRecognizerLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try baseOptions.validate()
        try values.hand.validate()
        try cannedGesturesClassifierOptions.validate(as: "cannedGesturesClassifierOptions")
        try customGesturesClassifierOptions.validate(as: "customGesturesClassifierOptions")
        try OptionCheck.liveStreamDelegate(isSet: gestureRecognizerLiveStreamDelegate != nil, runningMode: runningMode,
                                           "gestureRecognizerLiveStreamDelegate")
    }
}

/// Receives a ``GestureRecognizer``'s live-stream results, in timestamp order, one at a time, on the recognizer's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol GestureRecognizerLiveStreamDelegate: AnyObject {
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `recognizeAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `recognizeAsync` call is answered exactly once. Optional.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension GestureRecognizerLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}

/// The hands found, each with its gestures (best first), handedness and landmarks; hands are in the same order in
/// every array.
public struct GestureRecognizerResult: Sendable, Equatable {
    /// One list per hand: its gesture (index −1, as MediaPipe reports gestures), or an empty list when the classifier
    /// options filtered every category out (MediaPipe drops that hand from this list alone, misaligning it).
    public var gestures: [[Category]]
    /// As ``HandLandmarkerResult/handedness``: labels for unmirrored images.
    public var handedness: [[Category]]
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var timestampInMilliseconds: Int

    public init(gestures: [[Category]], handedness: [[Category]], landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
                timestampInMilliseconds: Int) {
        self.gestures = gestures
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
