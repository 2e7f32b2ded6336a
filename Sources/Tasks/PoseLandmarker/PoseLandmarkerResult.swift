/// Landmarks of every pose found, in image-normalized and world coordinates, and optional segmentation masks.
public struct PoseLandmarkerResult: Sendable, Equatable {
    public var landmarks: [[NormalizedLandmark]]
    public var worldLandmarks: [[Landmark]]
    public var segmentationMasks: [Mask]?
    public var timestampInMilliseconds: Int

    public init(landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], segmentationMasks: [Mask]?,
                timestampInMilliseconds: Int) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
