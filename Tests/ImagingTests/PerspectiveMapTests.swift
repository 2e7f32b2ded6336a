@testable import VisionTasksImaging
import XCTest

/// The warp computes a row's source coordinates in one vectorized loop (``PerspectiveMap/fixedPointRow(_:x:y:)``,
/// rounding by a float shift instead of a conversion). Every coordinate must be the one warpPerspective's scalar
/// loop gives, bit for bit — written out here as OpenCV writes it — or a 1/32-pixel rounding tie could move.
/// (`VisionGoldenTests` compares the sampled pixels with OpenCV's own.)
final class PerspectiveMapTests: XCTestCase {
    func testRowCoordinatesAreWarpPerspectivesScalarOnes() throws {
        var generator = SystemRandomNumberGenerator()
        var maps = 0
        for trial in 0..<300 {
            let width = Int.random(in: 1...300, using: &generator), height = Int.random(in: 1...300, using: &generator)
            // Ordinary crops, and regions far outside any image or tiny, whose coordinates saturate.
            let extent: ClosedRange<Double> = trial % 10 == 0 ? -1e9...1e9 : -500...3000
            let size: ClosedRange<Double> = trial % 10 == 1 ? 1e-6...1e-3 : 0.5...4000
            let region = RegionOfInterest(centerX: .random(in: extent, using: &generator), centerY: .random(in: extent, using: &generator),
                                          width: .random(in: size, using: &generator), height: .random(in: size, using: &generator),
                                          rotationDegrees: trial % 3 == 0 ? 0 : .random(in: -180...180, using: &generator))
            guard let map = PerspectiveMap(region: region, width: width, height: height) else { continue }
            maps += 1
            var x = [Int32](repeating: 0, count: width), y = [Int32](repeating: 0, count: width)
            for v in Swift.stride(from: 0, to: height, by: max(1, height / 9)) {
                x.withUnsafeMutableBufferPointer { x in
                    y.withUnsafeMutableBufferPointer { y in map.fixedPointRow(v, x: x.baseAddress!, y: y.baseAddress!) }
                }
                for u in 0..<width {
                    let expected = Self.openCVSource(map, u, v)
                    XCTAssertEqual(Int(x[u]), expected.x, "x of (\(u), \(v)) for \(region) → \(width)×\(height)")
                    XCTAssertEqual(Int(y[u]), expected.y, "y of (\(u), \(v)) for \(region) → \(width)×\(height)")
                }
            }
        }
        XCTAssertGreaterThan(maps, 250)
    }

    /// warpPerspective's per-pixel computation (OpenCV 4.x `WarpPerspectiveInvoker`): the block's origin at column
    /// x and row y, plus x1 columns, times INTER_TAB_SIZE / W, saturated to int, rounded to nearest even.
    private static func openCVSource(_ map: PerspectiveMap, _ u: Int, _ v: Int) -> (x: Int, y: Int) {
        let m = map.m
        let x = Double(u - u % map.blockWidth), x1 = Double(u % map.blockWidth), y = Double(v)
        let X0 = m[0] * x + m[1] * y + m[2], Y0 = m[3] * x + m[4] * y + m[5], W0 = m[6] * x + m[7] * y + m[8]
        var W = W0 + m[6] * x1
        W = W != 0 ? 32 / W : 0
        let fX = max(Double(Int32.min), min(Double(Int32.max), (X0 + m[0] * x1) * W))
        let fY = max(Double(Int32.min), min(Double(Int32.max), (Y0 + m[3] * x1) * W))
        return (Int(fX.rounded(.toNearestOrEven)), Int(fY.rounded(.toNearestOrEven)))
    }
}
