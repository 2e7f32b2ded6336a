/// MediaPipe's weighted non-maximum suppression: each kept detection is the score-weighted average of the
/// detections overlapping the best remaining one by more than `threshold` IoU.
enum NonMaxSuppression {
    static func weighted(_ detections: [RawDetection], threshold: Float) -> [RawDetection] {
        // Stable sort by descending score, as std::sort over (index, score) pairs effectively is for distinct scores.
        var remaining = detections.indices.sorted { detections[$0].score > detections[$1].score }
        var output: [RawDetection] = []
        while let first = remaining.first {
            let best = detections[first]
            var candidates: [Int] = [], rest: [Int] = []
            for index in remaining {
                if overlap(detections[index], best) > threshold { candidates.append(index) } else { rest.append(index) }
            }
            var merged = best
            if !candidates.isEmpty {
                var total: Float = 0, x0: Float = 0, y0: Float = 0, x1: Float = 0, y1: Float = 0
                var keypoints = [SIMD2<Float>](repeating: .zero, count: best.keypoints.count)
                for index in candidates {
                    let d = detections[index], s = d.score
                    total += s
                    x0 += d.xMin * s; y0 += d.yMin * s
                    x1 += (d.xMin + d.width) * s; y1 += (d.yMin + d.height) * s
                    for k in 0..<min(keypoints.count, d.keypoints.count) { keypoints[k] += d.keypoints[k] * s }
                }
                merged.xMin = x0 / total; merged.yMin = y0 / total
                merged.width = x1 / total - merged.xMin; merged.height = y1 / total - merged.yMin
                merged.keypoints = keypoints.map { $0 / total }
            }
            output.append(merged)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }

    private static func overlap(_ a: RawDetection, _ b: RawDetection) -> Float {
        mediaPipeIntersectionOverUnion((a.xMin, a.yMin, a.width, a.height), (b.xMin, b.yMin, b.width, b.height))
    }
}
