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

    /// The C tiles each tier this CPU runs dispatches to at run time (CVisionTasksMicroKernels: a plain build's float
    /// GEMM on an AVX2 or AVX-512 CPU), bit for bit against a scalar reference that fuses each product in depth order
    /// from the bias (`addingProduct`, one rounding: the definition of what the tiles compute) and clamps as
    /// `ActivationClamp` does; so every tier's C tiles equal each other, and the Swift tiles of a build tuned for the
    /// tier (checked here where this build's Swift tiles fuse). Shapes reach every C tile: six-row tiles with tails,
    /// half panels (12-row and 6-row), partial panels through the scratch tile, the single-row tile across four
    /// panels (the large-filter path), pairs of panels through the wide tile.
    func testDispatchedTilesEqualTheFusedReferenceBitForBit() throws {
        let tiers = KernelConfig.dispatchableTiers
        guard !tiers.isEmpty else {
            // No C tiles for this CPU (arm64, or an x86-64 CPU without AVX2): then nothing is dispatched.
            XCTAssertNil(KernelConfig.dispatchedTier)
            return
        }
        var g = QuantizedMicroKernelTests.Generator(seed: 43)
        for (rows, columns, depth) in [(1, 64, 9), (5, 32, 1), (8, 48, 16), (13, 80, 27), (25, 33, 8), (49, 96, 64), (7, 40, 3),
                                       (96, 64, 300), (25, 24, 19), (12, 8, 5), (31, 28, 7), (13, 160, 260), (19, 128, 300)] {
            let a = (0..<rows * depth).map { _ in Float.random(in: -1...1, using: &g) }
            let w = (0..<columns * depth).map { _ in Float.random(in: -1...1, using: &g) }
            let bias = (0..<columns).map { _ in Float.random(in: -1...1, using: &g) }
            for activation in [Activation.relu6, .none] {
                let (lower, upper): (Float, Float) = activation == .relu6 ? (0, 6) : (-.infinity, .infinity)
                var reference = [Float](repeating: 0, count: rows * columns)
                for r in 0..<rows {
                    for n in 0..<columns {
                        var sum = bias[n]
                        for k in 0..<depth { sum = sum.addingProduct(a[r * depth + k], w[n * depth + k]) }
                        let raised = lower > sum ? lower : sum
                        reference[r * columns + n] = upper < raised ? upper : raised
                    }
                }
                var configs: [(String, KernelConfig)] = tiers.map { tier in
                    var config = KernelConfig(tier: KernelConfig.compiledTier)
                    XCTAssertTrue(config.dispatchFloatGEMM(to: tier))
                    XCTAssertEqual(config.floatGEMMTileTier, tier)
                    return ("C tiles of \(tier)", config)
                }
                // The Swift tiles fuse where the build targets FMA (VISION_TASKS_FMA: a tuned x86 build; arm64).
                if KernelConfig.compiledTier != .portable {
                    configs.append(("Swift tiles of \(KernelConfig.compiledTier)", KernelConfig(tier: KernelConfig.compiledTier)))
                }
                for (label, config) in configs {
                    let gemm = PackedGEMM(weights: w, bias: bias, columns: columns, depth: depth, kernels: config)
                    var c = [Float](repeating: .nan, count: rows * columns)
                    a.withUnsafeBufferPointer { a in
                        c.withUnsafeMutableBufferPointer { c in
                            gemm.run(a: a.baseAddress!, lda: depth, rows: 0..<rows, c: c.baseAddress!, ldc: columns, activation: activation)
                        }
                    }
                    let differing = zip(c, reference).filter { $0.bitPattern != $1.bitPattern }.count
                    XCTAssertEqual(differing, 0, "\(label), \(rows)×\(columns)×\(depth), \(activation): elements differing from the fused reference")
                }
            }
        }
    }

    /// The tiles the read-in-place tests hold to the copied rows: this build's Swift tiles and the C tiles of every
    /// tier this CPU dispatches to.
    private func tileConfigurations() -> [(String, KernelConfig)] {
        var configs: [(String, KernelConfig)] = [("Swift tiles of \(KernelConfig.compiledTier)", KernelConfig(tier: KernelConfig.compiledTier))]
        for tier in KernelConfig.dispatchableTiers {
            var config = KernelConfig(tier: KernelConfig.compiledTier)
            XCTAssertTrue(config.dispatchFloatGEMM(to: tier))
            configs.append(("C tiles of \(tier)", config))
        }
        return configs
    }

    /// `inPlace` (rows read where they are, under the epilogue it is given) against ``PackedGEMM/run(a:lda:rows:c:ldc:activation:panels:epilogue:)``
    /// over `copied` (the same rows one after another), bit for bit, with and without SiLU after an epilogue of a
    /// residual (`addend`), a clamp and PReLU `alpha`.
    private func assertSameBits(_ gemm: PackedGEMM, copied: [Float], rows: Int, addend: [Float], alpha: [Float], _ label: String,
                                inPlace: (PackedGEMM.Epilogue, UnsafeMutablePointer<Float>) -> Void) {
        let columns = gemm.columns
        for function in [nil, EpilogueFunction.swish] {
            var results: [[Float]] = []
            addend.withUnsafeBufferPointer { addend in
                alpha.withUnsafeBufferPointer { alpha in
                    let epilogue = PackedGEMM.Epilogue(addend: addend.baseAddress, addendStride: columns, addendColumns: columns,
                                                       clamp: ActivationClamp(.relu6), clamps: true, alpha: alpha.baseAddress,
                                                       function: function)
                    var read = [Float](repeating: .nan, count: rows * columns), fromRows = read
                    read.withUnsafeMutableBufferPointer { inPlace(epilogue, $0.baseAddress!) }
                    copied.withUnsafeBufferPointer { a in
                        fromRows.withUnsafeMutableBufferPointer { c in
                            gemm.run(a: a.baseAddress!, lda: gemm.depth, rows: 0..<rows, c: c.baseAddress!, ldc: columns,
                                     activation: .none, epilogue: epilogue)
                        }
                    }
                    results = [read, fromRows]
                }
            }
            XCTAssertFalse(results[0].contains { $0.isNaN }, "\(label): every element written")
            let differing = zip(results[0], results[1]).filter { $0.bitPattern != $1.bitPattern }.count
            XCTAssertEqual(differing, 0, "\(label), \(function.map { "\($0)" } ?? "no function")")
        }
    }

    /// Windows read where they lie in a convolution's input (``PackedGEMM/runWindows(a:lda:groups:windows:c:ldc:activation:epilogue:)``)
    /// give, bit for bit, what the tiles give over the same windows copied into rows — through the Swift tiles of
    /// this build and the C tiles of every tier this CPU dispatches to that take windows — with an epilogue (a
    /// residual, a clamp, PReLU slopes, SiLU) applied per tile. Geometries: 3 × 3 and 5 × 5 over 3–64 channels, strides
    /// 1 and 2, one group and several, a depth of one segment (a 1 × 3 filter); whole panels, a partial last panel
    /// (27, 40 columns) and a half panel alone (8: the gathered rows' half tiles).
    func testWindowsReadInPlaceEqualTheirRowsCopied() {
        var g = QuantizedMicroKernelTests.Generator(seed: 61)
        let configs = tileConfigurations()
        var windowRuns = 0
        for (filterRows, filterColumns, channels, stride, width, groups, columns) in
            [(3, 3, 16, 1, 20, 3, 32), (3, 3, 64, 1, 14, 2, 16), (5, 5, 4, 2, 31, 2, 48), (1, 3, 8, 1, 9, 1, 16), (3, 3, 3, 2, 40, 3, 16),
             (3, 3, 32, 1, 20, 2, 27), (3, 3, 8, 1, 14, 1, 8), (3, 3, 16, 2, 30, 2, 40)] {
            let depth = filterRows * filterColumns * channels
            let inputRows = filterRows + 1
            let input = (0..<inputRows * width * channels).map { _ in Float.random(in: -1...1, using: &g) }
            let w = (0..<columns * depth).map { _ in Float.random(in: -1...1, using: &g) }
            let bias = (0..<columns).map { _ in Float.random(in: -1...1, using: &g) }
            let pixels = groups * 6
            XCTAssertLessThanOrEqual((pixels - 1) * stride + filterColumns, width, "the windows fit in the input row")
            let addend = (0..<pixels * columns).map { _ in Float.random(in: -1...1, using: &g) }
            // Slopes for whole panels, zeros past the last column, as the plan pads them (``EpilogueFusion``).
            let panelColumns = (columns + PackedGEMM.panelWidth - 1) / PackedGEMM.panelWidth * PackedGEMM.panelWidth
            let alpha = (0..<panelColumns).map { $0 < columns ? Float.random(in: 0...1, using: &g) : 0 }
            // Pixel p's window starts at input row 1, column p · stride: its rows copied one after another.
            let rowStep = width * channels
            var rows = [Float](repeating: 0, count: pixels * depth)
            for p in 0..<pixels {
                for ky in 0..<filterRows {
                    for k in 0..<filterColumns * channels {
                        rows[p * depth + ky * filterColumns * channels + k] = input[(1 + ky) * rowStep + p * stride * channels + k]
                    }
                }
            }
            for (label, config) in configs {
                let gemm = PackedGEMM(weights: w, bias: bias, columns: columns, depth: depth, kernels: config)
                guard gemm.takesWindows else { continue }
                windowRuns += 1
                assertSameBits(gemm, copied: rows, rows: pixels, addend: addend, alpha: alpha,
                               "\(label), \(filterRows)×\(filterColumns)×\(channels) stride \(stride)") { epilogue, c in
                    input.withUnsafeBufferPointer { input in
                        gemm.runWindows(a: input.baseAddress! + rowStep, lda: stride * channels, groups: groups,
                                        windows: ConvolutionWindows(segments: filterRows, segmentLength: filterColumns * channels,
                                                                    segmentStride: rowStep),
                                        c: c, ldc: columns, activation: .none, epilogue: epilogue)
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(windowRuns, 8, "the build's own tiles take windows")
        // What keeps the gathered rows: the AVX-512 tiers' panel pairs.
        XCTAssertFalse(PackedGEMM(weights: [Float](repeating: 0, count: 32 * 9), bias: [Float](repeating: 0, count: 32), columns: 32, depth: 9,
                                  kernels: KernelConfig(tier: .avx512)).takesWindows)
    }

    /// Rows read through pointers (``PackedGEMM/runPointers(rows:segments:segmentLength:c:ldc:activation:epilogue:panels:fill:)``,
    /// the convolutions whose windows the window tile does not take) give, bit for bit, what the tiles give over the
    /// same rows copied one after another — through the Swift tiles of this build and the C tiles of every tier this
    /// CPU dispatches to that take pointers — with an epilogue (a residual, a clamp, PReLU slopes, SiLU) per tile.
    /// Runs scattered over a buffer (no two rows' runs adjacent, as pointers into an input or into gathered patches
    /// are), one segment and several, short and long runs; row counts with a partial last group (1–5 rows) and
    /// whole ones; whole panels, a partial last panel and a half panel alone; the product in two calls of a range of
    /// panels each, as two threads share a product of few rows.
    func testRowsReadThroughPointersEqualTheirRowsCopied() {
        var g = QuantizedMicroKernelTests.Generator(seed: 67)
        let configs = tileConfigurations()
        var pointerRuns = 0
        for (segments, length, rows, columns) in [(3, 48, 12, 32), (9, 16, 7, 16), (3, 9, 13, 27), (1, 40, 6, 40), (5, 20, 11, 8),
                                                  (9, 3, 5, 16), (2, 64, 1, 48), (3, 96, 13, 72)] {
            let depth = segments * length
            // Run s of row r at a scattered place in `pool`: rows' runs in shuffled order with gaps between them.
            let slots = (0..<rows * segments).shuffled(using: &g)
            let pool = (0..<rows * segments * (length + 5)).map { _ in Float.random(in: -1...1, using: &g) }
            func offset(_ row: Int, _ segment: Int) -> Int { slots[row * segments + segment] * (length + 5) + 2 }
            var copied = [Float](repeating: 0, count: rows * depth)
            for r in 0..<rows {
                for s in 0..<segments {
                    for k in 0..<length { copied[r * depth + s * length + k] = pool[offset(r, s) + k] }
                }
            }
            let w = (0..<columns * depth).map { _ in Float.random(in: -1...1, using: &g) }
            let bias = (0..<columns).map { _ in Float.random(in: -1...1, using: &g) }
            let addend = (0..<rows * columns).map { _ in Float.random(in: -1...1, using: &g) }
            let panelColumns = (columns + PackedGEMM.panelWidth - 1) / PackedGEMM.panelWidth * PackedGEMM.panelWidth
            let alpha = (0..<panelColumns).map { $0 < columns ? Float.random(in: 0...1, using: &g) : 0 }
            for (label, config) in configs {
                let gemm = PackedGEMM(weights: w, bias: bias, columns: columns, depth: depth, kernels: config)
                guard gemm.takesPointers else { continue }
                pointerRuns += 1
                let whole = [0..<gemm.panelCount], halves = [0..<gemm.panelCount / 2, gemm.panelCount / 2..<gemm.panelCount]
                for calls in gemm.panelCount > 1 ? [whole, halves] : [whole] {
                    assertSameBits(gemm, copied: copied, rows: rows, addend: addend, alpha: alpha,
                                   "\(label), \(segments) runs of \(length), \(rows) rows × \(columns), panels \(calls)") { epilogue, c in
                        pool.withUnsafeBufferPointer { pool in
                            for panels in calls {
                                gemm.runPointers(rows: rows, segments: segments, segmentLength: length, c: c, ldc: columns,
                                                 activation: .none, epilogue: epilogue, panels: panels) { first, count, table in
                                    for r in 0..<6 {
                                        for s in 0..<segments { table[s * 6 + r] = pool.baseAddress! + offset(first + min(r, count - 1), s) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(pointerRuns, 8, "the build's own tiles take pointers")
        XCTAssertFalse(PackedGEMM(weights: [Float](repeating: 0, count: 32 * 9), bias: [Float](repeating: 0, count: 32), columns: 32, depth: 9,
                                  kernels: KernelConfig(tier: .avx512)).takesPointers)
    }
}
