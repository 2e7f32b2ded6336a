import VisionTasksImaging

/// The colour of a pose's torso, for ``IdentityTracker``: where people cross, positions alone cannot tell who came
/// out on which side, and clothes can. Ours (MediaPipe has no identity); kept deliberately small — one median colour
/// along the edges of the shoulders–hips quadrilateral — because a richer descriptor would need its
/// own validation, and this one already tells the people of the crossing clips apart (Tests/TasksTests/IdentityClipTests).
enum PoseAppearance {
    /// Shoulder–hip edges of BlazePose's topology (left side, right side, shoulders, hips).
    static let torsoEdges = [(11, 23), (12, 24), (11, 12), (23, 24)]
    /// Points along each edge, away from the joints (arms and hands often lie over the joints).
    static let fractions: [Float] = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    /// Both ends of an edge must be this visible for it to be sampled.
    static let minimumVisibility: Float = 0.5
    /// Fewer samples than this (a torso mostly out of view) give no colour.
    static let minimumSamples = 5

    /// The per-channel median of 3 × 3 means along the visible torso edges, in 0...1; nil when too little is seen.
    /// The median, not the mean: a juggled ball or a hand over the torso moves a few samples, not the median.
    static func colour(of landmarks: [NormalizedLandmark], in image: MPImage) -> SIMD3<Float>? {
        var points: [(x: Int, y: Int)] = []
        for (a, b) in torsoEdges where a < landmarks.count && b < landmarks.count {
            let p = landmarks[a], q = landmarks[b]
            guard (p.visibilityValue ?? 1) >= minimumVisibility, (q.visibilityValue ?? 1) >= minimumVisibility else { continue }
            for t in fractions {
                let x = (p.x + (q.x - p.x) * t) * Float(image.width), y = (p.y + (q.y - p.y) * t) * Float(image.height)
                // Non-finite or far-off landmarks give no sample (Int(_:) traps on them).
                guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Float(image.width), y < Float(image.height) else { continue }
                points.append((Int(x), Int(y)))
            }
        }
        let samples = image.meanRGB3x3(at: points).compactMap { $0 }
        guard samples.count >= minimumSamples else { return nil }
        func median(_ values: [Float]) -> Float {
            let sorted = values.sorted()
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        return SIMD3(median(samples.map(\.x)), median(samples.map(\.y)), median(samples.map(\.z))) / 255
    }
}
