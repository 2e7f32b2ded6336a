import Foundation

/// The map from tensor pixels to image pixels, computed with the same floating-point operations as OpenCV's `boxPoints`
/// → `getPerspectiveTransform` → `warpPerspective` (4.x, before the 4.11 warp rewrite), so that the 1/32-pixel source
/// coordinates — and the ties among them that decide a rounding — come out identical.
///
/// The order of operations matters and is OpenCV's: corners in float; an 8×8 system solved by its LU routine (partial
/// pivoting, division by the pivots in back substitution); the 3×3 inverse by cofactors; then per 16×64 output block
/// the row's base coordinate plus the column step, divided by the homogeneous weight, scaled by 32 and rounded to even.
struct PerspectiveMap {
    /// Inverse map (tensor → image), row-major 3×3.
    let m: [Double]
    /// Width of the column blocks OpenCV's warp walks (its BLOCK_SZ = 32 logic).
    let blockWidth: Int
    /// Tensor width.
    let width: Int
    /// What one tensor column adds to the homogeneous source position: m's first column.
    private let columnStep: (x: Double, y: Double, w: Double)

    init?(region: RegionOfInterest, width: Int, height: Int) {
        // RotatedRect::points, in float.
        let angle = Double(Float(region.rotationDegrees)) * Double.pi / 180
        let b = Float(cos(angle)) * 0.5, a = Float(sin(angle)) * 0.5
        let cx = Float(region.centerX), cy = Float(region.centerY), w = Float(region.width), h = Float(region.height)
        var src = [(Float, Float)](repeating: (0, 0), count: 4)
        src[0] = (cx - a * h - b * w, cy + b * h - a * w)
        src[1] = (cx + a * h - b * w, cy - b * h - a * w)
        src[2] = (2 * cx - src[0].0, 2 * cy - src[0].1)
        src[3] = (2 * cx - src[1].0, 2 * cy - src[1].1)
        let fw = Float(width), fh = Float(height)
        let dst: [(Float, Float)] = [(0, fh), (0, 0), (fw, 0), (fw, fh)]
        guard let forward = Self.perspectiveTransform(src, dst), let inverse = Self.invert(forward) else { return nil }
        m = inverse
        self.width = width
        columnStep = (inverse[0], inverse[3], inverse[6])
        let blockHeight = min(16, height)
        blockWidth = min(1024 / blockHeight, width)
    }

