/// Options of an ``ImageSegmenter``, with MediaPipe's names and its iOS defaults.
public final class ImageSegmenterOptions: TaskOptions, TaskOptionsValues {
    /// The segmenter's fields, in one value: a copy copies it whole.
    struct Values: Sendable {
        var displayNamesLocale = "en"
        var shouldOutputConfidenceMasks = true
        var shouldOutputCategoryMask = false
        /// The interactive segmenter's region for the surfaces, which give none (``InteractiveSegmenterOptions``).
        var keypoint = SIMD2<Float>(0.5, 0.5)
    }

    var values = Values()

    /// The locale of the display names in the model's metadata ("en" by default). The masks carry no names, so it
    /// changes nothing in the results; a broken display-name file of that locale is refused, as MediaPipe refuses it.
    public var displayNamesLocale: String {
        get { values.displayNamesLocale } set { values.displayNamesLocale = newValue }
    }
    /// Whether results carry one confidence mask per category (``ImageSegmenterResult/confidenceMasks``); on by default.
    public var shouldOutputConfidenceMasks: Bool {
        get { values.shouldOutputConfidenceMasks } set { values.shouldOutputConfidenceMasks = newValue }
    }
    /// Whether results carry the category mask (``ImageSegmenterResult/categoryMask``); off by default.
    public var shouldOutputCategoryMask: Bool {
        get { values.shouldOutputCategoryMask } set { values.shouldOutputCategoryMask = newValue }
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var imageSegmenterLiveStreamDelegate: (any ImageSegmenterLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any ImageSegmenterLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }

    override func validateTaskOptions() throws(VisionTaskError) {
        try SegmenterOptionCheck.outputs(confidenceMasks: shouldOutputConfidenceMasks, categoryMask: shouldOutputCategoryMask)
    }
}

/// The check both segmenters' options share.
enum SegmenterOptionCheck {
    /// MediaPipe's graph refuses to be built with neither output (`At least one of CONFIDENCE_MASK, CONFIDENCE_MASKS
    /// and CATEGORY_MASK must be connected`).
    static func outputs(confidenceMasks: Bool, categoryMask: Bool) throws(VisionTaskError) {
        guard confidenceMasks || categoryMask else {
            throw .invalidOption(name: "shouldOutputConfidenceMasks",
                                 reason: "at least one of shouldOutputConfidenceMasks and shouldOutputCategoryMask must be true")
        }
    }
}
