/// Options of a ``GestureRecognizer``, with MediaPipe's names and defaults (``HandTaskOptions`` has the hand-finding
/// ones, ``TaskOptions`` the shared ones).
public final class GestureRecognizerOptions: HandTaskOptions, TaskOptionsValues {
    /// What the recognizer is built from: the hand options and both classifiers' options.
    struct Values: Sendable {
        var hand: HandOptions
        var cannedGesturesClassifierOptions: ClassifierOptions
        var customGesturesClassifierOptions: ClassifierOptions
    }

    private var gestureClassifiers = (canned: ClassifierOptions(), custom: ClassifierOptions())

    var values: Values {
        get {
            Values(hand: hand, cannedGesturesClassifierOptions: gestureClassifiers.canned,
                   customGesturesClassifierOptions: gestureClassifiers.custom)
        }
        set {
            hand = newValue.hand
            gestureClassifiers = (newValue.cannedGesturesClassifierOptions, newValue.customGesturesClassifierOptions)
        }
    }

    override func validateTaskOptions() throws(VisionTaskError) {
        try super.validateTaskOptions()
        try cannedGesturesClassifierOptions.validate(as: "cannedGesturesClassifierOptions")
        try customGesturesClassifierOptions.validate(as: "customGesturesClassifierOptions")
    }

    /// Which of the canned gestures ("None", "Closed_Fist", "Open_Palm", "Pointing_Up", "Thumb_Down", "Thumb_Up",
    /// "Victory", "ILoveYou") are reported.
    public var cannedGesturesClassifierOptions: ClassifierOptions {
        get { gestureClassifiers.canned } set { gestureClassifiers.canned = newValue }
    }
    /// Which gestures of a custom classifier (a bundle made with MediaPipe Model Maker) are reported.
    public var customGesturesClassifierOptions: ClassifierOptions {
        get { gestureClassifiers.custom } set { gestureClassifiers.custom = newValue }
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var gestureRecognizerLiveStreamDelegate: (any GestureRecognizerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any GestureRecognizerLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }
}
