/// Segments images with a TFLite segmentation model (MediaPipe's Image Segmenter): a confidence mask per category
/// and the category mask, at the image's size — MediaPipe's selfie models (square and landscape), its hair model,
/// or any model with MediaPipe's segmenter metadata.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class ImageSegmenter: VisionTask {
    public let runner: VisionTaskRunner<ImageSegmenterResult>
    /// The categories, from the model's metadata, in the order of the confidence masks and of the category mask's
    /// values; empty when the model has no label file.
    public let labels: [String]

    public init(options: ImageSegmenterOptions) throws {
        let core = try TaskCore<ImageSegmenter>(options: options, label: "image-segmenter")
        labels = core.withPipeline { $0.model.labels }
        runner = core.handle
    }

    /// Image mode: segments one image (turned as its orientation says).
    public func segment(image: MPImage) throws -> ImageSegmenterResult { try process(image: image) }

    /// Image mode, the result handed to `completion` before this returns. MediaPipe's form lends the masks for the
    /// block only; ours own their memory, so nothing is copied and they may be kept.
    public func segment(image: MPImage, completion: (ImageSegmenterResult?, (any Error)?) -> Void) {
        do { completion(try process(image: image), nil) } catch { completion(nil, error) }
    }

    /// Video mode: one frame; timestamps must increase.
    public func segment(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> ImageSegmenterResult {
        try process(videoFrame: image, timestampInMilliseconds: timestamp)
    }

    /// Video mode, the result handed to `completion` before this returns (see ``segment(image:completion:)``).
    public func segment(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int,
                        completion: (ImageSegmenterResult?, (any Error)?) -> Void) {
        do { completion(try process(videoFrame: image, timestampInMilliseconds: timestamp), nil) } catch { completion(nil, error) }
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the delegate. One frame is processed
    /// at a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe does, and reported
    /// through the delegate's `imageSegmenter(_:didDropFrameAtTimestampInMilliseconds:)`.
    public func segmentAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try processAsync(image: image, timestampInMilliseconds: timestamp)
    }
}

extension ImageSegmenter: PipelineTask {
    typealias Pipeline = ImageSegmenterPipeline

    func deliver(_ outcome: LiveStreamOutcome<ImageSegmenterResult>, at timestamp: Int, to delegate: any ImageSegmenterLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.imageSegmenter(self, didFinishSegmentation: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.imageSegmenter(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
