/// Classifies whole images with a TFLite image classification model (MediaPipe's Image Classifier): uint8 models such
/// as EfficientNet-Lite or a MobileNet, or float ones with normalization metadata; labels and head names from the
/// model's metadata.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class ImageClassifier: Sendable {
    private let runner: TaskRunner<ClassifierPipeline>
    private let delegate: WeakDelegate<any ImageClassifierLiveStreamDelegate>

    /// Creates a classifier; `options` are copied, so later changes to them do not reach it.
    public init(options: ImageClassifierOptions) throws {
        let options = options.copy()
        try options.validate()
        delegate = WeakDelegate(options.imageClassifierLiveStreamDelegate)
        let values = options.values
        runner = TaskRunner(try ClassifierPipeline(bundle: try values.baseOptions.openBundle(), options: values),
                            runningMode: values.runningMode, label: "image-classifier")
    }

    /// Image mode with default options.
    public convenience init(modelPath: String) throws {
        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Image mode: classifies one image.
    public func classify(image: MPImage) throws -> ImageClassifierResult {
        try runner.process(image: image, method: "classify(image:)")
    }

    /// Video mode: one frame; timestamps must increase.
    public func classify(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> ImageClassifierResult {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "classify(videoFrame:timestampInMilliseconds:)")
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does, and reported
    /// through the delegate's `imageClassifier(_:didDropFrameAtTimestampInMilliseconds:)`.
    public func classifyAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: "classifyAsync(image:timestampInMilliseconds:)") {
            [self] outcome in
            guard let delegate = delegate.value else { return }
            if case .dropped = outcome {
                delegate.imageClassifier(self, didDropFrameAtTimestampInMilliseconds: timestamp)
            } else {
                delegate.imageClassifier(self, didFinishClassification: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
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

    /// Whether every output head has labels from the model's metadata (ML Kit's object labels need their text).
    package var hasLabels: Bool {
        runner.withPipeline { $0.heads.allSatisfy { $0.selection.labels != nil } }
    }

    /// The first head's score threshold from the model's metadata, if it has one (ML Kit falls back to it).
    package var metadataScoreThreshold: Float? {
        runner.withPipeline { $0.heads.first?.metadataThreshold }
    }

    /// Stage timings accumulated so far (for benchmarks).
    package var timings: StageTimings {
        runner.withPipeline { $0.runner.timings }
    }
}
