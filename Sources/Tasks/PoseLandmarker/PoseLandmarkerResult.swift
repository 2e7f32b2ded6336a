/// Landmarks of every pose found, in image-normalized and world coordinates, and their segmentation masks when asked
/// for (MediaPipe's `PoseLandmarkerResult`).
public struct PoseLandmarkerResult: TaskResult, Sendable, Equatable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    /// One float mask per pose, the size of the image, when `shouldOutputSegmentationMasks` is set; empty otherwise (as
    /// in MediaPipe, an array, never nil).
    public var segmentationMasks: [Mask]
    public var timestampInMilliseconds: Int
    /// Ours, beside MediaPipe's fields: in video and live-stream modes, the identity of each pose, in the order of
    /// ``landmarks`` — the same number while the same person is followed from frame to frame, through crossings and
    /// short occlusions, and never given to another person (<doc:Identities>); empty in image mode. A parallel
    /// array rather than a field on each pose because MediaPipe's poses are bare landmark arrays, which we keep.
    public var identities: [Int] = []

    /// MediaPipe's initializer: nil masks are none.
    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], segmentationMasks: [Mask]?,
                timestampInMilliseconds: Int) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks ?? []
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
