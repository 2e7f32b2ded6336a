/// Options of an ``ObjectDetector``, with MediaPipe's names and its iOS defaults (the shared fields are
/// ``ClassificationTaskOptions``'s).
public final class ObjectDetectorOptions: ClassificationTaskOptions {
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var objectDetectorLiveStreamDelegate: (any ObjectDetectorLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any ObjectDetectorLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }
}
