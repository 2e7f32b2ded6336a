/// Receives an ``ObjectDetector``'s live-stream results, in timestamp order, one at a time, on the detector's serial
/// delivery queue.
public protocol ObjectDetectorLiveStreamDelegate: AnyObject {
    func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` was dropped: it waited while another was processed, and a newer one took its place. Optional.
    func objectDetector(_ objectDetector: ObjectDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension ObjectDetectorLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func objectDetector(_ objectDetector: ObjectDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}
