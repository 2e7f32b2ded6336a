/// The categories of an image, one ``Classifications`` per model output head, best first.
public struct ImageClassifierResult: TaskResult, Sendable, Equatable {
    public var classificationResult: ClassificationResult
    public var timestampInMilliseconds: Int

    public init(classificationResult: ClassificationResult, timestampInMilliseconds: Int) {
        self.classificationResult = classificationResult
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
