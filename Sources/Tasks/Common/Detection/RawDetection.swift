/// A detector's candidate in normalized coordinates of the image it was found in: score, box and keypoints, before
/// it becomes a public ``Detection`` or a region.
struct RawDetection: Sendable, Equatable {
    var score: Float
    var xMin: Float
    var yMin: Float
    var width: Float
    var height: Float
    var keypoints: [SIMD2<Float>]
}
