/// Finds faces and their 478 landmarks (the face mesh and both irises), as MediaPipe's Face Landmarker does: a face
/// detector on the whole image, a rotated region per face from its eyes, the landmark model on each region, and —
/// in video and live-stream modes — regions carried from one frame's landmarks to the next, with the detector
/// filling in when fewer than `numFaces` are tracked. With `numFaces` 1 those modes smooth the landmarks as MediaPipe
/// does. On request, each face also gets 52 blendshape scores and its transformation from the canonical face model.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class FaceLandmarker: Detecting {
    public let runner: VisionTaskRunner<FaceLandmarkerResult>

    public init(options: FaceLandmarkerOptions) throws {
        runner = try TaskCore<FaceLandmarker>(options: options, label: "face").handle
    }
}

extension FaceLandmarker: PipelineTask {
    typealias Pipeline = FaceLandmarkerPipeline

    func deliver(_ outcome: LiveStreamOutcome<FaceLandmarkerResult>, at timestamp: Int, to delegate: any FaceLandmarkerLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.faceLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.faceLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
