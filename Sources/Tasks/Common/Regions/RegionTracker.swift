/// A region a landmark model runs on, with the identity of the instance (pose, face, hand) it follows.
struct TrackedRegion: Sendable, Equatable {
    /// Stays the same while the instance is tracked from frame to frame, or re-detected over its own region; a new
    /// instance, or one lost and found again, gets a new one.
    var instance: Int
    var rect: NormalizedRect
}

/// MediaPipe's detect-or-track loop for landmark tasks in video and live-stream modes: the regions derived from the
/// last frame's landmarks are used again, and the detector runs only while fewer than `maximumCount` are tracked.
/// How a new detection meets the tracked regions depends on the task (``Association``). In image mode every call
/// detects and nothing is kept.
struct RegionTracker: Sendable {
    /// How detections join the tracked regions when both overlap by more than `overlap` IoU.
    enum Association: Sendable {
        /// The detection replaces every tracked region it overlaps and takes over the first one's instance (pose and
        /// face: `AssociationNormRectCalculator`).
        case detectionReplacesTracked
        /// The tracked region stays and the detection is dropped (hands: `HandAssociationCalculator`).
        case trackedKeepsItsPlace
        /// As `trackedKeepsItsPlace`, and while tracking, after the landmark stage, an estimate is dropped when the
        /// region its landmarks give overlaps an earlier one's by more than the same IoU: the detector found an
        /// instance that is already tracked, but its box and the tracked region were shaped too differently to
        /// overlap enough (a face detection's box is not squared, the region from the landmarks is). Tracked
        /// instances come first, so they keep their place. (Ours, for ``LandmarkSmoothing/always``; MediaPipe has
        /// no such mode.)
        case trackedFollowed
    }

    let maximumCount: Int
    let replacementOverlap: Float
    let association: Association
    private var tracked: [TrackedRegion] = []
    private var nextInstance = 0

    init(maximumCount: Int, replacementOverlap: Float, association: Association = .detectionReplacesTracked) {
        self.maximumCount = maximumCount
        self.replacementOverlap = replacementOverlap
        self.association = association
    }

    /// The regions to run the landmark model on this frame, at most `maximumCount`.
    mutating func regions(tracking: Bool, detect: () throws(VisionTaskError) -> [NormalizedRect]) throws(VisionTaskError) -> [TrackedRegion] {
        guard tracking else { return try detect().prefix(maximumCount).enumerated().map { TrackedRegion(instance: $0.offset, rect: $0.element) } }
        var regions = tracked
        if tracked.count < maximumCount {
            for rect in try detect() {
                switch association {
                case .detectionReplacesTracked:
                    let replaced = regions.first { $0.rect.mediaPipeIntersectionOverUnion(rect) > replacementOverlap }
                    regions.removeAll { $0.rect.mediaPipeIntersectionOverUnion(rect) > replacementOverlap }
                    regions.append(TrackedRegion(instance: replaced?.instance ?? newInstance(), rect: rect))
                case .trackedKeepsItsPlace, .trackedFollowed:
                    // Compared with every region kept so far, detections added this frame included.
                    if regions.allSatisfy({ $0.rect.mediaPipeIntersectionOverUnion(rect) <= replacementOverlap }) {
                        regions.append(TrackedRegion(instance: newInstance(), rect: rect))
                    }
                }
            }
        }
        return Array(regions.prefix(maximumCount))
    }

    /// Keeps the regions the landmark model derived for the next frame (one per instance it found).
    mutating func track(_ next: [TrackedRegion]) {
        tracked = next
    }

    private mutating func newInstance() -> Int {
        defer { nextInstance += 1 }
        return nextInstance
    }
}
