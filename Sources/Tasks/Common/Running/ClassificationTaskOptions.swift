/// The options MediaPipe's Object Detector and Image Classifier share, flat as its iOS API has them (`baseOptions`,
/// `runningMode` and the classifier fields, with its iOS defaults); each task's options class adds its delegate.
public class ClassificationTaskOptions: TaskOptions, TaskOptionsValues {
    /// The classifier fields, in one value: a copy copies it whole.
    struct Values: Sendable {
        var displayNamesLocale = "en"
        var maxResults = -1
        var scoreThreshold: Float = 0
        var categoryAllowlist: [String] = []
        var categoryDenylist: [String] = []
        /// Labels for a model whose metadata has none (one per class, in class order); not a MediaPipe option —
        /// ML Kit's object detector takes a label file beside such a classifier.
        var labelsForModelsWithout: [String]?
    }

    var values = Values()

    /// The locale of the display names to use, from the model metadata's label files ("en" by default).
    public var displayNamesLocale: String {
        get { values.displayNamesLocale } set { values.displayNamesLocale = newValue }
    }
    /// The most results to return, best first; negative for all of them (0 is an error).
    public var maxResults: Int {
        get { values.maxResults } set { values.maxResults = newValue }
    }
    /// Results scoring below this are not returned. MediaPipe's iOS API always applies it (default 0), so a threshold
    /// in the model's metadata is never used. Any number is taken, as MediaPipe takes it (no range); NaN is an error.
    public var scoreThreshold: Float {
        get { values.scoreThreshold } set { values.scoreThreshold = newValue }
    }
    /// Only these category names (matched to the first label that carries each; unknown names are ignored, and if
    /// none is known every category stays, as in MediaPipe). Exclusive with the denylist.
    public var categoryAllowlist: [String] {
        get { values.categoryAllowlist } set { values.categoryAllowlist = newValue }
    }
    /// Category names never returned. Exclusive with the allowlist.
    public var categoryDenylist: [String] {
        get { values.categoryDenylist } set { values.categoryDenylist = newValue }
    }

    /// Labels to use when the model's metadata carries none (see `Values.labelsForModelsWithout`).
    package var fallbackLabels: [String]? {
        get { values.labelsForModelsWithout } set { values.labelsForModelsWithout = newValue }
    }

    override func validateTaskOptions() throws(VisionTaskError) {
        if !categoryAllowlist.isEmpty, !categoryDenylist.isEmpty {
            throw .invalidOption(name: "categoryAllowlist", reason: "categoryAllowlist and categoryDenylist are mutually exclusive")
        }
        if maxResults == 0 { throw .invalidOption(name: "maxResults", reason: "0 would return nothing; use a positive value, or -1 for all") }
        if scoreThreshold.isNaN { throw .invalidOption(name: "scoreThreshold", reason: "NaN") }
    }
}
