/// Options of an ``ImageClassifier``, with MediaPipe's names and its iOS defaults.
public final class ImageClassifierOptions {
    /// Every option but the delegate, in one value: ``copy()`` copies it whole.
    struct Values: Sendable {
        var baseOptions = BaseOptions()
        var runningMode: RunningMode = .image
        var displayNamesLocale = "en"
        var maxResults = -1
        var scoreThreshold: Float = 0
        var categoryAllowlist: [String] = []
        var categoryDenylist: [String] = []
    }

    var values = Values()

    public var baseOptions: BaseOptions {
        get { values.baseOptions } set { values.baseOptions = newValue }
    }
    public var runningMode: RunningMode {
        get { values.runningMode } set { values.runningMode = newValue }
    }
    /// The locale of the display names to use, from the model metadata's label files ("en" by default).
    public var displayNamesLocale: String {
        get { values.displayNamesLocale } set { values.displayNamesLocale = newValue }
    }
    /// The most categories to return, best first; negative for all of them (0 is an error).
    public var maxResults: Int {
        get { values.maxResults } set { values.maxResults = newValue }
    }
    /// Categories scoring below this are not returned. MediaPipe's iOS API always applies it (default 0), so a
    /// threshold in the model's metadata is never used.
    public var scoreThreshold: Float {
        get { values.scoreThreshold } set { values.scoreThreshold = newValue }
    }
    /// Only these category names (matched to the first label that carries each; unknown names are ignored, and if none
    /// is known every category stays, as in MediaPipe). Exclusive with the denylist.
    public var categoryAllowlist: [String] {
        get { values.categoryAllowlist } set { values.categoryAllowlist = newValue }
    }
    /// Category names never returned. Exclusive with the allowlist.
    public var categoryDenylist: [String] {
        get { values.categoryDenylist } set { values.categoryDenylist = newValue }
    }
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var imageClassifierLiveStreamDelegate: (any ImageClassifierLiveStreamDelegate)?

    public init() {}

    /// A copy with the same options and delegate.
    public func copy() -> ImageClassifierOptions {
        let copy = ImageClassifierOptions()
        copy.values = values
        copy.imageClassifierLiveStreamDelegate = imageClassifierLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try baseOptions.validate()
        try OptionCheck.categoryLists(allowlist: categoryAllowlist, denylist: categoryDenylist, maxResults: maxResults,
                                      scoreThreshold: scoreThreshold)
        try OptionCheck.liveStreamDelegate(isSet: imageClassifierLiveStreamDelegate != nil, runningMode: runningMode,
                                           "imageClassifierLiveStreamDelegate")
    }
}

/// Receives an ``ImageClassifier``'s live-stream results, in timestamp order, one at a time, on the classifier's serial
/// delivery queue.
public protocol ImageClassifierLiveStreamDelegate: AnyObject {
    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `classifyAsync` while the previous one was still being processed was dropped. Optional.
    func imageClassifier(_ imageClassifier: ImageClassifier, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension ImageClassifierLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func imageClassifier(_ imageClassifier: ImageClassifier, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}

/// The categories of an image, one ``Classifications`` per model output head, best first.
public struct ImageClassifierResult: Sendable, Equatable {
    public var classificationResult: ClassificationResult
    public var timestampInMilliseconds: Int

    public init(classificationResult: ClassificationResult, timestampInMilliseconds: Int) {
        self.classificationResult = classificationResult
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
