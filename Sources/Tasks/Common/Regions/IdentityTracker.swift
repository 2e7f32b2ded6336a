/// What the identity tracker sees of one instance (a pose, a face, a hand) in one frame.
struct IdentityObservation: Sendable, Equatable {
    /// The landmarks in pixels of the frame the task ran on, so that distances are the same across and down.
    var points: [SIMD2<Float>]
    /// The colour under the instance (a pose's torso: ``PoseAppearance``), each channel in 0...1; nil when the task
    /// samples none or too little of it is in view.
    var appearance: SIMD3<Float>?
}

/// Identities of landmark instances across the frames of a video or live stream: one tracker for poses, faces and
/// hands (MediaPipe gives no identity: its results are per frame). It only reads what the task found — it never
/// changes a landmark, a region or which instances are found, so results stay MediaPipe's and identities are extra.
///
/// The rule (the articles' "Identities across frames" states it for users):
/// - **Kept from frame to frame**: an instance seen in the last frame continues when this frame's landmarks lie,
///   on average, within ``followingDistance`` of its last ones moved on by its last motion (distances relative to
///   its size: the larger side of its landmarks' box); its colour, where the task samples one, must not have
///   changed by more than ``followingColourChange`` (a tracked region that slid onto someone else).
/// - **Kept across a gap** (an occlusion, a missed detection): an instance unseen for up to ``memoryMilliseconds``
///   takes its identity back when an unclaimed instance appears near where it was (its centre within
///   ``returnDistance(afterMilliseconds:)`` of the last centre moved on by its last motion) and, where the task
///   samples a colour, looks the same (within ``returningColourChange``). Instances seen in the last frame claim
///   first, then those back from a gap; within each, the closest pairs first.
/// - **Two answers for one instance**: MediaPipe's multi-instance graphs can track two regions onto one person
///   (after a crossing). An instance whose landmarks lie within ``duplicateDistance`` of one already claimed this
///   frame cannot take over another instance's identity: it gets a new one (kept while it stays a duplicate).
/// - **Ended**: an instance unseen for longer than ``memoryMilliseconds`` ends; its identity is never given again.
///   New identities count up from 0, per task object; a reset of the task's video state (a new stream) keeps
///   counting, so no identity ever names two instances.
struct IdentityTracker: Sendable {
    /// How long an unseen instance is remembered.
    static let memoryMilliseconds = 5000
    /// Mean landmark move, over the instance's size, past which an instance of the last frame does not continue.
    static let followingDistance: Float = 0.2
    /// Mean landmark distance, over the size, under which two instances of one frame are one (a duplicate).
    static let duplicateDistance: Float = 0.1
    /// Largest change of colour (Euclidean, channels in 0...1) an instance of the last frame continues with.
    static let followingColourChange: Float = 0.5
    /// Largest change of colour an instance back from a gap returns with.
    static let returningColourChange: Float = 0.15
    /// The centre distance, over the size, within which an instance returns after `gap` milliseconds unseen: half
    /// its size at once, growing with the time it could have moved, at most one and a half.
    static func returnDistance(afterMilliseconds gap: Int) -> Float {
        min(0.5 + 1.2 * Float(gap) / 1000, 1.5)
    }
    /// The longest a last motion is carried on (a moving person stops; a prediction far ahead drifts).
    static let predictionMilliseconds = 200

    fileprivate struct Track: Sendable {
        let identity: Int
        var points: [SIMD2<Float>]
        var appearance: SIMD3<Float>?
        var timestamp: Int
        /// The centre's move per millisecond over its last match.
        var velocity = SIMD2<Float>.zero
        /// Whether its last instance duplicated another one of the same frame.
        var duplicate = false

        var size: Float { IdentityTracker.size(points) }
        var centre: SIMD2<Float> { IdentityTracker.centre(points) }

        func predicted(at time: Int) -> [SIMD2<Float>] {
            let shift = velocity * Float(min(time - timestamp, IdentityTracker.predictionMilliseconds))
            return points.map { $0 + shift }
        }
    }

    private var tracks: [Track] = []
    private var nextIdentity = 0
    private var lastTimestamp: Int?

    /// Forgets every tracked instance (a new stream); identities already given are not given again.
    mutating func reset() {
        tracks = []
        lastTimestamp = nil
    }

