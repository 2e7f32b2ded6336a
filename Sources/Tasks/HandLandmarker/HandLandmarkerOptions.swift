/// Options of a ``HandLandmarker``, with MediaPipe's names and defaults (``HandTaskOptions`` has the hand-finding
/// ones, ``TaskOptions`` the shared ones).
public final class HandLandmarkerOptions: HandTaskOptions, TaskOptionsValues {
    var values: HandOptions {
        get { hand } set { hand = newValue }
    }

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any HandLandmarkerLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }
}
