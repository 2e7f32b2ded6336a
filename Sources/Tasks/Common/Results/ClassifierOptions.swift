/// Which of a classifier's categories a task reports (MediaPipe's `MPPClassifierOptions`, `ClassifierOptions` in
/// Swift): the gesture recognizer's ``GestureRecognizerOptions/cannedGesturesClassifierOptions`` and
/// ``GestureRecognizerOptions/customGesturesClassifierOptions``.
///
/// A class, as MediaPipe's: `options.cannedGesturesClassifierOptions?.maxResults = 1` sets the options' own instance,
/// and assigning an instance stores a copy. As in MediaPipe, an instance sets every field of the classifier it is
/// given to — its ``scoreThreshold`` (0 by default) replaces a threshold in the model's metadata — while no instance
/// (nil) leaves the classifier at its defaults (the metadata's threshold, all results).
///
/// Thread safety: its fields are behind a lock, so it may be shared between threads (it is `Sendable`).
public final class ClassifierOptions: Sendable, Equatable {
    /// Every field in one value: what a task keeps at creation.
    struct Values: Sendable, Equatable {
        var displayNamesLocale: String?
        var maxResults = -1
        var scoreThreshold: Float = 0
        var categoryAllowlist: [String]?
        var categoryDenylist: [String]?
    }

    private let state: Locked<Values>

    /// The locale of the display names taken from the model's metadata (nil: "en", as in MediaPipe). The gesture
    /// recognizer's gestures carry no display name whatever the locale, as in MediaPipe (see
    /// ``GestureRecognizerOptions``).
    public var displayNamesLocale: String? {
        get { state.withLock { $0.displayNamesLocale } } set { state.withLock { $0.displayNamesLocale = newValue } }
    }
    /// The most categories to return, best first; negative (the default, -1) for all of them. 0 is an error.
    public var maxResults: Int {
        get { state.withLock { $0.maxResults } } set { state.withLock { $0.maxResults = newValue } }
    }
    /// Categories scoring below this are left out (default 0). Any number is taken, as MediaPipe takes it — there is
    /// no range: above the highest score nothing is returned, below 0 everything; NaN is an error.
    public var scoreThreshold: Float {
        get { state.withLock { $0.scoreThreshold } } set { state.withLock { $0.scoreThreshold = newValue } }
    }
    /// Only these category names are returned (nil or empty: no restriction). Cannot be combined with
    /// ``categoryDenylist``.
    public var categoryAllowlist: [String]? {
        get { state.withLock { $0.categoryAllowlist } } set { state.withLock { $0.categoryAllowlist = newValue } }
    }
    /// These category names are never returned. Cannot be combined with ``categoryAllowlist``.
    public var categoryDenylist: [String]? {
        get { state.withLock { $0.categoryDenylist } } set { state.withLock { $0.categoryDenylist = newValue } }
    }

    /// MediaPipe's defaults: every category (`maxResults` -1) scoring at least 0.
    public convenience init() {
        self.init(Values())
    }

    /// Every field at once.
    public convenience init(displayNamesLocale: String? = nil, maxResults: Int = -1, scoreThreshold: Float = 0,
                            categoryAllowlist: [String]? = nil, categoryDenylist: [String]? = nil) {
        self.init(Values(displayNamesLocale: displayNamesLocale, maxResults: maxResults, scoreThreshold: scoreThreshold,
                         categoryAllowlist: categoryAllowlist, categoryDenylist: categoryDenylist))
    }

    init(_ values: Values) {
        state = Locked(values)
    }

    /// A new instance with the same fields (MediaPipe's options are `NSCopying`).
    public func copy() -> ClassifierOptions {
        ClassifierOptions(values)
    }

    /// The fields now, as one value.
    var values: Values { state.withLock { $0 } }

    /// Checks the fields as a task does (for tests); `name` prefixes option names in errors.
    package func validate(as name: String) throws(VisionTaskError) {
        try values.validate(as: name)
    }

    /// What a task given these options keeps of `sorted` (categories best first; for tests).
    package func filter(_ sorted: [Category]) -> [Category] {
        ClassifierSettings(values).filter(sorted)
    }

    /// Equal fields.
    public static func == (lhs: ClassifierOptions, rhs: ClassifierOptions) -> Bool {
        lhs === rhs || lhs.values == rhs.values
    }
}

extension ClassifierOptions.Values {
    /// Checks the options as MediaPipe's classification post-processing does (`SanityCheckClassifierOptions`:
    /// `maxResults` not 0, not both lists), and refuses a NaN threshold, which nothing compares to; `name` prefixes
    /// option names in errors.
    func validate(as name: String) throws(VisionTaskError) {
        if !(categoryAllowlist ?? []).isEmpty, !(categoryDenylist ?? []).isEmpty {
            throw .invalidOption(name: "\(name).categoryAllowlist",
                                 reason: "categoryAllowlist and categoryDenylist are mutually exclusive")
        }
        if maxResults == 0 {
            throw .invalidOption(name: "\(name).maxResults", reason: "0 would return nothing; use a positive value, or -1 for all")
        }
        if scoreThreshold.isNaN {
            throw .invalidOption(name: "\(name).scoreThreshold", reason: "NaN is not a threshold")
        }
    }
}

/// A classifier's options as a task applies them: an instance's fields, or the classifier's defaults without one.
struct ClassifierSettings: Sendable {
    /// nil: the model's own threshold (from its metadata), if any.
    var scoreThreshold: Float?
    var maxResults = -1
    var categoryAllowlist: [String] = []
    var categoryDenylist: [String] = []

    /// The defaults: what MediaPipe's classifier does when no options are given.
    init() {}

    /// `options`' fields, or the defaults when there are none.
    init(_ options: ClassifierOptions.Values?) {
        guard let options else { return }
        scoreThreshold = options.scoreThreshold
        maxResults = options.maxResults
        categoryAllowlist = options.categoryAllowlist ?? []
        categoryDenylist = options.categoryDenylist ?? []
    }

    /// Applies the allow/deny lists, the threshold and the result count to categories sorted best first.
    func filter(_ sorted: [Category], defaultThreshold: Float? = nil) -> [Category] {
        let threshold = scoreThreshold ?? defaultThreshold ?? -.infinity
        let allowed = Set(categoryAllowlist), denied = Set(categoryDenylist)
        var kept = sorted.filter { category in
            guard !(category.score < threshold) else { return false }
            let name = category.categoryName ?? ""
            if !allowed.isEmpty { return allowed.contains(name) }
            return !denied.contains(name)
        }
        if maxResults > 0, kept.count > maxResults { kept.removeLast(kept.count - maxResults) }
        return kept
    }
}
