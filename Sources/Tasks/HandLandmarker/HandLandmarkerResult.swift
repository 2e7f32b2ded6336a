/// The hands found: 21 landmarks each in image and world coordinates, and which hand it is. Hands are in the same
/// order in every array.
public struct HandLandmarkerResult: TaskResult, Sendable, Equatable {
    /// One list per hand: its best handedness category — "Right" (index 0) or "Left" (index 1), with the model's
    /// confidence — as MediaPipe's Tasks report it: the person's own hand in an unmirrored image (a rear camera, a
    /// photo). In a mirrored, selfie-style image the label names the other hand. (MediaPipe's legacy Hands solution
    /// assumed mirrored input and labelled the other way round.)
    public var handedness: [[Category]]
    public var landmarks: [[NormalizedLandmark]]
    /// Metres, with the origin at the hand's approximate geometric centre.
    public var worldLandmarks: [[Landmark]]
    public var timestampInMilliseconds: Int
    /// Ours, beside MediaPipe's fields: in video and live-stream modes, the identity of each hand, in the order of
    /// ``landmarks`` — the same number while the same hand is followed from frame to frame, never given to another
    /// hand (<doc:Identities>); empty in image mode. A parallel array, as ``handedness`` is.
    public var identities: [Int] = []

    /// MediaPipe's initializer.
    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], handedness: [[Category]], timestampInMilliseconds: Int) {
        self.init(handedness: handedness, landmarks: landmarks, worldLandmarks: worldLandmarks, timestampInMilliseconds: timestampInMilliseconds)
    }

    public init(handedness: [[Category]], landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], timestampInMilliseconds: Int) {
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
