/// Receives an ``ImageClassifier``'s live-stream results, in timestamp order, one at a time, on the classifier's serial
/// delivery queue.
public protocol ImageClassifierLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `classifyAsync` with `timestampInMilliseconds`, or the error that frame ended in.
    /// Optional, as in MediaPipe (its protocol declares it `@optional`): a class that implements it is called.
    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `classifyAsync` was dropped: it waited while another was processed, and a newer one took its place. Optional.
    func imageClassifier(_ imageClassifier: ImageClassifier, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension ImageClassifierLiveStreamDelegate {
    /// By default a result is ignored: the method is optional in MediaPipe's protocol.
    public func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                                timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a dropped frame is ignored, as MediaPipe does.
    public func imageClassifier(_ imageClassifier: ImageClassifier, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
