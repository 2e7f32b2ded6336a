/// Options of a ``HandLandmarker``, with MediaPipe's names and defaults.
public final class HandLandmarkerOptions {
    /// Every option but the delegate, in one value: ``copy()`` copies it whole, so no option can be left behind.
    struct Values: Sendable {
        var baseOptions = BaseOptions()
        var runningMode: RunningMode = .image
        var hand = HandOptions()
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
    /// Which hands video and live-stream modes smooth: by default none, as MediaPipe (it smooths no hand); `.always`
    /// gives every tracked hand filters of its own. (Not a MediaPipe option.)
    public var landmarkSmoothing: LandmarkSmoothing {
        get { values.hand.landmarkSmoothing } set { values.hand.landmarkSmoothing = newValue }
    }
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)?

    public init() {}

    /// A copy with the same options and delegate.
    public func copy() -> HandLandmarkerOptions {
        let copy = HandLandmarkerOptions()
        copy.values = values
        copy.handLandmarkerLiveStreamDelegate = handLandmarkerLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try baseOptions.validate()
        try values.hand.validate()
        try OptionCheck.liveStreamDelegate(isSet: handLandmarkerLiveStreamDelegate != nil, runningMode: runningMode,
                                           "handLandmarkerLiveStreamDelegate")
    }
}

/// The hand-finding options the Hand Landmarker and the Gesture Recognizer share.
struct HandOptions: Sendable {
    var numHands = 1
    var minHandDetectionConfidence: Float = 0.5
    var minHandPresenceConfidence: Float = 0.5
    var minTrackingConfidence: Float = 0.5
    var landmarkSmoothing: LandmarkSmoothing = .mediapipe

    func validate() throws(VisionTaskError) {
        try OptionCheck.count(numHands, "numHands")
        try OptionCheck.confidence(minHandDetectionConfidence, "minHandDetectionConfidence")
        try OptionCheck.confidence(minHandPresenceConfidence, "minHandPresenceConfidence")
        try OptionCheck.confidence(minTrackingConfidence, "minTrackingConfidence")
    }
}

/// Receives a ``HandLandmarker``'s live-stream results, in timestamp order, one at a time, on the landmarker's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject {
    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `detectAsync` call is answered exactly once. Optional.
    func handLandmarker(_ handLandmarker: HandLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension HandLandmarkerLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func handLandmarker(_ handLandmarker: HandLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}

/// The hands found: 21 landmarks each in image and world coordinates, and which hand it is. Hands are in the same
/// order in every array.
public struct HandLandmarkerResult: Sendable, Equatable {
    /// One list per hand: its best handedness category — "Right" (index 0) or "Left" (index 1), with the model's
    /// confidence — as MediaPipe's Tasks report it: the person's own hand in an unmirrored image (a rear camera, a
    /// photo). In a mirrored, selfie-style image the label names the other hand. (MediaPipe's legacy Hands solution
    /// assumed mirrored input and labelled the other way round.)
    public var handedness: [[Category]]
    public var landmarks: [[NormalizedLandmark]]
    /// Metres, with the origin at the hand's approximate geometric centre.
    public var worldLandmarks: [[Landmark]]
    public var timestampInMilliseconds: Int

    public init(handedness: [[Category]], landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], timestampInMilliseconds: Int) {
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
