/// Finds faces with MediaPipe's BlazeFace detectors (MediaPipe's Face Detector): the short-range model
/// (`face_detection_short_range.tflite`, faces within about 2 m) or the full-range one
/// (`face_detection_full_range_sparse.tflite`, up to about 5 m); a box, a score and six keypoints per face.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class FaceDetector: Detecting {
    public let runner: VisionTaskRunner<FaceDetectorResult>

    public init(options: FaceDetectorOptions) throws {
        runner = try TaskCore<FaceDetector>(options: options, label: "face-detector").handle
    }
}

extension FaceDetector: PipelineTask {
    typealias Pipeline = FaceDetectorPipeline

    func deliver(_ outcome: LiveStreamOutcome<FaceDetectorResult>, at timestamp: Int, to delegate: any FaceDetectorLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.faceDetector(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.faceDetector(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
