/// The masks of one image or frame, at the image's size: the buffer's width and height, as MediaPipe gives them. For
/// an image whose orientation turns it a quarter turn, that is MediaPipe's too: the model sees the upright picture
/// and its masks are stretched to the buffer's width and height without being turned back (MediaPipe's
/// ImageSegmenterGraph resizes them to the input's size and never undoes the rotation): stretch them back to the
/// upright picture's size (the buffer's height × width) to lay them over it.
/// A four-channel model (the hair model) sees the buffer as stored, whatever its orientation.
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
