/// Receives an ``ImageSegmenter``'s live-stream results, in timestamp order, one at a time, on the segmenter's serial
/// delivery queue.
public protocol ImageSegmenterLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `segmentAsync` with `timestampInMilliseconds`, or the error that frame ended
    /// in. Optional, as in MediaPipe (its protocol declares it `@optional`): a class that implements it is called.
    func imageSegmenter(_ imageSegmenter: ImageSegmenter, didFinishSegmentation result: ImageSegmenterResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `segmentAsync` was dropped: it waited while another was processed, and a newer one took its
    /// place. Optional.
    func imageSegmenter(_ imageSegmenter: ImageSegmenter, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension ImageSegmenterLiveStreamDelegate {
    /// By default a result is ignored: the method is optional in MediaPipe's protocol.
    public func imageSegmenter(_ imageSegmenter: ImageSegmenter, didFinishSegmentation result: ImageSegmenterResult?,
                               timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a dropped frame is ignored, as MediaPipe does.
    public func imageSegmenter(_ imageSegmenter: ImageSegmenter, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
