/// MediaPipe's detect-or-track loop for landmark tasks in video and live-stream modes: the regions derived from the
/// last frame's landmarks are used again, and the detector runs only while fewer than `maximumCount` are tracked.
/// A new detection replaces every tracked region it overlaps by more than `replacementOverlap` IoU
/// (`AssociationNormRectCalculator`). In image mode every call detects and nothing is kept.
struct RegionTracker: Sendable {
    let maximumCount: Int
    let replacementOverlap: Float
    private(set) var tracked: [NormalizedRect] = []

    init(maximumCount: Int, replacementOverlap: Float) {
        self.maximumCount = maximumCount
        self.replacementOverlap = replacementOverlap
    }

    /// The regions to run the landmark model on this frame, at most `maximumCount`.
    func regions(tracking: Bool, detect: () throws(VisionTaskError) -> [NormalizedRect]) throws(VisionTaskError) -> [NormalizedRect] {
        guard tracking else { return Array(try detect().prefix(maximumCount)) }
        var rects = tracked
        if tracked.count < maximumCount {
            for rect in try detect() {
                rects.removeAll { $0.intersectionOverUnion(rect) > replacementOverlap }
                rects.append(rect)
            }
        }
        return Array(rects.prefix(maximumCount))
    }

    /// Keeps the regions the landmark model derived for the next frame (one per instance it found).
    mutating func track(_ next: [NormalizedRect]) {
        tracked = next
    }
}
