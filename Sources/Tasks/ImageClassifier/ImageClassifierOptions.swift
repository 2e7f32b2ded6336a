/// Options of an ``ImageClassifier``, with MediaPipe's names and its iOS defaults (the shared fields are
/// ``ClassificationTaskOptions``'s).
public final class ImageClassifierOptions: ClassificationTaskOptions {
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var imageClassifierLiveStreamDelegate: (any ImageClassifierLiveStreamDelegate)?

    public override init() {}

    /// A copy with the same options and delegate.
    public func copy() -> ImageClassifierOptions {
        let copy = ImageClassifierOptions()
        copy.values = values
        copy.imageClassifierLiveStreamDelegate = imageClassifierLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try validate(delegateIsSet: imageClassifierLiveStreamDelegate != nil, delegateName: "imageClassifierLiveStreamDelegate")
    }
}

/// Receives an ``ImageClassifier``'s live-stream results, in timestamp order, one at a time, on the classifier's serial
/// delivery queue.
public protocol ImageClassifierLiveStreamDelegate: AnyObject {
    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `classifyAsync` was dropped: it waited while another was processed, and a newer one took its place. Optional.
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
