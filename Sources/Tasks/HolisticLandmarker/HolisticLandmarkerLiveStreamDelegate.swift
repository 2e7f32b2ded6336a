/// Receives a ``HolisticLandmarker``'s live-stream results, in timestamp order, one at a time, on the landmarker's
/// serial delivery queue (never on the caller's thread). Hand results to the main queue for UI work.
public protocol HolisticLandmarkerLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `detectAsync` with `timestampInMilliseconds`, or the error that frame ended in.
    /// Required, as in MediaPipe (whose protocol does not mark it `@optional`).
    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its
    /// place. Called in timestamp order with the results; with it, every `detectAsync` call is answered exactly once.
    /// Optional.
    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension HolisticLandmarkerLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
