/// The faces found, best first: each a pixel box, one category (index 0 and the face score) and six keypoints
/// normalized to the image (the eyes, the nose tip, the mouth and the two ear tragions, in the model's order).
public struct FaceDetectorResult: TaskResult, Sendable, Equatable {
    public var detections: [Detection]
    public var timestampInMilliseconds: Int

    public init(detections: [Detection], timestampInMilliseconds: Int) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
