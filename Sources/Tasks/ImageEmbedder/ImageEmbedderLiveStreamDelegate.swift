/// Receives an ``ImageEmbedder``'s live-stream results, in timestamp order, one at a time, on the embedder's serial
/// delivery queue.
public protocol ImageEmbedderLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `embedAsync` with `timestampInMilliseconds`, or the error that frame ended in.
    /// Optional, as in MediaPipe (its protocol declares it `@optional`): a class that implements it is called.
    func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                       timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `embedAsync` was dropped: it waited while another was processed, and a newer one took its
    /// place. Optional (not in MediaPipe's protocol, which drops frames silently).
    func imageEmbedder(_ imageEmbedder: ImageEmbedder, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension ImageEmbedderLiveStreamDelegate {
    /// By default a result is ignored: the method is optional in MediaPipe's protocol.
    public func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                              timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a dropped frame is ignored, as MediaPipe does.
    public func imageEmbedder(_ imageEmbedder: ImageEmbedder, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
