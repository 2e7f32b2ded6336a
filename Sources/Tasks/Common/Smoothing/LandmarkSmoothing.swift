/// Which instances a landmark task smooths in video and live-stream modes (image mode never smooths).
public enum LandmarkSmoothing: String, Sendable, Equatable, CaseIterable {
    /// MediaPipe's behaviour, the default: smooth only when the task finds at most one instance (numPoses,
    /// numFaces or numHands 1), exactly as MediaPipe's graphs do.
    case mediapipe
    /// Every tracked instance keeps filters of its own, following it across frames by its region; an instance lost
    /// and found again starts fresh. (MediaPipe cannot smooth several people, faces or hands.)
    ///
    /// Each instance is followed the way MediaPipe follows its single one: by the region its own landmarks give for
    /// the next frame. The detector, which runs while fewer than the maximum are tracked, only adds instances not
    /// tracked yet (a tracked instance keeps its region). MediaPipe's pose and face graphs instead let a
    /// detection replace the tracked region it overlaps, so with several instances sought every frame's region would
    /// come from the detector, and the landmarks entering the filters would not be the ones MediaPipe smooths (its
    /// numPoses 2 and numPoses 1 runs of one person differ by 20–60 mm in world landmarks before any smoothing).
    case always
    /// Never smooth.
    case never
}

extension LandmarkSmoothing {
    /// How a task that lets detections replace tracked regions (pose, face) associates them under this smoothing:
    /// `.always` keeps every tracked instance on its own region (see ``always``).
    func association(otherwise association: RegionTracker.Association) -> RegionTracker.Association {
        self == .always ? .trackedFollowed : association
    }
}

/// Filter state per tracked instance, for ``LandmarkSmoothing/always``: one `Filters` per instance seen in the last
/// frame; instances not found in a frame are forgotten.
struct InstanceFilters<Filters: Sendable>: Sendable {
    private var filters: [Int: Filters] = [:]
    private let make: @Sendable () -> Filters

    init(_ make: @escaping @Sendable () -> Filters) { self.make = make }

    /// Runs `body` on `instance`'s filters, made fresh when the instance is new.
    mutating func update<R>(_ instance: Int, _ body: (inout Filters) -> R) -> R {
        if filters[instance] == nil { filters[instance] = make() }
        return body(&filters[instance]!)
    }

    /// Forgets every instance but these.
    mutating func keep(only instances: Set<Int>) {
        filters = filters.filter { instances.contains($0.key) }
    }
}
