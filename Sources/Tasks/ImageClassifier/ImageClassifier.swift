/// Classifies whole images with a TFLite image classification model (MediaPipe's Image Classifier): uint8 models such
/// as EfficientNet-Lite or a MobileNet, or float ones with normalization metadata; labels and head names from the
/// model's metadata.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class ImageClassifier: VisionTask {
    public let runner: VisionTaskRunner<ImageClassifierResult>
    /// Whether every output head has labels from the model's metadata (ML Kit's object labels need their text).
    package let hasLabels: Bool
    /// The first head's score threshold from the model's metadata, if it has one (ML Kit falls back to it).
    package let metadataScoreThreshold: Float?

    public init(options: ImageClassifierOptions) throws {
        let core = try TaskCore<ImageClassifier>(options: options, label: "image-classifier")
        (hasLabels, metadataScoreThreshold) = core.withPipeline { pipeline in
            (pipeline.heads.allSatisfy { $0.selection.labels != nil }, pipeline.heads.first?.metadataThreshold)
        }
        runner = core.handle
    }

    /// Image mode: classifies one image.
    public func classify(image: MPImage) throws -> ImageClassifierResult { try process(image: image) }

    /// Video mode: one frame; timestamps must increase.
    public func classify(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> ImageClassifierResult {
        try process(videoFrame: image, timestampInMilliseconds: timestamp)
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does, and reported
    /// through the delegate's `imageClassifier(_:didDropFrameAtTimestampInMilliseconds:)`.
    public func classifyAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try processAsync(image: image, timestampInMilliseconds: timestamp)
    }

    /// Image mode, on the part of the image `roi` covers (normalized to the image as stored, as MediaPipe's
    /// `regionOfInterest:`), turned by the image's orientation as the whole image would be.
    public func classify(image: MPImage, regionOfInterest roi: CGRect) throws -> ImageClassifierResult {
        try classify(image: image.with(regionOfInterest: roi))
    }

    /// Video mode, on the part of the frame `roi` covers.
    public func classify(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int, regionOfInterest roi: CGRect) throws -> ImageClassifierResult {
        try classify(videoFrame: image.with(regionOfInterest: roi), timestampInMilliseconds: timestamp)
    }

    /// Live-stream mode, on the part of the frame `roi` covers.
    public func classifyAsync(image: MPImage, timestampInMilliseconds timestamp: Int, regionOfInterest roi: CGRect) throws {
        try classifyAsync(image: image.with(regionOfInterest: roi), timestampInMilliseconds: timestamp)
    }
}

extension ImageClassifier: PipelineTask {
    typealias Pipeline = ImageClassifierPipeline

    func deliver(_ outcome: LiveStreamOutcome<ImageClassifierResult>, at timestamp: Int, to delegate: any ImageClassifierLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.imageClassifier(self, didFinishClassification: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.imageClassifier(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
