import Foundation

/// MediaPipe's `RefineLandmarksFromHeatmapCalculator`: moves each landmark to the confidence-weighted centre of a
/// window of its heatmap channel when the window's best confidence reaches `minimumConfidence`.
struct HeatmapRefinement {
    var kernelSize: Int = 7
    var minimumConfidence: Float = 0.5

    /// `heatmap` is height × width × channels logits; points are normalized to the heatmap.
    func refine(_ points: inout [SIMD3<Float>], heatmap: UnsafeBufferPointer<Float>, height: Int, width: Int, channels: Int) {
        guard channels == points.count, heatmap.count >= height * width * channels else { return }
        let offset = (kernelSize - 1) / 2
        for i in points.indices {
            // Checked before converting: a non-finite or huge coordinate would trap in Int(_:).
            let column = points[i].x * Float(width), row = points[i].y * Float(height)
            guard column.isFinite, row.isFinite, column > -1, row > -1, column < Float(width), row < Float(height) else { continue }
            let centerColumn = Int(column), centerRow = Int(row)
            guard centerColumn >= 0, centerColumn < width, centerRow >= 0, centerRow < height else { continue }
            var sum: Float = 0, weightedColumn: Float = 0, weightedRow: Float = 0, best: Float = 0
            for row in max(0, centerRow - offset)..<min(height, centerRow + offset + 1) {
                for column in max(0, centerColumn - offset)..<min(width, centerColumn + offset + 1) {
                    let confidence = 1 / (1 + expf(-heatmap[(row * width + column) * channels + i]))
                    sum += confidence
                    best = max(best, confidence)
                    weightedColumn += Float(column) * confidence
                    weightedRow += Float(row) * confidence
                }
            }
            if best >= minimumConfidence, sum > 0 {
                points[i].x = weightedColumn / Float(width) / sum
                points[i].y = weightedRow / Float(height) / sum
            }
        }
    }
}
