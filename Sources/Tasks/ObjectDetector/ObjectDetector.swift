/// Finds objects with a TFLite detection model that ends in the `TFLite_Detection_PostProcess` operator (SSD
/// MobileNet, EfficientDet-Lite), as MediaPipe's Object Detector does: labels from the model's metadata, boxes in
/// pixels of the image.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class ObjectDetector: Sendable {
    private let runner: TaskRunner<DetectorPipeline>
    private let delegate: WeakDelegate<any ObjectDetectorLiveStreamDelegate>

    /// Creates a detector; `options` are copied, so later changes to them do not reach it.
    public init(options: ObjectDetectorOptions) throws {
        let options = options.copy()
        try options.validate()
        delegate = WeakDelegate(options.objectDetectorLiveStreamDelegate)
        let values = options.values
        runner = TaskRunner(try DetectorPipeline(bundle: try values.baseOptions.openBundle(), options: values),
                            runningMode: values.runningMode, label: "object-detector")
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: detects objects in one image.
    public func detect(image: MPImage) throws -> ObjectDetectorResult {
        try runner.process(image: image, method: "detect(image:)")
    }

    /// Video mode: one frame; timestamps must increase.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> ObjectDetectorResult {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "detect(videoFrame:timestampInMilliseconds:)")
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does, and reported
    /// through the delegate's `objectDetector(_:didDropFrameAtTimestampInMilliseconds:)`.
    public func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: "detectAsync(image:timestampInMilliseconds:)") {
            [self] outcome in
            guard let delegate = delegate.value else { return }
            if case .dropped = outcome {
                delegate.objectDetector(self, didDropFrameAtTimestampInMilliseconds: timestamp)
            } else {
                delegate.objectDetector(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
            }
        }
    }

    /// Waits until every accepted live-stream frame has been processed and delivered.
    public func waitUntilIdle() {
        runner.waitUntilIdle()
    }

    /// Finishes the frames already accepted, then refuses further input with ``VisionTaskError/taskClosed``.
    public func close() {
        runner.close()
    }

    /// The detector's class labels (from its metadata), for ML Kit's labels, which carry the class index.
    package var classLabels: [String]? {
        runner.withPipeline { $0.selection.labels }
    }

    /// Stage timings accumulated so far (for benchmarks).
    package var timings: StageTimings {
        runner.withPipeline { $0.runner.timings }
    }
}
