/// The objects found, best first: a pixel box and one category each (index −1 and the label as its name when the
/// model's metadata labels the class, as MediaPipe reports them).
public struct ObjectDetectorResult: TaskResult, Sendable, Equatable {
    public var detections: [Detection]
    public var timestampInMilliseconds: Int

    public init(detections: [Detection], timestampInMilliseconds: Int) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
