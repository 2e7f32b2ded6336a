import Foundation
import VisionTasksImaging

/// MediaPipe's DetectionProjectionCalculator with the matrix ImageToTensorCalculator makes
/// (`GetRotatedSubRectToRectTransformMatrix`), in float: points of the model's input (normalized to it) to points of
/// the image (normalized to it), through the region the input was sampled from — its letterbox and its rotation.
/// Boxes become the axis-aligned bounds of their projected corners. Nearly the identity for an unturned image
/// (W × fl(1/W) is 0.99999994 for some W), but a truncation to pixels after it can make that matter, so the
/// arithmetic is MediaPipe's, not a double-precision equivalent.
struct DetectionProjection {
    let m0: Float, m1: Float, m3: Float, m4: Float, m5: Float, m7: Float

    /// - Parameter region: the region actually sampled, grown by the letterbox when there is one
    ///   (``TensorToImageTransform/region``).
    init(region: RegionOfInterest, imageWidth: Int, imageHeight: Int) {
        let a = Float(region.width), b = Float(region.height)
        let radians = Float(region.rotationDegrees * .pi / 180)
        let c = cosf(radians), d = sinf(radians)
        let e = Float(region.centerX), f = Float(region.centerY)
        let g = 1 / Float(imageWidth), h = 1 / Float(imageHeight)
        m0 = a * c * 1 * g
        m1 = -b * d * g
        m3 = (-0.5 * a * c * 1 + 0.5 * b * d + e) * g
        m4 = a * d * 1 * h
        m5 = b * c * h
        m7 = (-0.5 * b * c - 0.5 * a * d * 1 + f) * h
    }

    @inline(__always)
    func point(_ x: Float, _ y: Float) -> SIMD2<Float> { SIMD2(x * m0 + y * m1 + m3, x * m4 + y * m5 + m7) }

    func box(xMin: Float, yMin: Float, width: Float, height: Float) -> (xMin: Float, yMin: Float, width: Float, height: Float) {
        let a = point(xMin, yMin), b = point(xMin + width, yMin)
        let c = point(xMin + width, yMin + height), d = point(xMin, yMin + height)
        let left = min(a.x, b.x, c.x, d.x), right = max(a.x, b.x, c.x, d.x)
        let top = min(a.y, b.y, c.y, d.y), bottom = max(a.y, b.y, c.y, d.y)
        return (left, top, right - left, bottom - top)
    }

    /// A decoded detection, box and keypoints, in the image.
    func detection(_ d: RawDetection) -> RawDetection {
        var d = d
        (d.xMin, d.yMin, d.width, d.height) = box(xMin: d.xMin, yMin: d.yMin, width: d.width, height: d.height)
        d.keypoints = d.keypoints.map { point($0.x, $0.y) }
        return d
    }
}
