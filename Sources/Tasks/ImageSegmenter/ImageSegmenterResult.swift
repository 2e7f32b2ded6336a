/// The masks of one image or frame, at the image's size (the buffer's width and height).
public struct ImageSegmenterResult: TaskResult, Sendable, Equatable {
    /// One float mask per category, in the order of ``ImageSegmenter/labels``: each pixel's confidence, usually in
    /// [0, 1]; nil when the options turn them off.
    public var confidenceMasks: [Mask]?
    /// One byte per pixel: the category the pixel belongs to. For a one-category model (the selfie models), MediaPipe's
    /// convention: 0 on the category (confidence above 0.5), 255 elsewhere. Nil unless the options ask for it.
    public var categoryMask: Mask?
    /// One score per category in [0, 1]; 1 for each when the model has no quality output (every model MediaPipe ships).
    public var qualityScores: [Float]?
    public var timestampInMilliseconds: Int

    public init(confidenceMasks: [Mask]?, categoryMask: Mask?, qualityScores: [Float]?, timestampInMilliseconds: Int) {
        self.confidenceMasks = confidenceMasks
        self.categoryMask = categoryMask
        self.qualityScores = qualityScores
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
