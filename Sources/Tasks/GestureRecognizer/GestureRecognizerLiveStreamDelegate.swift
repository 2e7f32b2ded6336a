/// Receives a ``GestureRecognizer``'s live-stream results, in timestamp order, one at a time, on the recognizer's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
///
/// Every method is optional, as in MediaPipe, whose protocol declares its one method `@optional`. A result goes to both
/// spellings of the result method — MediaPipe's header's `gestureRecognizer(_:didFinishGestureRecognition:…)` and
/// the guide's `gestureRecognizer(_:didFinishRecognition:…)` — so a class gets it through whichever it implements
/// (implement one: a class implementing both is called twice). As with any protocol extension's defaults, the class
/// that declares the conformance must implement the method itself: an implementation only in a subclass is not called.
public protocol GestureRecognizerLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `recognizeAsync` with `timestampInMilliseconds`, or the error that frame
    /// ended in. MediaPipe's name for it (`MPPGestureRecognizerLiveStreamDelegate`'s `NS_SWIFT_NAME`).
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: (any Error)?)
    /// The same call under the name MediaPipe's gesture guide uses.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `recognizeAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `recognizeAsync` call is answered exactly once. Optional.
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension GestureRecognizerLiveStreamDelegate {
    /// By default a result is ignored under this name (see the protocol: the other spelling may take it).
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
                                  timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a result is ignored under this name (see the protocol: the other spelling may take it).
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
                                  timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a dropped frame is ignored, as MediaPipe does.
    public func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
