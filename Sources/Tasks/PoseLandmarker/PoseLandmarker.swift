import VisionTasksModelFormat

/// Finds people and their 33 body landmarks, as MediaPipe's Pose Landmarker does: a pose detector on the whole
/// image, a rotated square region per pose, the landmark model on each region, and — in video and live-stream
/// modes — regions carried from one frame's landmarks to the next, with the detector filling in when fewer than
/// `numPoses` are tracked. With `numPoses` 1 those modes smooth the landmarks as MediaPipe does.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class PoseLandmarker: Sendable {
    private let runner: TaskRunner<PosePipeline>
    private let delegate: WeakDelegate<any PoseLandmarkerLiveStreamDelegate>

    /// Creates a landmarker; `options` are copied, so later changes to them do not reach it.
    public init(options: PoseLandmarkerOptions) throws {
        let options = options.copy()
        try options.validate()
        delegate = WeakDelegate(options.poseLandmarkerLiveStreamDelegate)
        let values = options.values
        let bundle = try values.baseOptions.openBundle()
        runner = TaskRunner(try PosePipeline(bundle: bundle, options: values), runningMode: values.runningMode, label: "pose")
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: detects poses in one image.
    public func detect(image: MPImage) throws -> PoseLandmarkerResult {
        try runner.process(image: image, method: "detect(image:)")
    }

    /// Video mode: one frame; timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> PoseLandmarkerResult {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "detect(videoFrame:timestampInMilliseconds:)")
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does — and, unlike
    /// MediaPipe, said so through the delegate's `poseLandmarker(_:didDropFrameAtTimestampInMilliseconds:)`, so every
    /// call is answered once.
    public func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: "detectAsync(image:timestampInMilliseconds:)") {
            [self] outcome in
            guard let delegate = delegate.value else { return }
            if case .dropped = outcome {
                delegate.poseLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
            } else {
                delegate.poseLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
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
    package var timings: (detector: StageTimings, landmarks: StageTimings, masks: StageTimings) {
        runner.withPipeline { $0.timings }
    }
}
