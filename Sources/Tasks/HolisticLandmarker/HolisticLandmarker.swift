/// Finds one person's body, face and hands in one pass, as MediaPipe's Holistic Landmarker does: the pose detector
/// and the pose landmark model (33 landmarks, world landmarks, optionally the segmentation mask); the face region
/// derived from the pose's face landmarks, the face detector inside it, the face landmark model (478 landmarks) and
/// optionally 52 blendshape scores; each hand's region derived from the pose's wrist, index and pinky, refined by
/// MediaPipe's hand re-crop model, and the hand landmark model (21 landmarks, world landmarks aligned to the pose's
/// wrist). In video and live-stream modes the pose is tracked and smoothed, the face and hand regions are kept while
/// they move little, and the mask is blended with the last one, as in MediaPipe. A part that is not there (a hand out
/// of the picture, a face turned away) is an empty list, never an error.
///
/// Thread safety: every method may be called from any thread; frames are processed one at a time, and live-stream
/// results arrive on one serial queue, in order.
public final class HolisticLandmarker: Detecting {
    public let runner: VisionTaskRunner<HolisticLandmarkerResult>

    public init(options: HolisticLandmarkerOptions) throws {
        runner = try TaskCore<HolisticLandmarker>(options: options, label: "holistic").handle
    }
}

extension HolisticLandmarker: PipelineTask {
    typealias Pipeline = HolisticLandmarkerPipeline

    func deliver(_ outcome: LiveStreamOutcome<HolisticLandmarkerResult>, at timestamp: Int,
                 to delegate: any HolisticLandmarkerLiveStreamDelegate) {
        guard case .dropped = outcome else {
            return delegate.holisticLandmarker(self, didFinishDetection: outcome.result, timestampInMilliseconds: timestamp,
                                               error: outcome.error)
        }
        delegate.holisticLandmarker(self, didDropFrameAtTimestampInMilliseconds: timestamp)
    }
}
