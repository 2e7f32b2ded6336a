/// Receives a ``FaceDetector``'s live-stream results, in timestamp order, one at a time, on the detector's serial
/// delivery queue.
public protocol FaceDetectorLiveStreamDelegate: AnyObject {
    /// The result of the frame passed to `detectAsync` with `timestampInMilliseconds`, or the error that frame ended in.
    /// Optional, as in MediaPipe (its protocol declares it `@optional`): a class that implements it is called.
    func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                      timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its place. Optional.
    func faceDetector(_ faceDetector: FaceDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension FaceDetectorLiveStreamDelegate {
    /// By default a result is ignored: the method is optional in MediaPipe's protocol.
    public func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                             timestampInMilliseconds: Int, error: (any Error)?) {}

    /// By default a dropped frame is ignored, as MediaPipe does.
    public func faceDetector(_ faceDetector: FaceDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
