/// The hand-finding options the Hand Landmarker and the Gesture Recognizer share, with MediaPipe's names and defaults
/// (both tasks run MediaPipe's hand landmarker graph).
public class HandTaskOptions: TaskOptions {
    var hand = HandOptions()

    override func validateTaskOptions() throws(VisionTaskError) {
        try hand.validate()
    }

    /// The most hands to return (≥ 1).
    public var numHands: Int {
        get { hand.numHands } set { hand.numHands = newValue }
    }
    /// Palm detector score threshold.
    public var minHandDetectionConfidence: Float {
        get { hand.minHandDetectionConfidence } set { hand.minHandDetectionConfidence = newValue }
    }
    /// Landmark model hand-presence threshold.
    public var minHandPresenceConfidence: Float {
        get { hand.minHandPresenceConfidence } set { hand.minHandPresenceConfidence = newValue }
    }
    /// In video and live-stream modes: the overlap (IoU) above which a new detection replaces a tracked hand.
    public var minTrackingConfidence: Float {
        get { hand.minTrackingConfidence } set { hand.minTrackingConfidence = newValue }
    }
    /// Which hands video and live-stream modes smooth: by default none, as MediaPipe (it smooths no hand); `.always`
    /// gives every tracked hand filters of its own (the gesture recognizer then recognizes from the smoothed
    /// landmarks). (Not a MediaPipe option.)
    public var landmarkSmoothing: LandmarkSmoothing {
        get { hand.landmarkSmoothing } set { hand.landmarkSmoothing = newValue }
    }
}

/// The hand-finding options as one value, for the hand pipeline.
struct HandOptions: Sendable {
    var numHands = 1
    var minHandDetectionConfidence: Float = 0.5
    var minHandPresenceConfidence: Float = 0.5
    var minTrackingConfidence: Float = 0.5
    var landmarkSmoothing: LandmarkSmoothing = .mediapipe

    func validate() throws(VisionTaskError) {
        try OptionCheck.landmarker("Hand", count: numHands, detection: minHandDetectionConfidence,
                                   presence: minHandPresenceConfidence, tracking: minTrackingConfidence)
    }
}
