/// The hands found, each with its gestures (best first), handedness and landmarks; hands are in the same order in
/// every array.
public struct GestureRecognizerResult: TaskResult, Sendable, Equatable {
    /// One list per hand: its gesture (index −1, as MediaPipe reports gestures), or an empty list when the classifier
    /// options filtered every category out (MediaPipe drops that hand from this list alone, misaligning it).
    public var gestures: [[Category]]
    /// As ``HandLandmarkerResult/handedness``: labels for unmirrored images.
    public var handedness: [[Category]]
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var timestampInMilliseconds: Int
    /// Ours, beside MediaPipe's fields: in video and live-stream modes, the identity of each hand, in the order of
    /// ``landmarks`` — the same number while the same hand is followed from frame to frame, never given to another
    /// hand (<doc:Identities>); empty in image mode. A parallel array, as ``handedness`` is.
    public var identities: [Int] = []

    public init(gestures: [[Category]], handedness: [[Category]], landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
                timestampInMilliseconds: Int) {
        self.gestures = gestures
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
