/// Finds hands and their 21 landmarks, as MediaPipe's Hand Landmarker does: a palm detector on the whole image, a
/// rotated region per palm grown to take in the fingers, the landmark model on each region (landmarks in image and
/// world coordinates, handedness), and — in video and live-stream modes — regions carried from one frame's landmarks
/// to the next, with the detector filling in when fewer than `numHands` are tracked.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class HandLandmarker: Detecting {
    public let runner: VisionTaskRunner<HandLandmarkerResult>

    public init(options: HandLandmarkerOptions) throws {
        runner = try TaskCore<HandLandmarker>(options: options, label: "hand").handle
    }
}

extension HandLandmarker: PipelineTask {
    typealias Pipeline = HandLandmarkerPipeline

    func deliver(_ outcome: LiveStreamOutcome<HandLandmarkerResult>, at timestamp: Int, to delegate: any HandLandmarkerLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.handLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp, error: outcome.error)
        }
        delegate.handLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
