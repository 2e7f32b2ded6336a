/// What a landmark task finds in one region of one frame, as the shared detect-or-track loop handles it.
protocol TrackedEstimate {
    /// The tracked instance it belongs to (``TrackedRegion/instance``); set by the loop.
    var instance: Int { get set }
    /// The region the landmarks give for the next frame.
    var nextRect: NormalizedRect { get }
}

extension RegionTracker {
    /// One frame of MediaPipe's detect-or-track loop: the regions to look at (tracked, or detected when fewer than
    /// the maximum are tracked; always detected in image mode), the landmark stage on each, and — when tracking —
    /// the regions the estimates give kept for the next frame. Regions where `estimate` finds nothing are dropped.
    /// - Parameter deduplicate: drops estimates that duplicate others (hands), before their regions are kept.
    mutating func frame<Estimate: TrackedEstimate>(
        tracking: Bool, detect: () throws(VisionTaskError) -> [NormalizedRect],
        estimate: (NormalizedRect) throws(VisionTaskError) -> Estimate?,
        deduplicate: ([Estimate]) -> [Estimate] = { $0 }
    ) throws(VisionTaskError) -> [Estimate] {
        var estimates: [Estimate] = []
        for region in try regions(tracking: tracking, detect: detect) {
            if var found = try estimate(region.rect) {
                found.instance = region.instance
                estimates.append(found)
            }
        }
        estimates = deduplicate(estimates)
        // Only while tracking: image mode gives MediaPipe's result whatever the smoothing option.
        if tracking, association == .trackedFollowed { estimates = removingInstancesFoundTwice(estimates) }
        if tracking { track(estimates.map { TrackedRegion(instance: $0.instance, rect: $0.nextRect) }) }
        return estimates
    }

    /// `.trackedFollowed`'s check after the landmark stage: the first of any estimates whose next regions overlap.
    private func removingInstancesFoundTwice<Estimate: TrackedEstimate>(_ estimates: [Estimate]) -> [Estimate] {
        var kept: [Estimate] = []
        for estimate in estimates where kept.allSatisfy({ $0.nextRect.mediaPipeIntersectionOverUnion(estimate.nextRect) <= replacementOverlap }) {
            kept.append(estimate)
        }
        return kept
    }
}

/// The smoothing state of a landmark task across frames, per ``LandmarkSmoothing``: MediaPipe's single set of
/// filters (when the task seeks one instance) or a set per tracked instance (`.always`); nothing in image mode.
struct SmoothingState<Filters: Sendable>: Sendable {
    private var single: Filters?
    private var perInstance: InstanceFilters<Filters>?

    /// - Parameter mediapipeSmooths: whether MediaPipe smooths this task at all (it smooths no hand).
    init(_ smoothing: LandmarkSmoothing, runningMode: RunningMode, maximumCount: Int, mediapipeSmooths: Bool = true,
         make: @escaping @Sendable () -> Filters) {
        guard runningMode != .image else { return }
        switch smoothing {
        case .mediapipe where maximumCount == 1 && mediapipeSmooths: single = make()
        case .always: perInstance = InstanceFilters(make)
        case .mediapipe, .never: break
        }
    }

    /// Smooths this frame's estimates in place. `reset` runs on MediaPipe's single filters when the frame has no
    /// instance (its calculators see an empty frame); per-instance filters of instances not found are dropped.
    mutating func apply<Estimate: TrackedEstimate>(_ estimates: inout [Estimate], smooth: (inout Filters, Estimate) -> Estimate,
                                                   reset: (inout Filters) -> Void) {
        if perInstance != nil {
            for i in estimates.indices {
                estimates[i] = perInstance!.update(estimates[i].instance) { smooth(&$0, estimates[i]) }
            }
            perInstance!.keep(only: Set(estimates.map(\.instance)))
        }
        // `single!` in place: copying the filters out and back would copy their arrays every frame.
        guard single != nil else { return }
        if let first = estimates.first {
            estimates[0] = smooth(&single!, first)
        } else {
            reset(&single!)
        }
    }
}
