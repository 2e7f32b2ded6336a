/// Options of a ``GestureRecognizer``, with MediaPipe's names and defaults (``HandTaskOptions`` has the hand-finding
/// ones, ``TaskOptions`` the shared ones).
public final class GestureRecognizerOptions: HandTaskOptions, TaskOptionsValues {
    /// What the recognizer is built from: the hand options and both classifiers' options (nil: none given).
    struct Values: Sendable {
        var hand: HandOptions
        var cannedGesturesClassifierOptions: ClassifierOptions.Values?
        var customGesturesClassifierOptions: ClassifierOptions.Values?
    }

    /// The options' own classifier options instances.
    private var gestureClassifiers: (canned: ClassifierOptions?, custom: ClassifierOptions?) = (nil, nil)

    var values: Values {
        get {
            Values(hand: hand, cannedGesturesClassifierOptions: gestureClassifiers.canned?.values,
                   customGesturesClassifierOptions: gestureClassifiers.custom?.values)
        }
        set {
            hand = newValue.hand
            gestureClassifiers = (newValue.cannedGesturesClassifierOptions.map(ClassifierOptions.init),
                                  newValue.customGesturesClassifierOptions.map(ClassifierOptions.init))
        }
    }

    override func validateTaskOptions() throws(VisionTaskError) {
        try super.validateTaskOptions()
        try gestureClassifiers.canned?.values.validate(as: "cannedGesturesClassifierOptions")
        try gestureClassifiers.custom?.values.validate(as: "customGesturesClassifierOptions")
    }

    /// Which of the canned gestures ("None", "Closed_Fist", "Open_Palm", "Pointing_Up", "Thumb_Down", "Thumb_Up",
    /// "Victory", "ILoveYou") are reported; nil (the default) reports the best of them. Reading gives the options' own
    /// instance; assigning stores a copy, as MediaPipe's `copy` property does.
    ///
    /// Gestures carry no display name, whatever ``ClassifierOptions/displayNamesLocale`` says: MediaPipe's gesture
    /// graph builds each hand's gesture from the winning category's label and score alone
    /// (`CombinedPredictionCalculator`), so its results have none either (and the shared gesture bundle's classifiers
    /// carry no display-name files).
    public var cannedGesturesClassifierOptions: ClassifierOptions? {
        get { gestureClassifiers.canned } set { gestureClassifiers.canned = newValue?.copy() }
    }
    /// Which gestures of a custom classifier (a bundle made with MediaPipe Model Maker) are reported; nil (the default)
    /// uses the classifier's own score threshold from its metadata. Reading gives the options' own instance; assigning
    /// stores a copy.
    public var customGesturesClassifierOptions: ClassifierOptions? {
        get { gestureClassifiers.custom } set { gestureClassifiers.custom = newValue?.copy() }
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var gestureRecognizerLiveStreamDelegate: (any GestureRecognizerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any GestureRecognizerLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }
}
