import VisionTasksModelFormat

/// Finds faces and their 478 landmarks (the face mesh and both irises), as MediaPipe's Face Landmarker does: a face
/// detector on the whole image, a rotated region per face from its eyes, the landmark model on each region, and —
/// in video and live-stream modes — regions carried from one frame's landmarks to the next, with the detector
/// filling in when fewer than `numFaces` are tracked. With `numFaces` 1 those modes smooth the landmarks as MediaPipe
/// does. On request, each face also gets 52 blendshape scores and its transformation from the canonical face model.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class FaceLandmarker: Sendable {
    private let runner: TaskRunner<FacePipeline>
    private let delegate: WeakDelegate<any FaceLandmarkerLiveStreamDelegate>

    /// Creates a landmarker; `options` are copied, so later changes to them do not reach it.
    public init(options: FaceLandmarkerOptions) throws {
        let options = options.copy()
        try options.validate()
        delegate = WeakDelegate(options.faceLandmarkerLiveStreamDelegate)
        let values = options.values
        let bundle = try values.baseOptions.openBundle()
        runner = TaskRunner(try FacePipeline(bundle: bundle, options: values), runningMode: values.runningMode, label: "face")
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: detects faces in one image.
    public func detect(image: MPImage) throws -> FaceLandmarkerResult {
        try runner.process(image: image, method: "detect(image:)")
    }

    /// Video mode: one frame; timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> FaceLandmarkerResult {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "detect(videoFrame:timestampInMilliseconds:)")
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does — and, unlike
    /// MediaPipe, said so through the delegate's `faceLandmarker(_:didDropFrameAtTimestampInMilliseconds:)`, so every
    /// call is answered once.
    public func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: "detectAsync(image:timestampInMilliseconds:)") {
            [self] outcome in
            guard let delegate = delegate.value else { return }
            if case .dropped = outcome {
                delegate.faceLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
            } else {
                delegate.faceLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
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
    package var timings: FaceStageTimings {
        runner.withPipeline { $0.timings }
    }
}