    /// getPerspectiveTransform: the 8×8 system for the forward map, solved by OpenCV's LU.
    private static func perspectiveTransform(_ src: [(Float, Float)], _ dst: [(Float, Float)]) -> [Double]? {
        var a = [Double](repeating: 0, count: 64), b = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            a[i * 8 + 0] = Double(src[i].0); a[(i + 4) * 8 + 3] = Double(src[i].0)
            a[i * 8 + 1] = Double(src[i].1); a[(i + 4) * 8 + 4] = Double(src[i].1)
            a[i * 8 + 2] = 1; a[(i + 4) * 8 + 5] = 1
            // Products of two floats are float in C++ before they are stored as double.
            a[i * 8 + 6] = Double(-src[i].0 * dst[i].0)
            a[i * 8 + 7] = Double(-src[i].1 * dst[i].0)
            a[(i + 4) * 8 + 6] = Double(-src[i].0 * dst[i].1)
            a[(i + 4) * 8 + 7] = Double(-src[i].1 * dst[i].1)
            b[i] = Double(dst[i].0)
            b[i + 4] = Double(dst[i].1)
        }
        let n = 8
        for i in 0..<n {
            var k = i
            for j in (i + 1)..<n where abs(a[j * n + i]) > abs(a[k * n + i]) { k = j }
            if abs(a[k * n + i]) < Double.ulpOfOne * 100 { return nil }
            if k != i {
                for j in i..<n { a.swapAt(i * n + j, k * n + j) }
                b.swapAt(i, k)
            }
            let d = -1 / a[i * n + i]
            for j in (i + 1)..<n {
                let alpha = a[j * n + i] * d
                for k in (i + 1)..<n { a[j * n + k] += alpha * a[i * n + k] }
                b[j] += alpha * b[i]
            }
        }
        // Back substitution divides by the pivot, as OpenCV 4.10's LUImpl (and MediaPipe's OpenCV) does: multiplying
        // by its reciprocal gave 1.5920398009950247 for 320 / 201 where OpenCV has 1.592039800995025, one ulp that
        // moved 1/32-pixel ties in the warp (EfficientDet-Lite0 on pose1.jpg and obj_kitchen_people.jpg; checked
        // against OpenCV 4.10's getPerspectiveTransform on 251×201, 640×427, 640×480 and 428×500).
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = b[i]
            for k in (i + 1)..<n { s -= a[i * n + k] * b[k] }
            b[i] = s / a[i * n + i]
        }
        return b + [1]
    }

    /// cv::invert for a 3×3 double matrix (DECOMP_LU takes the cofactor formula at this size).
    private static func invert(_ s: [Double]) -> [Double]? {
        func e(_ r: Int, _ c: Int) -> Double { s[r * 3 + c] }
        var d = e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1))
            - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0))
            + e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0))
        guard d != 0, d.isFinite else { return nil }
        d = 1 / d
        return [
            (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1)) * d, (e(0, 2) * e(2, 1) - e(0, 1) * e(2, 2)) * d,
            (e(0, 1) * e(1, 2) - e(0, 2) * e(1, 1)) * d,
            (e(1, 2) * e(2, 0) - e(1, 0) * e(2, 2)) * d, (e(0, 0) * e(2, 2) - e(0, 2) * e(2, 0)) * d,
            (e(0, 2) * e(1, 0) - e(0, 0) * e(1, 2)) * d,
            (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0)) * d, (e(0, 1) * e(2, 0) - e(0, 0) * e(2, 1)) * d,
            (e(0, 0) * e(1, 1) - e(0, 1) * e(1, 0)) * d,
        ]
    }

    /// The homogeneous source position of the first column of the OpenCV block holding tensor column `u` on row `v`.
    @inline(__always)
    func blockOrigin(u: Int, v: Int) -> (x: Double, y: Double, w: Double) {
        let x0 = Double(u - u % blockWidth), y = Double(v)
        return (m[0] * x0 + m[1] * y + m[2], m[3] * x0 + m[4] * y + m[5], m[6] * x0 + m[7] * y + m[8])
    }

    /// Row `v`'s source positions in 1/32 pixels, as warpPerspective's loop computes them, into `x` and `y`
    /// (`width` each): per block the origin plus the column step, times 32 / w, saturated to Int32, rounded half to
    /// even. A loop the compiler vectorizes — the division, the clamp and the rounding four columns at a time, the
    /// rounding by the 1.5 × 2⁵² shift (exact in the clamped range under the default rounding mode), which unlike
    /// `Int32(_:)` has no trap to keep it scalar.
    func fixedPointRow(_ v: Int, x: UnsafeMutablePointer<Int32>, y: UnsafeMutablePointer<Int32>) {
        var blockStart = 0
        while blockStart < width {
            let origin = blockOrigin(u: blockStart, v: v)
            let count = min(blockWidth, width - blockStart)
            let bx = x + blockStart, by = y + blockStart
            for i in 0..<count {
                let x1 = Double(i)
                let weight = Self.weight(origin.w + columnStep.w * x1)
                bx[i] = Self.fixed32((origin.x + columnStep.x * x1) * weight)
                by[i] = Self.fixed32((origin.y + columnStep.y * x1) * weight)
            }
            blockStart += count
        }
    }

    /// A scaled coordinate saturated to Int32 and rounded half to even, without a conversion instruction: the
    /// clamped value plus 1.5 × 2⁵² holds it rounded in its low mantissa bits.
    @inline(__always) private static func fixed32(_ value: Double) -> Int32 {
        let shifted = max(Double(Int32.min), min(Double(Int32.max), value)) + 6_755_399_441_055_744
        return Int32(truncatingIfNeeded: Int64(bitPattern: shifted.bitPattern))
    }

    /// warpPerspective's 32 / w (0 where w is 0).
    @inline(__always) private static func weight(_ w: Double) -> Double {
        w != 0 ? Double(1 << ImageToTensor.interBits) / w : 0
    }
}
