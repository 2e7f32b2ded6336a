/// Options of an ``ImageClassifier``, with MediaPipe's names and its iOS defaults (the shared fields are
/// ``ClassificationTaskOptions``'s).
public final class ImageClassifierOptions: ClassificationTaskOptions {
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var imageClassifierLiveStreamDelegate: (any ImageClassifierLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any ImageClassifierLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }
}
