import Foundation

/// Tracking IDs for ML Kit's stream mode, from the boxes alone. ML Kit's tracker is not published; what it promises
/// (its guide, "Object detection and tracking") is an ID that stays the same while the object stays in view, frame
/// after frame. Ours matches by overlap and motion: each track (an object seen in the last ``memory`` frames) is
/// compared with each box at its last place and at its place predicted from its last move; pairs are taken in order of
/// decreasing overlap (IoU ≥ ``minimumOverlap``), each box and each track at most once, and a paired box keeps the
/// track's ID. Other boxes start new tracks with new IDs, never reused; tracks unmatched for longer than the memory end.
package struct ObjectTracker: Sendable {
    /// Frames a track survives unmatched: a detection that flickers below the threshold keeps its ID.
    package static let memory = 3
    /// The least IoU of a box and a track's place for the box to continue the track.
    package static let minimumOverlap = 0.3

    private struct Track: Sendable {
        let id: Int
        var box: CGRect
        /// The box's move per frame over its last match, for the next frame's prediction.
        var motion: (dx: CGFloat, dy: CGFloat) = (0, 0)
        /// Frames in a row the track has gone unmatched.
        var missed = 0

        /// Where the box should be now: moved on by its last motion for each frame since.
        var predicted: CGRect {
            box.offsetBy(dx: motion.dx * CGFloat(missed + 1), dy: motion.dy * CGFloat(missed + 1))
        }
    }

    private var tracks: [Track] = []
    private var nextID = 0

    package init() {}

    /// The tracking ID of each of this frame's boxes, in their order.
    package mutating func update(_ boxes: [CGRect]) -> [Int] {
        var pairs: [(box: Int, track: Int, overlap: Double)] = []
        for (b, box) in boxes.enumerated() {
            for (t, track) in tracks.enumerated() {
                let overlap = max(Self.intersectionOverUnion(box, track.box), Self.intersectionOverUnion(box, track.predicted))
                if overlap >= Self.minimumOverlap { pairs.append((b, t, overlap)) }
            }
        }
        // Ties in the order boxes and tracks came: the outcome does not depend on the sort's stability.
        pairs.sort { $0.overlap != $1.overlap ? $0.overlap > $1.overlap : ($0.box, $0.track) < ($1.box, $1.track) }
        var ids = [Int?](repeating: nil, count: boxes.count), matched = Set<Int>()
        for pair in pairs where ids[pair.box] == nil && !matched.contains(pair.track) {
            let box = boxes[pair.box], old = tracks[pair.track]
            ids[pair.box] = old.id
            matched.insert(pair.track)
            let frames = CGFloat(old.missed + 1)
            tracks[pair.track].motion = (dx: (box.midX - old.box.midX) / frames, dy: (box.midY - old.box.midY) / frames)
            tracks[pair.track].box = box
            tracks[pair.track].missed = 0
        }
        for t in tracks.indices where !matched.contains(t) { tracks[t].missed += 1 }
        tracks.removeAll { $0.missed > Self.memory }
        return boxes.indices.map { b in
            if let id = ids[b] { return id }
            defer { nextID += 1 }
            tracks.append(Track(id: nextID, box: boxes[b]))
            return nextID
        }
    }

    /// The tracker's overlap: IoU of two pixel boxes in Double, 0 for boxes that only touch. Ours (ML Kit's tracker is
    /// not published), so it is named with the tracker and shared with no MediaPipe code.
    package static func intersectionOverUnion(_ a: CGRect, _ b: CGRect) -> Double {
        let intersection = a.intersection(b)
        guard !intersection.isNull, intersection.width > 0, intersection.height > 0 else { return 0 }
        let shared = Double(intersection.width * intersection.height)
        return shared / (Double(a.width * a.height) + Double(b.width * b.height) - shared)
    }
}
