/// MediaPipe's HandLandmarksDeduplicationCalculator: a hand is dropped when an earlier hand kept has at least 10 of
/// its 21 landmarks within a fifth of the larger hand's size, and their landmark boxes overlap by more than 0.2 IoU
/// (a palm found again where a tracked hand already is).
enum HandLandmarksDeduplication {
    static let closeLandmarkCount = 10
    static let distanceFraction: Float = 0.2
    static let minimumOverlap: Float = 0.2

    static func removingDuplicates(_ hands: [HandEstimate], imageWidth: Int, imageHeight: Int) -> [HandEstimate] {
        guard hands.count > 1 else { return hands }
        let size = SIMD2(Float(imageWidth), Float(imageHeight))
        let pixels = hands.map { $0.landmarks.map { SIMD2($0.x, $0.y) * size } }
        // The hand's size: the longest side of the wrist – index knuckle – little-finger knuckle triangle.
        let baselines = pixels.map { p in max(distance(p[0], p[5]), distance(p[5], p[17]), distance(p[17], p[0])) }
        let boxes = hands.map { hand in
            hand.landmarks.reduce((lo: SIMD2<Float>(repeating: .infinity), hi: SIMD2<Float>(repeating: -.infinity))) {
                ($0.lo.replacing(with: SIMD2($1.x, $1.y), where: SIMD2($1.x, $1.y) .< $0.lo),
                 $0.hi.replacing(with: SIMD2($1.x, $1.y), where: SIMD2($1.x, $1.y) .> $0.hi))
            }
        }
        var kept: [Int] = []
        for i in hands.indices {
            let duplicate = kept.contains { j in
                let limit = distanceFraction * max(baselines[i], baselines[j])
                let close = zip(pixels[i], pixels[j]).filter { distance($0, $1) < limit }.count
                return close >= closeLandmarkCount && landmarksIntersectionOverUnion(boxes[i], boxes[j]) > minimumOverlap
            }
            if !duplicate { kept.append(i) }
        }
        return kept.map { hands[$0] }
    }

    private static func distance(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float { ((a - b) * (a - b)).sum().squareRoot() }

    /// MediaPipe's third IoU, `CalculateIOU` of `mediapipe/tasks/cc/vision/utils/landmarks_utils.cc`: boxes given by
    /// their edges (not a corner and a size, as ``mediaPipeIntersectionOverUnion(_:_:)`` takes them), 0 when either box
    /// has no area.
    private static func landmarksIntersectionOverUnion(_ a: (lo: SIMD2<Float>, hi: SIMD2<Float>), _ b: (lo: SIMD2<Float>, hi: SIMD2<Float>)) -> Float {
        let areaA = (a.hi - a.lo).x * (a.hi - a.lo).y, areaB = (b.hi - b.lo).x * (b.hi - b.lo).y
        guard areaA > 0, areaB > 0 else { return 0 }
        let lo = pointwiseMax(a.lo, b.lo), hi = pointwiseMin(a.hi, b.hi)
        let inter = max(0, hi.x - lo.x) * max(0, hi.y - lo.y)
        return inter / (areaA + areaB - inter)
    }
}
