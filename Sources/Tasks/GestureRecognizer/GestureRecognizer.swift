/// Recognizes hand gestures, as MediaPipe's Gesture Recognizer does: the Hand Landmarker's pipeline (palm detector,
/// landmark model, tracking), then per hand a gesture embedding from its landmarks, world landmarks and handedness,
/// scored by the canned gesture classifier — or, when the bundle carries one, by a custom classifier made with
/// MediaPipe Model Maker, whose gestures take precedence.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class GestureRecognizer: VisionTask {
    public let runner: VisionTaskRunner<GestureRecognizerResult>

    public init(options: GestureRecognizerOptions) throws {
        runner = try TaskCore<GestureRecognizer>(options: options, label: "gesture").handle
    }

    /// Image mode: recognizes the hand gestures in one image.
    public func recognize(image: MPImage) throws -> GestureRecognizerResult { try process(image: image) }

    /// Video mode: one frame; timestamps must increase.
    public func recognize(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> GestureRecognizerResult {
        try process(videoFrame: image, timestampInMilliseconds: timestamp)
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does, and reported
    /// through the delegate's `gestureRecognizer(_:didDropFrameAtTimestampInMilliseconds:)`.
    public func recognizeAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try processAsync(image: image, timestampInMilliseconds: timestamp)
    }
}

extension GestureRecognizer: PipelineTask {
    typealias Pipeline = GestureRecognizerPipeline

    func deliver(_ outcome: LiveStreamOutcome<GestureRecognizerResult>, at timestamp: Int, to delegate: any GestureRecognizerLiveStreamDelegate) {
        guard case .dropped = outcome else {
            // Both spellings of the optional result method: a delegate implements one, the other is the default no-op.
            delegate.gestureRecognizer(self, didFinishGestureRecognition: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
            delegate.gestureRecognizer(self, didFinishRecognition: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
            return
        }
        delegate.gestureRecognizer(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
