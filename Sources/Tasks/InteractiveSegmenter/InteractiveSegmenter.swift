/// Segments the object a user points at (MediaPipe's Interactive Segmenter, the keypoint-or-scribble form it now ships
/// as legacy): a model that takes the image and, in a fourth channel, the region of interest drawn as MediaPipe draws
/// it — MediaPipe's `magic_touch.tflite`, or any model with MediaPipe's segmenter metadata and a four-channel input.
/// Image mode only, as MediaPipe's.
///
/// Thread safety: every method may be called from any thread; images are processed one at a time.
public final class InteractiveSegmenter: VisionTask {
    public let runner: VisionTaskRunner<InteractiveSegmenterResult>
    /// The categories, from the model's metadata, in the order of the confidence masks; empty without a label file.
    public let labels: [String]
    private let core: TaskCore<InteractiveSegmenter>
    /// Held across setting the pipeline's region and processing the image, so each call's region is its own.
    private let calls = Locked(())

    public init(options: InteractiveSegmenterOptions) throws {
        core = try TaskCore<InteractiveSegmenter>(options: options, label: "interactive-segmenter")
        labels = core.withPipeline { $0.model.labels }
        runner = core.handle
    }

    /// Segments the object `regionOfInterest` points at in `image`.
    public func segment(image: MPImage, regionOfInterest: RegionOfInterest) throws -> InteractiveSegmenterResult {
        for point in regionOfInterest.points where !(point.location.x.isFinite && point.location.y.isFinite) {
            throw VisionTaskError.invalidOption(name: "regionOfInterest", reason: "a point is not finite: \(point.location)")
        }
        return try calls.withLock { (_) throws(VisionTaskError) -> InteractiveSegmenterResult in
            core.withPipeline { $0.region = regionOfInterest }
            defer { core.withPipeline { $0.region = nil } }
            return try process(image: image, method: "segment(image:regionOfInterest:)")
        }
    }

    /// As ``segment(image:regionOfInterest:)``, the result handed to `completion` before this returns. MediaPipe's
    /// form lends the masks for the block only; ours own their memory, so nothing is copied and they may be kept.
    public func segment(image: MPImage, regionOfInterest: RegionOfInterest,
                        completion: (InteractiveSegmenterResult?, (any Error)?) -> Void) {
        do { completion(try segment(image: image, regionOfInterest: regionOfInterest), nil) } catch { completion(nil, error) }
    }
}

/// No live stream: the interactive segmenter has image mode only, so nothing is ever delivered to this.
protocol InteractiveSegmenterNoDelegate: AnyObject {}

extension InteractiveSegmenter: PipelineTask {
    typealias Pipeline = InteractiveSegmenterPipeline
    typealias LiveStreamDelegate = any InteractiveSegmenterNoDelegate

    func deliver(_ outcome: LiveStreamOutcome<InteractiveSegmenterResult>, at timestamp: Int, to delegate: any InteractiveSegmenterNoDelegate) {}
}
