/// Options of an ``ObjectDetector``, with MediaPipe's names and its iOS defaults (the shared fields are
/// ``ClassificationTaskOptions``'s).
public final class ObjectDetectorOptions: ClassificationTaskOptions {
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var objectDetectorLiveStreamDelegate: (any ObjectDetectorLiveStreamDelegate)?

    public override init() {}

    /// A copy with the same options and delegate.
    public func copy() -> ObjectDetectorOptions {
        let copy = ObjectDetectorOptions()
        copy.values = values
        copy.objectDetectorLiveStreamDelegate = objectDetectorLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try validate(delegateIsSet: objectDetectorLiveStreamDelegate != nil, delegateName: "objectDetectorLiveStreamDelegate")
    }
}

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

/// The objects found, best first: a pixel box and one category each (index −1 and the label as its name when the
/// model's metadata labels the class, as MediaPipe reports them).
public struct ObjectDetectorResult: Sendable, Equatable {
    public var detections: [Detection]
    public var timestampInMilliseconds: Int

    public init(detections: [Detection], timestampInMilliseconds: Int) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
