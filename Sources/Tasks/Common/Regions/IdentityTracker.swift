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
///   on average, within ``followingDistance`` of its last ones moved on by its motion (distances relative to
///   its size: the larger side of its landmarks' box); its colour, where the task samples one, must not have
///   changed by more than ``followingColourChange`` (a tracked region that slid onto someone else).
/// - **Kept across a gap** (an occlusion, a missed detection): an instance unseen for up to ``memoryMilliseconds``
///   takes its identity back when an unclaimed instance appears near where it was (its centre within
///   ``returnDistance(afterMilliseconds:)`` of the last centre moved on by its motion) and, where the task
///   samples a colour, looks the same (within ``returningColourChange``). Instances seen in the last frame claim
///   first, then those back from a gap; within each, the closest pairs first.
/// - **Crossing behind another**: an instance of the last frame not found in this one, with an instance still seen
///   within its own size of where it should be, is taken as hidden behind that one. From then on, while the one in
///   view is followed, its centre is compared with where each of the two would be had both kept the motion they had
///   when they met (carried on for up to ``hiddenPredictionMilliseconds``): when it is clearly where the hidden one
///   would be (nearer by ``swapMargin`` of its size along the line between the two places, and within half its
///   size) and not where it would be itself, the two identities swap — the one in view is the one that was hidden,
///   which came through in front, and the other stays behind at the place where the two met, to return there.
///   (Look-alike people cross without a colour to tell them apart, and the landmark model's region slides from the
///   hidden one to the one in front.)
/// - **Two answers for one instance**: MediaPipe's multi-instance graphs can track two regions onto one person
///   (after a crossing). An instance whose landmarks lie within ``duplicateDistance`` of one already claimed this
///   frame cannot take over another instance's identity: it gets a new one (kept while it stays a duplicate).
/// - **A new identity taken back**: an instance given a new identity, which within ``takeBackMilliseconds`` comes to
///   look like an instance remembered from before it (within the return distance, the same colour), takes that
///   identity back, and its new one ends: one coming out from behind another is seen before its torso is.
/// - **Motion**: an instance's centre's move over the last ``motionMilliseconds`` it was followed without a gap (the
///   centre of all landmarks: a juggler's arms swing it back and forth by a tenth of his size from one frame to the
///   next, so a one-frame motion carried on for a second sends a standing man off the frame).
/// - **Ended**: an instance unseen for longer than ``memoryMilliseconds`` ends; its identity is never given again
///   in the stream. New identities count up from 0; a new stream (a reset of the task's video state, as the worker
///   does between clips) starts again from 0, as a new task would — identities name instances within one stream.
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
    /// The longest a motion is carried on (a moving person stops; a prediction far ahead drifts).
    static let predictionMilliseconds = 200
    /// The span a motion is measured over: long enough to average out the swing of arms (a stride, a juggle: the
    /// window clip's man stands still but his landmarks' centre moves ±0.5 px/ms from frame to frame), short enough
    /// to follow a person who turns. Measured on the identity clips (IdentityClipTests).
    static let motionMilliseconds = 500
    /// At most this many past centres are kept per instance (a stream far above 60 fps measures its motion over
    /// a shorter span rather than keeping more).
    static let motionSamples = 32
    /// The longest the motions of two instances that met are carried on, to tell which came through.
    static let hiddenPredictionMilliseconds = 2000
    /// How long a new identity may still give way to a remembered one its instance turns out to be.
    static let takeBackMilliseconds = 1000
    /// How much closer (over the size, along the line between the two paths) to the hidden instance's path than to
    /// its own the one in view must be for their identities to swap.
    static let swapMargin: Float = 0.25

    fileprivate struct Sample: Sendable {
        var time: Int
        var centre: SIMD2<Float>
    }

    /// Where and how an instance moved at one moment, for predictions across an occlusion.
    fileprivate struct Anchor: Sendable {
        var points: [SIMD2<Float>]
        var velocity: SIMD2<Float>
        func centre(after milliseconds: Int) -> SIMD2<Float> {
            IdentityTracker.centre(points) + velocity * Float(min(milliseconds, IdentityTracker.hiddenPredictionMilliseconds))
        }
    }

    /// A track hidden behind another since `since`: both as they were then.
    fileprivate struct Occlusion: Sendable {
        var partner: Int
        var since: Int
        var own: Anchor
        var other: Anchor
    }

    fileprivate struct Track: Sendable {
        let identity: Int
        var points: [SIMD2<Float>]
        var appearance: SIMD3<Float>?
        var timestamp: Int
        /// When its identity was given.
        let born: Int
        /// The centre's move per millisecond over the last ``IdentityTracker/motionMilliseconds`` (``history``).
        var velocity = SIMD2<Float>.zero
        /// The centres (and their times) it was followed through since its last gap, newest last, over at most the
        /// motion's span.
        var history: [Sample] = []
        /// Whether its last instance duplicated another one of the same frame.
        var duplicate = false
        /// Set while it is taken as hidden behind another track.
        var hidden: Occlusion?

        var size: Float { IdentityTracker.size(points) }
        var centre: SIMD2<Float> { IdentityTracker.centre(points) }

        func predicted(at time: Int) -> [SIMD2<Float>] {
            let horizon = hidden == nil ? IdentityTracker.predictionMilliseconds : IdentityTracker.hiddenPredictionMilliseconds
            let shift = velocity * Float(min(IdentityTracker.elapsed(from: timestamp, to: time), horizon))
            return points.map { $0 + shift }
        }
    }

    private var tracks: [Track] = []
    private var nextIdentity = 0
    private var lastTimestamp: Int?

    /// Starts a new stream, as a new task would: no instance remembered, identities from 0 again.
    mutating func reset() {
        self = IdentityTracker()
    }

    /// The identity of each of this frame's instances, in their order; unique within the frame.
    mutating func identities(of observations: [IdentityObservation], timestampMilliseconds time: Int) -> [Int] {
        // Ended tracks first: an instance unseen for longer than the memory cannot come back, even on this frame.
        tracks.removeAll { Self.elapsed(from: $0.timestamp, to: time) > Self.memoryMilliseconds }
        var identities = [Int?](repeating: nil, count: observations.count)
        var claimed = Set<Int>()
        let previous = lastTimestamp
        let before = Dictionary(tracks.map { ($0.identity, Anchor(points: $0.points, velocity: $0.velocity)) }, uniquingKeysWith: { a, _ in a })
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
                        guard distance <= Self.returnDistance(afterMilliseconds: Self.elapsed(from: track.timestamp, to: time)) else { continue }
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
        if let previous { followHidden(&identities, observations: observations, before: before, previous: previous, time: time) }
        takeBack(&identities, observations: observations, time: time)
        let result = identities.enumerated().map { o, identity in
            if let identity { return identity }
            defer { nextIdentity += 1 }
            tracks.append(Track(identity: nextIdentity, points: observations[o].points, appearance: observations[o].appearance,
                                timestamp: time, born: time, history: [Sample(time: time, centre: Self.centre(observations[o].points))]))
            return nextIdentity
        }
        for t in tracks.indices where tracks[t].timestamp == time {
            guard let o = result.firstIndex(of: tracks[t].identity) else { continue }
            tracks[t].duplicate = observations.indices.contains { other in
                other != o && Self.isDuplicate(observations[other], observations[o])
            }
        }
        lastTimestamp = time
        return result
    }

    /// Tracks just lost next to a claimed instance become hidden behind it; a hidden track whose partner's instance
    /// moves as the hidden one was moving takes that instance over (the rule's "Crossing behind another").
    private mutating func followHidden(_ identities: inout [Int?], observations: [IdentityObservation],
                                       before: [Int: Anchor], previous: Int, time: Int) {
        for t in tracks.indices where tracks[t].timestamp == previous {
            let expected = Self.centre(tracks[t].predicted(at: time)), size = tracks[t].size
            var nearest: (distance: Float, identity: Int)?
            for (o, identity) in identities.enumerated() {
                guard let identity, before[identity] != nil else { continue }
                let move = Self.centre(observations[o].points) - expected
                let distance = (move * move).sum().squareRoot() / size
                if distance <= 1, distance < (nearest?.distance ?? .infinity) { nearest = (distance, identity) }
            }
            if let nearest, let other = before[nearest.identity] {
                tracks[t].hidden = Occlusion(partner: nearest.identity, since: tracks[t].timestamp,
                                             own: Anchor(points: tracks[t].points, velocity: tracks[t].velocity), other: other)
            }
        }
        for t in tracks.indices where tracks[t].timestamp != time {
            guard let hidden = tracks[t].hidden, let f = tracks.firstIndex(where: { $0.identity == hidden.partner }),
                  tracks[f].timestamp == time, let o = identities.firstIndex(of: hidden.partner) else { continue }
            let elapsed = Self.elapsed(from: hidden.since, to: time), centre = Self.centre(observations[o].points), size = Self.size(observations[o].points)
            let hiddenPath = hidden.own.centre(after: elapsed), ownPath = hidden.other.centre(after: elapsed)
            let d = centre - hiddenPath, asHidden = (d * d).sum().squareRoot() / size
            // Which path it is on is read along the line between the two: across it, both predictions share the
            // error of a motion carried on for up to two seconds (a landmark centre drifting down as a walker
            // nears the frame's edge moves both the same way), which says nothing about who is in view.
            let between = hiddenPath - ownPath, separation = (between * between).sum().squareRoot()
            let direction = separation > 0 ? between / separation : .zero
            let alongHidden = abs((d * direction).sum()) / size, alongOwn = abs(((centre - ownPath) * direction).sum()) / size
            guard asHidden < 0.5, alongHidden + Self.swapMargin < alongOwn else { continue }
            identities[o] = tracks[t].identity
            let seen = tracks[f]
            tracks[t].points = seen.points
            tracks[t].velocity = seen.velocity
            tracks[t].history = seen.history
            tracks[t].timestamp = time
            tracks[t].duplicate = seen.duplicate
            tracks[t].hidden = nil
            tracks[f].points = hidden.other.points
            tracks[f].velocity = hidden.other.velocity
            tracks[f].history = []
            tracks[f].timestamp = hidden.since
            tracks[f].hidden = Occlusion(partner: tracks[t].identity, since: hidden.since, own: hidden.other, other: hidden.own)
        }
    }

    /// An identity younger than ``takeBackMilliseconds`` whose instance now looks like a remembered one (within the
    /// return distance, the same colour) gives way to it: the instance could not be recognised when it came (out
    /// from behind another, its torso too hidden for its colour), and is now. Colour on both sides is required: by
    /// position alone, a new person stepping in where another left would take that one's identity. Measured on the
    /// look-alikes' crossing (IdentityClipTests): the man behind came out 0.155 in colour from his remembered one,
    /// past ``returningColourChange`` by a hair, and kept the new identity for the rest of the clip.
    private mutating func takeBack(_ identities: inout [Int?], observations: [IdentityObservation], time: Int) {
        for (o, identity) in identities.enumerated() {
            guard let identity, let young = tracks.firstIndex(where: { $0.identity == identity }),
                  Self.elapsed(from: tracks[young].born, to: time) <= Self.takeBackMilliseconds,
                  let colour = observations[o].appearance else { continue }
            let observed = observations[o]
            // A second answer for an instance claimed this frame is no one come back (the rule's duplicates).
            guard !observations.indices.contains(where: { $0 != o && Self.isDuplicate(observations[$0], observed) }) else { continue }
            var best: (change: Float, track: Int)?
            for (r, remembered) in tracks.enumerated()
            where remembered.timestamp != time && remembered.born < tracks[young].born && remembered.points.count == observed.points.count {
                guard let change = Self.colourChange(remembered.appearance, colour), change <= Self.returningColourChange else { continue }
                let move = Self.centre(observed.points) - Self.centre(remembered.predicted(at: time))
                let gap = Self.elapsed(from: remembered.timestamp, to: time)
                guard (move * move).sum().squareRoot() / remembered.size <= Self.returnDistance(afterMilliseconds: gap) else { continue }
                if change < (best?.change ?? .infinity) { best = (change, r) }
            }
            guard let best else { continue }
            identities[o] = tracks[best.track].identity
            tracks[best.track].follow(observed, at: time, continuing: false)
            tracks.remove(at: young)
        }
    }

    private func duplicatesClaimed(_ observation: IdentityObservation, identities: [Int?], observations: [IdentityObservation]) -> Bool {
        observations.indices.contains { identities[$0] != nil && Self.isDuplicate(observations[$0], observation) }
    }

    private static func isDuplicate(_ a: IdentityObservation, _ b: IdentityObservation) -> Bool {
        a.points.count == b.points.count && meanDistance(a.points, b.points) / size(a.points) < duplicateDistance
    }

    /// Milliseconds from one timestamp to a later one, saturating: timestamps are the caller's, and only their order
    /// is checked (Int.min then Int.max is in order, and its difference does not fit an Int).
    static func elapsed(from start: Int, to end: Int) -> Int {
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        return overflow ? (end > start ? .max : .min) : difference
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
    /// Moves the track to its instance of this frame; the motion is measured only over frames followed one after
    /// the other (across a gap the track stood still at its last place), the colour averaged slowly (a ball or an
    /// arm passing in front).
    mutating func follow(_ observation: IdentityObservation, at time: Int, continuing: Bool) {
        let now = IdentityTracker.centre(observation.points)
        if !continuing { history.removeAll() }
        history.append(IdentityTracker.Sample(time: time, centre: now))
        history.removeFirst(max(history.count - IdentityTracker.motionSamples, 0))
        // From the newest sample at least the span old (the oldest, while the track is younger than the span).
        while history.count > 2, IdentityTracker.elapsed(from: history[1].time, to: time) >= IdentityTracker.motionMilliseconds {
            history.removeFirst()
        }
        let elapsed = IdentityTracker.elapsed(from: history[0].time, to: time)
        velocity = elapsed > 0 ? (now - history[0].centre) / Float(elapsed) : .zero
        points = observation.points
        hidden = nil
        if let colour = observation.appearance {
            appearance = appearance.map { 0.9 * $0 + 0.1 * colour } ?? colour
        }
        timestamp = time
    }
}
