/// The masks of one image for one region of interest, at the image's size (the buffer's width and height).
public struct InteractiveSegmenterResult: TaskResult, Sendable, Equatable {
    /// One float mask per category of the model (the selected object's confidence, and the background's); nil when
    /// the options turn them off.
    public var confidenceMasks: [Mask]?
    /// One byte per pixel: the category the pixel belongs to; nil unless the options ask for it.
    public var categoryMask: Mask?
    /// One score per category; 1 for each when the model has no quality output.
    public var qualityScores: [Float]?
    /// Always 0: the interactive segmenter has image mode only.
    public var timestampInMilliseconds: Int

    public init(confidenceMasks: [Mask]?, categoryMask: Mask?, qualityScores: [Float]?, timestampInMilliseconds: Int) {
        self.confidenceMasks = confidenceMasks
        self.categoryMask = categoryMask
        self.qualityScores = qualityScores
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
