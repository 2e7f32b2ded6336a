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

    public init(gestures: [[Category]], handedness: [[Category]], landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
                timestampInMilliseconds: Int) {
        self.gestures = gestures
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
