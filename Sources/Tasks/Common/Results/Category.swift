/// One class a model scored (MediaPipe's `Category`; `ResultCategory` in its Swift API): the class's index in the
/// model's label map, its score, and its name and localized display name when the model's metadata has them.
public struct Category: Sendable, Equatable, Hashable {
    public var index: Int
    public var score: Float
    public var categoryName: String?
    public var displayName: String?

    public init(index: Int, score: Float, categoryName: String? = nil, displayName: String? = nil) {
        self.index = index; self.score = score; self.categoryName = categoryName; self.displayName = displayName
    }
}

/// MediaPipe's Swift name for ``Category`` (`MPPCategory` is `ResultCategory` in `MediaPipeTasksVision`).
public typealias ResultCategory = Category

/// The categories one classification head produced, best first (MediaPipe's `Classifications`).
public struct Classifications: Sendable, Equatable {
    /// The head's index among the model's output heads.
    public var headIndex: Int
    /// The head's name from the model's metadata, when it has one.
    public var headName: String?
    public var categories: [Category]

    public init(headIndex: Int, headName: String? = nil, categories: [Category]) {
        self.headIndex = headIndex; self.headName = headName; self.categories = categories
    }
}

/// Every head's categories for one input (MediaPipe's `ClassificationResult`).
public struct ClassificationResult: Sendable, Equatable {
    public var classifications: [Classifications]
    public var timestampInMilliseconds: Int

    public init(classifications: [Classifications], timestampInMilliseconds: Int) {
        self.classifications = classifications
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
