import VisionTasksModelFormat

/// Finds hands and their 21 landmarks, as MediaPipe's Hand Landmarker does: a palm detector on the whole image, a
/// rotated region per palm grown to take in the fingers, the landmark model on each region (landmarks in image and
/// world coordinates, handedness), and — in video and live-stream modes — regions carried from one frame's landmarks
/// to the next, with the detector filling in when fewer than `numHands` are tracked.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class HandLandmarker: Sendable {
    private let runner: TaskRunner<HandPipeline>
    private let delegate: WeakDelegate<any HandLandmarkerLiveStreamDelegate>

    /// Creates a landmarker; `options` are copied, so later changes to them do not reach it.
    public init(options: HandLandmarkerOptions) throws {
        let options = options.copy()
        try options.validate()
        delegate = WeakDelegate(options.handLandmarkerLiveStreamDelegate)
        let values = options.values
        let bundle = try values.baseOptions.openBundle()
        runner = TaskRunner(try HandPipeline(bundle: bundle, options: values.hand, baseOptions: values.baseOptions, runningMode: values.runningMode),
                            runningMode: values.runningMode, label: "hand")
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: detects hands in one image.
    public func detect(image: MPImage) throws -> HandLandmarkerResult {
        try runner.process(image: image, method: "detect(image:)")
    }

    /// Video mode: one frame; timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> HandLandmarkerResult {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "detect(videoFrame:timestampInMilliseconds:)")
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does — and, unlike
    /// MediaPipe, said so through the delegate's `handLandmarker(_:didDropFrameAtTimestampInMilliseconds:)`, so every
    /// call is answered once.
    public func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: "detectAsync(image:timestampInMilliseconds:)") {
            [self] outcome in
            guard let delegate = delegate.value else { return }
            if case .dropped = outcome {
                delegate.handLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
            } else {
                delegate.handLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
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
    package var timings: HandStageTimings {
        runner.withPipeline { $0.timings }
    }
}
