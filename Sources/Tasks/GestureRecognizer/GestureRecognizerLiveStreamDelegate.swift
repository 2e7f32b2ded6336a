/// Receives a ``GestureRecognizer``'s live-stream results, in timestamp order, one at a time, on the recognizer's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol GestureRecognizerLiveStreamDelegate: AnyObject {
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `recognizeAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `recognizeAsync` call is answered exactly once. Optional.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension GestureRecognizerLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
