/// Finds objects with a TFLite detection model, as MediaPipe's Object Detector does: one that ends in the
/// `TFLite_Detection_PostProcess` operator (SSD MobileNet), or one with raw box and score outputs that MediaPipe's
/// detector metadata decodes (EfficientDet-Lite, MediaPipe's default); labels from the model's metadata, boxes in
/// pixels of the image.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class ObjectDetector: Detecting {
    public let runner: VisionTaskRunner<ObjectDetectorResult>
    /// The detector's class labels (from its metadata), for ML Kit's labels, which carry the class index.
    package let classLabels: [String]?

    public init(options: ObjectDetectorOptions) throws {
        let core = try TaskCore<ObjectDetector>(options: options, label: "object-detector")
        classLabels = core.withPipeline { $0.selection.labels }
        runner = core.handle
    }
}

extension ObjectDetector: PipelineTask {
    typealias Pipeline = ObjectDetectorPipeline

    func deliver(_ outcome: LiveStreamOutcome<ObjectDetectorResult>, at timestamp: Int, to delegate: any ObjectDetectorLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.objectDetector(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.objectDetector(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
