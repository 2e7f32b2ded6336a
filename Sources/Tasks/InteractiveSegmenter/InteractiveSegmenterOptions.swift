/// Options of an ``InteractiveSegmenter``, with MediaPipe's names and its iOS defaults. Image mode only, as
/// MediaPipe's: any other running mode is refused.
public final class InteractiveSegmenterOptions: TaskOptions, TaskOptionsValues {
    var values = ImageSegmenterOptions.Values()

    /// For the surfaces (``InteractiveSegmenter/registration``), which hand a task an image only: the keypoint used
    /// when a call gives no region (`process(image:)`), normalized to the buffer. Not a MediaPipe option.
    package var keypointX: Float {
        get { values.keypoint.x } set { values.keypoint.x = newValue }
    }
    package var keypointY: Float {
        get { values.keypoint.y } set { values.keypoint.y = newValue }
    }

    /// The locale of the display names in the model's metadata ("en" by default); the masks carry no names.
    public var displayNamesLocale: String {
        get { values.displayNamesLocale } set { values.displayNamesLocale = newValue }
    }
    /// Whether results carry one confidence mask per category; on by default.
    public var shouldOutputConfidenceMasks: Bool {
        get { values.shouldOutputConfidenceMasks } set { values.shouldOutputConfidenceMasks = newValue }
    }
    /// Whether results carry the category mask; off by default.
    public var shouldOutputCategoryMask: Bool {
        get { values.shouldOutputCategoryMask } set { values.shouldOutputCategoryMask = newValue }
    }

    override func validateTaskOptions() throws(VisionTaskError) {
        guard runningMode == .image else {
            throw .invalidOption(name: "runningMode", reason: "the interactive segmenter has image mode only, as MediaPipe's")
        }
        try SegmenterOptionCheck.outputs(confidenceMasks: shouldOutputConfidenceMasks, categoryMask: shouldOutputCategoryMask)
    }
}
