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
