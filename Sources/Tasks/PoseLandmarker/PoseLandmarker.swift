/// Finds people and their 33 body landmarks, as MediaPipe's Pose Landmarker does: a pose detector on the whole
/// image, a rotated square region per pose, the landmark model on each region, and — in video and live-stream
/// modes — regions carried from one frame's landmarks to the next, with the detector filling in when fewer than
/// `numPoses` are tracked. With `numPoses` 1 those modes smooth the landmarks as MediaPipe does.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class PoseLandmarker: Detecting {
    public let runner: VisionTaskRunner<PoseLandmarkerResult>

    public init(options: PoseLandmarkerOptions) throws {
        runner = try TaskCore<PoseLandmarker>(options: options, label: "pose").handle
    }
}

extension PoseLandmarker: PipelineTask {
    typealias Pipeline = PoseLandmarkerPipeline

    func deliver(_ outcome: LiveStreamOutcome<PoseLandmarkerResult>, at timestamp: Int, to delegate: any PoseLandmarkerLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.poseLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.poseLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
