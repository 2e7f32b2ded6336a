/// A label of an object (ML Kit's `ObjectLabel`): the class name, the classifier's confidence and the class index.
public final class ObjectLabel: Sendable, CustomStringConvertible {
    public let text: String
    public let confidence: Float
    public let index: Int

    init(text: String, confidence: Float, index: Int) {
        self.text = text
        self.confidence = confidence
        self.index = index
    }

    public var description: String { "\(text) \(confidence) #\(index)" }
}
