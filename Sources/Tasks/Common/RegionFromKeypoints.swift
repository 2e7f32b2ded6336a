import Foundation

/// Turns two keypoints into the rotated square a landmark model should see: MediaPipe's
/// `AlignmentPointsRectsCalculator` (centre = start point, side = twice the distance to the end point, rotation
/// so that start→end points at `targetAngle`) followed by `RectTransformationCalculator` (scale, square_long).
struct RegionFromKeypoints {
    /// Radians; 90° (π/2) for pose: the hips-to-head vector points up.
    var targetAngle: Float
    var scale: Float
    var squareLong: Bool

    func rect(start: SIMD2<Float>, end: SIMD2<Float>, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let w = Float(imageWidth), h = Float(imageHeight)
        let x0 = start.x * w, y0 = start.y * h, x1 = end.x * w, y1 = end.y * h
        let side = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot() * 2
        var rect = NormalizedRect(xCenter: x0 / w, yCenter: y0 / h, width: side / w, height: side / h)
        rect.rotation = normalizeRadians(targetAngle - atan2f(-(y1 - y0), x1 - x0))
        return transform(rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    func transform(_ input: NormalizedRect, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var rect = input
        var width = rect.width, height = rect.height
        if squareLong {
            let longSide = max(width * Float(imageWidth), height * Float(imageHeight))
            width = longSide / Float(imageWidth)
            height = longSide / Float(imageHeight)
        }
        rect.width = width * scale
        rect.height = height * scale
        return rect
    }
}

/// Moving landmarks between the model's crop and the image (MediaPipe's letterbox-removal and projection
/// calculators).
enum LandmarkProjection {
    /// From the letterboxed tensor to the region: x, y rescaled to the content, z scaled like x.
    static func removeLetterbox(_ p: SIMD3<Float>, padding: (left: Float, top: Float, right: Float, bottom: Float)) -> SIMD3<Float> {
        let lr = padding.left + padding.right, tb = padding.top + padding.bottom
        return SIMD3((p.x - padding.left) / (1 - lr), (p.y - padding.top) / (1 - tb), p.z / (1 - lr))
    }

    /// From the region (normalized to it) to the image (normalized to it), rotating about the region's centre.
    static func project(_ p: SIMD3<Float>, through rect: NormalizedRect) -> SIMD3<Float> {
        let x = p.x - 0.5, y = p.y - 0.5
        let c = cosf(rect.rotation), s = sinf(rect.rotation)
        return SIMD3((c * x - s * y) * rect.width + rect.xCenter, (s * x + c * y) * rect.height + rect.yCenter, p.z * rect.width)
    }

    /// World landmarks turn with the region but keep their metric scale.
    static func rotateWorld(_ p: SIMD3<Float>, by rotation: Float) -> SIMD3<Float> {
        let c = cosf(rotation), s = sinf(rotation)
        return SIMD3(c * p.x - s * p.y, s * p.x + c * p.y, p.z)
    }
}

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
