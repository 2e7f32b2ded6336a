/// Which of a classifier's categories a task reports (MediaPipe's `ClassifierOptions`).
public struct ClassifierOptions: Sendable, Equatable {
    /// The locale of display names taken from the model's metadata ("en" when unset, as in MediaPipe).
    public var displayNamesLocale: String?
    /// The most categories to return, best first; nil or a negative value returns every category above the threshold.
    public var maxResults: Int?
    /// Categories scoring below this are left out; nil uses the model's own threshold from its metadata, if any.
    public var scoreThreshold: Float?
    /// Only these category names are returned (empty: no restriction). Cannot be combined with `categoryDenylist`.
    public var categoryAllowlist: [String]
    /// These category names are never returned. Cannot be combined with `categoryAllowlist`.
    public var categoryDenylist: [String]

    public init(displayNamesLocale: String? = nil, maxResults: Int? = nil, scoreThreshold: Float? = nil,
                categoryAllowlist: [String] = [], categoryDenylist: [String] = []) {
        self.displayNamesLocale = displayNamesLocale
        self.maxResults = maxResults
        self.scoreThreshold = scoreThreshold
        self.categoryAllowlist = categoryAllowlist
        self.categoryDenylist = categoryDenylist
    }

    /// Checks the options as MediaPipe's classifier graph does; `name` prefixes option names in errors.
    package func validate(as name: String) throws(VisionTaskError) {
        if !categoryAllowlist.isEmpty, !categoryDenylist.isEmpty {
            throw .invalidOption(name: "\(name).categoryAllowlist",
                                 reason: "categoryAllowlist and categoryDenylist are mutually exclusive")
        }
        if maxResults == 0 {
            throw .invalidOption(name: "\(name).maxResults", reason: "0 would return nothing; use a positive value or nil for all")
        }
        if let scoreThreshold, !scoreThreshold.isFinite {
            throw .invalidOption(name: "\(name).scoreThreshold", reason: "\(scoreThreshold) is not a number")
        }
    }

    /// Applies the allow/deny lists, the threshold and the result count to categories sorted best first.
    package func filter(_ sorted: [Category], defaultThreshold: Float? = nil) -> [Category] {
        let threshold = scoreThreshold ?? defaultThreshold ?? -.infinity
        let allowed = Set(categoryAllowlist), denied = Set(categoryDenylist)
        var kept = sorted.filter { category in
            guard category.score >= threshold else { return false }
            let name = category.categoryName ?? ""
            if !allowed.isEmpty { return allowed.contains(name) }
            return !denied.contains(name)
        }
        if let maxResults, maxResults > 0, kept.count > maxResults { kept.removeLast(kept.count - maxResults) }
        return kept
    }
}
