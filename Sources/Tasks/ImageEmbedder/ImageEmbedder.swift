import Foundation

/// Turns images into embeddings — feature vectors to compare with ``cosineSimilarity(embedding1:embedding2:)`` — with a
/// TFLite image embedding model (MediaPipe's Image Embedder): one image input (uint8, or float32 with normalization
/// metadata) and one or more `[1, N]` outputs, float32 or uint8; head names from the model's metadata.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class ImageEmbedder: VisionTask {
    public let runner: VisionTaskRunner<ImageEmbedderResult>

    public init(options: ImageEmbedderOptions) throws {
        runner = try TaskCore<ImageEmbedder>(options: options, label: "image-embedder").handle
    }

    /// Image mode: embeds one image.
    public func embed(image: MPImage) throws -> ImageEmbedderResult { try process(image: image) }

    /// Video mode: one frame; timestamps must increase.
    public func embed(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> ImageEmbedderResult {
        try process(videoFrame: image, timestampInMilliseconds: timestamp)
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed at
    /// a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does, and reported
    /// through the delegate's `imageEmbedder(_:didDropFrameAtTimestampInMilliseconds:)`.
    public func embedAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try processAsync(image: image, timestampInMilliseconds: timestamp)
    }

    /// Image mode, on the part of the image `roi` covers (normalized to the image as stored, as MediaPipe's
    /// `regionOfInterest:`), turned by the image's orientation as the whole image would be.
    public func embed(image: MPImage, regionOfInterest roi: CGRect) throws -> ImageEmbedderResult {
        try embed(image: image.with(regionOfInterest: roi))
    }

    /// Video mode, on the part of the frame `roi` covers.
    public func embed(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int, regionOfInterest roi: CGRect) throws -> ImageEmbedderResult {
        try embed(videoFrame: image.with(regionOfInterest: roi), timestampInMilliseconds: timestamp)
    }

    /// Live-stream mode, on the part of the frame `roi` covers.
    public func embedAsync(image: MPImage, timestampInMilliseconds timestamp: Int, regionOfInterest roi: CGRect) throws {
        try embedAsync(image: image.with(regionOfInterest: roi), timestampInMilliseconds: timestamp)
    }

    /// The cosine similarity of two embeddings, as MediaPipe computes it (in double; see ``Embedding``): both float or
    /// both quantized, of the same size. An `NSNumber` holding a `Double`, as MediaPipe's API returns it
    /// (`.doubleValue`). Throws ``VisionTaskError/invalidOption(name:reason:)`` for embeddings of different sizes or
    /// kinds, as MediaPipe does, and for empty ones or one with a zero (or non-finite) norm, as MediaPipe's C++ does.
    public static func cosineSimilarity(embedding1: Embedding, embedding2: Embedding) throws -> NSNumber {
        NSNumber(value: try CosineSimilarity.between(embedding1, embedding2))
    }
}

extension ImageEmbedder: PipelineTask {
    typealias Pipeline = ImageEmbedderPipeline

    func deliver(_ outcome: LiveStreamOutcome<ImageEmbedderResult>, at timestamp: Int, to delegate: any ImageEmbedderLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.imageEmbedder(self, didFinishEmbedding: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.imageEmbedder(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
