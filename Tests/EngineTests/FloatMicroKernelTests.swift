@testable import VisionTasksEngine
import XCTest

/// The float GEMM tiles of both tiers (``PackedGEMM``: the AVX2 tier's 6 × 16, the AVX-512 tier's 8 × 32 over pairs
/// of panels) against a scalar reference in Double, and against each other bit for bit: both fuse each output's
/// products in depth order. Shapes leave every tail: rows past a whole tile, an odd panel after the pairs, a
/// partial panel, a single row (the GEMM's row-at-a-time path), a depth of one.
final class FloatMicroKernelTests: XCTestCase {
    func testWideTilesEqualTheAVX2TilesAndTheReference() {
        var g = QuantizedMicroKernelTests.Generator(seed: 32)
        var wideRuns = 0
        for (rows, columns, depth) in [(1, 64, 9), (5, 32, 1), (8, 48, 16), (13, 80, 27), (25, 33, 8), (49, 96, 64), (7, 40, 3),
                                       (96, 64, 300)] {
            let a = (0..<rows * depth).map { _ in Float.random(in: -1...1, using: &g) }
            let w = (0..<columns * depth).map { _ in Float.random(in: -1...1, using: &g) }
            let bias = (0..<columns).map { _ in Float.random(in: -1...1, using: &g) }
            var results: [[Float]] = []
            for tier in [KernelConfig.Tier.avx2, .avx512] {
                let gemm = PackedGEMM(weights: w, bias: bias, columns: columns, depth: depth, kernels: KernelConfig(tier: tier))
                if gemm.wideTiles { wideRuns += 1 }
                var c = [Float](repeating: .nan, count: rows * columns)
                a.withUnsafeBufferPointer { a in
                    c.withUnsafeMutableBufferPointer { c in
                        gemm.run(a: a.baseAddress!, lda: depth, rows: 0..<rows, c: c.baseAddress!, ldc: columns, activation: .relu6)
                    }
                }
                results.append(c)
            }
            XCTAssertTrue(results[0].elementsEqual(results[1]) { $0.bitPattern == $1.bitPattern }, "\(rows)×\(columns)×\(depth): tiers differ")
            var worst = 0.0
            for r in 0..<rows {
                for n in 0..<columns {
                    var sum = Double(bias[n])
                    for k in 0..<depth { sum += Double(a[r * depth + k]) * Double(w[n * depth + k]) }
                    worst = max(worst, abs(min(max(sum, 0), 6) - Double(results[1][r * columns + n])))
                }
            }
            // Float32 accumulation of ≤ 300 products of magnitude ≤ 1.
            XCTAssertLessThan(worst, 1e-4, "\(rows)×\(columns)×\(depth) against the reference")
        }
        XCTAssertEqual(wideRuns, 8)
    }
}
