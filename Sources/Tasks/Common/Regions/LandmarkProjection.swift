import Foundation
import VisionTasksImaging

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

    /// Points decoded from a landmark model's tensor (normalized to it) to the image: letterbox removed, then
    /// projected through the region the tensor was cut from.
    static func project(_ points: [SIMD3<Float>], transform: TensorToImageTransform, through rect: NormalizedRect) -> [SIMD3<Float>] {
        let p = transform.padding
        let padding = (Float(p.left), Float(p.top), Float(p.right), Float(p.bottom))
        return points.map { project(removeLetterbox($0, padding: padding), through: rect) }
    }

    /// ``project(_:transform:through:)`` as MediaPipe 1.x's face landmarks graph does it, with the image's
    /// dimensions wired to LandmarkProjectionCalculator ("Bugfix to correctly handle landmark projection in the
    /// non-square case", May 2024): x and y through the region's matrix, z scaled by the length of the region's
    /// unit width projected onto the image (normalized), not by its width alone — which for a region turned by a
    /// quarter in a non-square image scaled z by the image's aspect ratio (0.10.14's results on turned buffers).
    static func project(_ points: [SIMD3<Float>], transform: TensorToImageTransform, through rect: NormalizedRect,
                        imageWidth: Int, imageHeight: Int) -> [SIMD3<Float>] {
        let p = transform.padding
        let padding = (Float(p.left), Float(p.top), Float(p.right), Float(p.bottom))
        let matrix = DetectionProjection(region: rect.region(imageWidth: imageWidth, imageHeight: imageHeight),
                                         imageWidth: imageWidth, imageHeight: imageHeight)
        let zScale = (matrix.m0 * matrix.m0 + matrix.m4 * matrix.m4).squareRoot()
        return points.map {
            let q = removeLetterbox($0, padding: padding)
            let xy = matrix.point(q.x, q.y)
            return SIMD3(xy.x, xy.y, q.z * zScale)
        }
    }

    /// World landmarks turn with the region but keep their metric scale.
    static func rotateWorld(_ p: SIMD3<Float>, by rotation: Float) -> SIMD3<Float> {
        let c = cosf(rotation), s = sinf(rotation)
        return SIMD3(c * p.x - s * p.y, s * p.x + c * p.y, p.z)
    }
}
