import VisionTasksModelFormat

/// Recognizes hand gestures, as MediaPipe's Gesture Recognizer does: the Hand Landmarker's pipeline (palm detector,
/// landmark model, tracking), then per hand a gesture embedding from its landmarks, world landmarks and handedness,
/// scored by the canned gesture classifier — or, when the bundle carries one, by a custom classifier made with
/// MediaPipe Model Maker, whose gestures take precedence.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class GestureRecognizer: Sendable {
    private let runner: TaskRunner<GesturePipeline>
    private let delegate: WeakDelegate<any GestureRecognizerLiveStreamDelegate>

    /// Creates a landmarker; `options` are copied, so later changes to them do not reach it.
    public init(options: GestureRecognizerOptions) throws {
        let options = options.copy()
        try options.validate()
        delegate = WeakDelegate(options.gestureRecognizerLiveStreamDelegate)
        let values = options.values
        let bundle = try values.baseOptions.openBundle()
        runner = TaskRunner(try GesturePipeline(bundle: bundle, options: values),
                            runningMode: values.runningMode, label: "gesture")
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: recognizes the gestures of the hands in one image.
    public func recognize(image: MPImage) throws -> GestureRecognizerResult {
        try runner.process(image: image, method: "recognize(image:)")
    }

    /// Video mode: one frame; timestamps must increase.
    public func recognize(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> GestureRecognizerResult {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "recognize(videoFrame:timestampInMilliseconds:)")
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does — and, unlike
    /// MediaPipe, said so through the delegate's `gestureRecognizer(_:didDropFrameAtTimestampInMilliseconds:)`, so
    /// every call is answered once.
    public func recognizeAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: "recognizeAsync(image:timestampInMilliseconds:)") {
            [self] outcome in
            guard let delegate = delegate.value else { return }
            if case .dropped = outcome {
                delegate.gestureRecognizer(self, didDropFrameAtTimestampInMilliseconds: timestamp)
            } else {
                delegate.gestureRecognizer(self, didFinishRecognition: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
            }
        }
    }

    /// Waits until every accepted live-stream frame has been processed and delivered. From inside a delegate
    /// callback it waits for processing only (the callback itself holds up the deliveries behind it).
    public func waitUntilIdle() {
        runner.waitUntilIdle()
    }

    /// Finishes the frames already accepted, then refuses further input with ``VisionTaskError/taskClosed``.
    public func close() {
        runner.close()
    }

    /// Stage timings accumulated so far (for benchmarks).
    package var timings: GestureStageTimings {
        runner.withPipeline { $0.timings }
    }
}
