/// Receives a ``HandLandmarker``'s live-stream results, in timestamp order, one at a time, on the landmarker's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `detectAsync` with `timestampInMilliseconds`, or the error that frame ended in.
    /// Optional, as in MediaPipe (its protocol declares it `@optional`): a class that implements it is called.
    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its place. Called in
    /// timestamp order with the results; with it, every `detectAsync` call is answered exactly once. Optional.
    func handLandmarker(_ handLandmarker: HandLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension HandLandmarkerLiveStreamDelegate {
    /// By default a result is ignored: the method is optional in MediaPipe's protocol.
    public func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                               timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a dropped frame is ignored, as MediaPipe does.
    public func handLandmarker(_ handLandmarker: HandLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
