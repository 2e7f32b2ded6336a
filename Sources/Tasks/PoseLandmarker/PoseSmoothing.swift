/// Landmark smoothing of MediaPipe's pose landmarker for a single tracked pose (pose_landmarks_detector_graph.cc):
/// visibility through a low-pass filter (α 0.1), image landmarks through 1€ filters in pixels scaled by the
/// region size (min cutoff 0.05, β 80, derivative cutoff 1), world landmarks through 1€ filters scaled by their
/// own extent (min cutoff 0.1, β 40, derivative cutoff 1).
final class PoseSmoothing {
    private var visibility: [LowPassFilter] = []
    private var worldVisibility: [LowPassFilter] = []
    private var image: [[OneEuroFilter]] = []
    private var world: [[OneEuroFilter]] = []

    func reset() {
        visibility = []; worldVisibility = []; image = []; world = []
    }

    func apply(_ pose: PoseEstimate, imageWidth: Int, imageHeight: Int, timestamp: Int) -> (landmarks: [NormalizedLandmark], world: [Landmark]) {
        let count = pose.landmarks.count
        if image.count != count {
            visibility = Array(repeating: LowPassFilter(), count: count)
            worldVisibility = visibility
            image = Array(repeating: Array(repeating: OneEuroFilter(minCutoff: 0.05, beta: 80, derivativeCutoff: 1), count: 3), count: count)
            world = Array(repeating: Array(repeating: OneEuroFilter(minCutoff: 0.1, beta: 40, derivativeCutoff: 1), count: 3), count: count)
        }
        // Packet timestamps are microseconds; the filter works in nanoseconds.
        let now = Int64(timestamp) * 1_000_000
        let w = Double(imageWidth), h = Double(imageHeight)
        let objectScale = (Double(pose.nextRect.width) * w + Double(pose.nextRect.height) * h) / 2
        var landmarks = pose.landmarks
        for i in 0..<count {
            if let v = landmarks[i].visibility { landmarks[i].visibility = Float(visibility[i].apply(Double(v), alpha: 0.1)) }
            guard objectScale >= 1e-6 else { continue }
            let scale = 1 / objectScale
            let x = image[i][0].apply(Double(landmarks[i].x) * w, timestampNanoseconds: now, valueScale: scale)
            let y = image[i][1].apply(Double(landmarks[i].y) * h, timestampNanoseconds: now, valueScale: scale)
            let z = image[i][2].apply(Double(landmarks[i].z) * w, timestampNanoseconds: now, valueScale: scale)
            landmarks[i].x = Float(x / w); landmarks[i].y = Float(y / h); landmarks[i].z = Float(z / w)
        }
        var worldLandmarks = pose.world
        for i in 0..<count {
            if let v = worldLandmarks[i].visibility { worldLandmarks[i].visibility = Float(worldVisibility[i].apply(Double(v), alpha: 0.1)) }
        }
        let xs = worldLandmarks.map(\.x), ys = worldLandmarks.map(\.y)
        let extent = Double(((xs.max() ?? 0) - (xs.min() ?? 0) + (ys.max() ?? 0) - (ys.min() ?? 0)) / 2)
        if extent >= 1e-6 {
            for i in 0..<count {
                worldLandmarks[i].x = Float(world[i][0].apply(Double(worldLandmarks[i].x), timestampNanoseconds: now, valueScale: 1 / extent))
                worldLandmarks[i].y = Float(world[i][1].apply(Double(worldLandmarks[i].y), timestampNanoseconds: now, valueScale: 1 / extent))
                worldLandmarks[i].z = Float(world[i][2].apply(Double(worldLandmarks[i].z), timestampNanoseconds: now, valueScale: 1 / extent))
            }
        }
        return (landmarks, worldLandmarks)
    }
}