    /// The identity of each of this frame's instances, in their order; unique within the frame.
    mutating func identities(of observations: [IdentityObservation], timestampMilliseconds time: Int) -> [Int] {
        var identities = [Int?](repeating: nil, count: observations.count)
        var claimed = Set<Int>()
        let previous = lastTimestamp
        // Instances of the last frame first, then those back from a gap.
        for fresh in [true, false] {
            var pairs: [(cost: Float, track: Int, observation: Int)] = []
            for (t, track) in tracks.enumerated() where (track.timestamp == previous) == fresh {
                let predicted = track.predicted(at: time)
                let size = track.size
                for (o, observation) in observations.enumerated() where identities[o] == nil {
                    guard observation.points.count == track.points.count else { continue }
                    let colourChange = Self.colourChange(track.appearance, observation.appearance)
                    if fresh {
                        let distance = Self.meanDistance(predicted, observation.points) / size
                        guard distance <= Self.followingDistance, (colourChange ?? 0) <= Self.followingColourChange else { continue }
                        pairs.append((distance, t, o))
                    } else {
                        let move = Self.centre(observation.points) - Self.centre(predicted)
                        let distance = (move * move).sum().squareRoot() / size
                        guard distance <= Self.returnDistance(afterMilliseconds: time - track.timestamp) else { continue }
                        // Where colours are sampled, a return needs one on both sides; without colours, position alone.
                        if track.appearance != nil || observation.appearance != nil {
                            guard let colourChange, colourChange <= Self.returningColourChange else { continue }
                            pairs.append((colourChange, t, o))
                        } else {
                            pairs.append((distance, t, o))
                        }
                    }
                }
            }
            // Ties in the order tracks and instances came: the outcome does not depend on the sort's stability.
            pairs.sort { $0.cost != $1.cost ? $0.cost < $1.cost : ($0.track, $0.observation) < ($1.track, $1.observation) }
            for pair in pairs where identities[pair.observation] == nil && !claimed.contains(pair.track) {
                let observation = observations[pair.observation]
                if !tracks[pair.track].duplicate, duplicatesClaimed(observation, identities: identities, observations: observations) { continue }
                identities[pair.observation] = tracks[pair.track].identity
                claimed.insert(pair.track)
                tracks[pair.track].follow(observation, at: time, continuing: fresh)
            }
        }
        let result = identities.enumerated().map { o, identity in
            if let identity { return identity }
            defer { nextIdentity += 1 }
            tracks.append(Track(identity: nextIdentity, points: observations[o].points, appearance: observations[o].appearance,
                                timestamp: time))
            return nextIdentity
        }
        for t in tracks.indices where tracks[t].timestamp == time {
            guard let o = result.firstIndex(of: tracks[t].identity) else { continue }
            tracks[t].duplicate = observations.indices.contains { other in
                other != o && Self.isDuplicate(observations[other], observations[o])
            }
        }
        tracks.removeAll { time - $0.timestamp > Self.memoryMilliseconds }
        lastTimestamp = time
        return result
    }

    private func duplicatesClaimed(_ observation: IdentityObservation, identities: [Int?], observations: [IdentityObservation]) -> Bool {
        observations.indices.contains { identities[$0] != nil && Self.isDuplicate(observations[$0], observation) }
    }

    private static func isDuplicate(_ a: IdentityObservation, _ b: IdentityObservation) -> Bool {
        a.points.count == b.points.count && meanDistance(a.points, b.points) / size(a.points) < duplicateDistance
    }

    /// Mean over the landmarks of the mean of |Δx| and |Δy|.
    static func meanDistance(_ a: [SIMD2<Float>], _ b: [SIMD2<Float>]) -> Float {
        guard !a.isEmpty else { return .infinity }
        var sum: Float = 0
        for (p, q) in zip(a, b) { sum += (abs(p.x - q.x) + abs(p.y - q.y)) / 2 }
        return sum / Float(a.count)
    }

    /// The larger side of the landmarks' box, at least one pixel.
    static func size(_ points: [SIMD2<Float>]) -> Float {
        guard let first = points.first else { return 1 }
        var low = first, high = first
        for p in points { low = pointwiseMin(low, p); high = pointwiseMax(high, p) }
        return max(high.x - low.x, high.y - low.y, 1)
    }

    static func centre(_ points: [SIMD2<Float>]) -> SIMD2<Float> {
        points.isEmpty ? .zero : points.reduce(.zero, +) / Float(points.count)
    }

    static func colourChange(_ a: SIMD3<Float>?, _ b: SIMD3<Float>?) -> Float? {
        guard let a, let b else { return nil }
        let d = a - b
        return (d * d).sum().squareRoot()
    }
}

private extension IdentityTracker.Track {
    /// Moves the track to its instance of this frame; the motion is measured only from the last frame (across a gap
    /// the track stood still at its last place), the colour averaged slowly (a ball or an arm passing in front).
    mutating func follow(_ observation: IdentityObservation, at time: Int, continuing: Bool) {
        let elapsed = time - timestamp
        velocity = continuing && elapsed > 0 ? (IdentityTracker.centre(observation.points) - centre) / Float(elapsed) : .zero
        points = observation.points
        if let colour = observation.appearance {
            appearance = appearance.map { 0.9 * $0 + 0.1 * colour } ?? colour
        }
        timestamp = time
    }
}
