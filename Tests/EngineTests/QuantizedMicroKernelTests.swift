@testable import VisionTasksEngine
import VisionTasksEngineSIMD
import VisionTasksModelMutation
import XCTest

/// The quantized GEMM micro-kernels of every tier against a scalar reference: the int32 sum of (a − z_a)(w − z_w) plus
/// the bias, computed in Int64, then ``Requantization``'s one rounding. The int16-pair tiles (``QuantizedGEMM``, the
/// AVX2 tier) and the byte-quad tiles (``QuantizedDotGEMM``, the VNNI tier: `vpdpbusd` in a VNNI build, its exact
/// emulation elsewhere) must both equal it byte for byte, over shapes that leave every kind of tail: rows past a
/// whole tile, columns past a whole panel or inside half of one, depths that are not a multiple of two or four.
/// LiteRT's own outputs for the real models are QuantizedGoldenTests' business; this finds a tail or a zero-point
/// correction that the models' shapes happen not to reach.
final class QuantizedMicroKernelTests: XCTestCase {
    /// A small deterministic generator (the mutation engine's SplitMix64), so that a failure is the same failure on
    /// every run.
    typealias Generator = SplitMix64

    struct Case: CustomStringConvertible {
        let rows: Int, columns: Int, depth: Int
        let signed: Bool
        let inputZero: Int32
        /// Per column (all equal for a per-tensor filter).
        let filterZeros: [Int32]
        let a: [Int32], w: [Int32], bias: [Int32], scales: [Float]
        let output: Quantization
        var description: String {
            "\(rows)×\(columns)×\(depth) \(signed ? "int8" : "uint8") z_a \(inputZero) z_w \(Set(filterZeros).sorted().prefix(3))"
        }
    }

    static func makeCase(rows: Int, columns: Int, depth: Int, signed: Bool, perChannel: Bool, _ g: inout Generator) -> Case {
        let range: ClosedRange<Int32> = signed ? -128...127 : 0...255
        let filterZeros: [Int32]
        if signed {
            filterZeros = Array(repeating: 0, count: columns)  // TFLite's int8 filters are symmetric
        } else if perChannel {
            filterZeros = (0..<columns).map { _ in Int32.random(in: range, using: &g) }
        } else {
            // 128 needs no row sums (W₀ = 0); any other value does.
            let z: Int32 = Bool.random(using: &g) ? 128 : Int32.random(in: range, using: &g)
            filterZeros = Array(repeating: z, count: columns)
        }
        let a = (0..<rows * depth).map { _ in Int32.random(in: range, using: &g) }
        let w = (0..<columns * depth).map { _ in Int32.random(in: range, using: &g) }
        let bias = (0..<columns).map { _ in Int32.random(in: -20000...20000, using: &g) }
        // Scales that spread the sums over the output range (a sum's spread grows with √depth).
        let typical = Float(128 * 128) * Float(depth).squareRoot()
        let scales = (0..<columns).map { _ in Float.random(in: 20...200, using: &g) / typical }
        let output = Quantization(scale: 1, zeroPoint: Int32.random(in: range, using: &g), range: range)
        return Case(rows: rows, columns: columns, depth: depth, signed: signed, inputZero: Int32.random(in: range, using: &g),
                    filterZeros: filterZeros, a: a, w: w, bias: bias, scales: scales, output: output)
    }

    static func reference(_ c: Case) -> [UInt8] {
        let requantization = Requantization(output: c.output, bounds: c.output.range)
        var out = [UInt8]()
        for r in 0..<c.rows {
            for n in 0..<c.columns {
                var sum = Int64(c.bias[n])
                for k in 0..<c.depth {
                    sum += Int64(c.a[r * c.depth + k] - c.inputZero) * Int64(c.w[n * c.depth + k] - c.filterZeros[n])
                }
                out.append(UInt8(truncatingIfNeeded: requantization(Int32(sum), scale: c.scales[n])))
            }
        }
        return out
    }

    /// The int16-pair tiles, fed as the convolution feeds them.
    static func pairs(_ c: Case, tiles: QuantizedGEMMTiles? = nil) -> [UInt8] {
        let weights = (0..<c.columns * c.depth).map { Int16(c.w[$0] - c.filterZeros[$0 / c.depth]) }
        let gemm = QuantizedGEMM(weights: weights, bias: c.bias, scales: c.scales, columns: c.columns, depth: c.depth, tiles: tiles)
        var a = [Int16](repeating: 0, count: c.rows * gemm.depth)
        for r in 0..<c.rows { for k in 0..<c.depth { a[r * gemm.depth + k] = Int16(c.a[r * c.depth + k] - c.inputZero) } }
        return run(c) { out in
            if c.signed {
                gemm.run(a: a, lda: gemm.depth, rows: 0..<c.rows, c: out.assumingMemoryBound(to: Int8.self), ldc: c.columns,
                         requantization: Requantization(output: c.output, bounds: c.output.range))
            } else {
                gemm.run(a: a, lda: gemm.depth, rows: 0..<c.rows, c: out.assumingMemoryBound(to: UInt8.self), ldc: c.columns,
                         requantization: Requantization(output: c.output, bounds: c.output.range))
            }
        }
    }

    /// The byte-quad tiles, fed as the convolution feeds them: bytes made unsigned, zero pad, row sums if asked for.
    static func quads(_ c: Case, firstRow: Int = 0, tiles: QuantizedGEMMTiles? = nil) -> [UInt8] {
        let weights = (0..<c.columns * c.depth).map { Int16(c.w[$0] - c.filterZeros[$0 / c.depth]) }
        let gemm = QuantizedDotGEMM(weights: weights, filterZeroPoints: c.filterZeros, signed: c.signed, inputZeroPoint: c.inputZero,
                                    bias: c.bias, scales: c.scales, columns: c.columns, depth: c.depth, tiles: tiles)
        var a = [UInt8](repeating: 0, count: c.rows * gemm.depth)
        for r in 0..<c.rows {
            for k in 0..<c.depth { a[r * gemm.depth + k] = UInt8(truncatingIfNeeded: c.a[r * c.depth + k]) ^ gemm.inputOffset }
        }
        let sums = (0..<c.rows).map { r in a.withUnsafeBufferPointer { gemm.rowSum($0.baseAddress! + r * gemm.depth, count: gemm.depth) } }
        return run(c) { out in
            sums.withUnsafeBufferPointer { sums in
                let rowSums = gemm.needsRowSums ? sums.baseAddress! : nil
                let requantization = Requantization(output: c.output, bounds: c.output.range)
                // Two calls, split at `firstRow`, as two threads' bands would be.
                for rows in [0..<firstRow, firstRow..<c.rows] where !rows.isEmpty {
                    if c.signed {
                        gemm.run(a: a, lda: gemm.depth, rowSums: rowSums, rows: rows, c: out.assumingMemoryBound(to: Int8.self),
                                 ldc: c.columns, requantization: requantization)
                    } else {
                        gemm.run(a: a, lda: gemm.depth, rowSums: rowSums, rows: rows, c: out.assumingMemoryBound(to: UInt8.self),
                                 ldc: c.columns, requantization: requantization)
                    }
                }
            }
        }
    }

    static func run(_ c: Case, _ body: (UnsafeMutableRawPointer) -> Void) -> [UInt8] {
        var out = [UInt8](repeating: 0xA5, count: c.rows * c.columns)
        out.withUnsafeMutableBytes { body($0.baseAddress!) }
        return out
    }

    func testBothTiersEqualTheScalarReference() {
        var g = Generator(seed: 33)
        var checked = 0, rowSumCases = 0
        for signed in [false, true] {
            for perChannel in [false, true] where !(signed && perChannel) {
                for (rows, columns, depth) in [(1, 1, 1), (1, 1000, 1280), (3, 16, 4), (5, 17, 3), (12, 8, 5), (13, 24, 67),
                                               (25, 40, 130), (4, 33, 27), (24, 48, 288), (7, 1, 9)] {
                    let c = Self.makeCase(rows: rows, columns: columns, depth: depth, signed: signed, perChannel: perChannel, &g)
                    let expected = Self.reference(c)
                    XCTAssertEqual(Self.pairs(c), expected, "int16 pairs, \(c)")
                    XCTAssertEqual(Self.quads(c, firstRow: rows / 3), expected, "byte quads, \(c)")
                    if c.filterZeros.contains(where: { $0 != (signed ? 0 : 128) }) { rowSumCases += 1 }
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, 30)
        // The row-sum correction must have been exercised, not only the cases that skip it.
        XCTAssertGreaterThan(rowSumCases, 5)
    }

    /// Extreme bytes and zero points: every product at its largest magnitude, the sum's wrap-free range.
    func testExtremeValues() {
        for signed in [false, true] {
            let range: ClosedRange<Int32> = signed ? -128...127 : 0...255
            for (aValue, wValue, inputZero, filterZero) in [(range.upperBound, range.upperBound, range.lowerBound, signed ? 0 : range.lowerBound),
                                                            (range.lowerBound, range.upperBound, range.upperBound, signed ? 0 : range.lowerBound),
                                                            (range.lowerBound, range.lowerBound, range.upperBound, signed ? 0 : range.upperBound)] {
                let rows = 13, columns = 17, depth = 1283
                let c = Case(rows: rows, columns: columns, depth: depth, signed: signed, inputZero: inputZero,
                             filterZeros: Array(repeating: filterZero, count: columns),
                             a: Array(repeating: aValue, count: rows * depth), w: Array(repeating: wValue, count: columns * depth),
                             bias: (0..<columns).map { Int32($0 * 1000 - 8000) }, scales: Array(repeating: 1e-6, count: columns),
                             output: Quantization(scale: 1, zeroPoint: signed ? 0 : 128, range: range))
                let expected = Self.reference(c)
                XCTAssertEqual(Self.pairs(c), expected, "int16 pairs, \(c)")
                XCTAssertEqual(Self.quads(c, firstRow: 5), expected, "byte quads, \(c)")
            }
        }
    }

    /// The compiled tier picks the quads only where `vpdpbusd` is in the build; the others keep the pairs. Where a
    /// higher tier's C tiles are dispatched (a plain build on an AVX2 or AVX-512 CPU), that tier's choice.
    func testCompiledTierChoosesItsGEMM() {
        XCTAssertEqual(KernelConfig.compiled.tier, KernelConfig.compiledTier)
        let own = KernelConfig.compiledWithoutDispatch
        XCTAssertEqual(own.quantizedGEMM, [.avx512VNNI, .neonDotProduct].contains(KernelConfig.compiledTier) ? .int8Quads : .int16Pairs)
        XCTAssertNil(own.quantizedGEMMTileTier)
        if let tier = KernelConfig.dispatchedTier {
            XCTAssertEqual(KernelConfig.compiled.quantizedGEMMTileTier, tier)
            // The C depthwise loop is the eight-channel one: an AVX-512 build keeps its sixteen-channel Swift loops.
            let eight = own.quantizedDepthwise == .eightChannels
            XCTAssertEqual(KernelConfig.compiled.quantizedDepthwiseLoopTier, eight ? tier : nil)
            XCTAssertEqual(KernelConfig.compiled.quantizedDepthwise, own.quantizedDepthwise)
            XCTAssertEqual(KernelConfig.compiled.quantizedGEMM, tier == .avx512VNNI ? .int8Quads : .int16Pairs)
        } else {
            XCTAssertEqual(KernelConfig.compiled.quantizedGEMM, own.quantizedGEMM)
            XCTAssertNil(KernelConfig.compiled.quantizedGEMMTileTier)
            XCTAssertNil(KernelConfig.compiled.quantizedDepthwiseLoopTier)
        }
        print("kernel tier of this build: \(KernelConfig.compiledTier.rawValue), quantized C tiles: \(KernelConfig.compiled.quantizedGEMMTileTier.map { $0.rawValue } ?? "none")")
    }

    /// The C tiles of every tier this CPU runs (CVisionTasksMicroKernels: what a plain build dispatches to at run time
    /// on an AVX2, AVX-512 or VNNI CPU), through the same packing and tiling as the Swift tiles, against the scalar
    /// reference byte for byte and the Swift tiles of the same GEMM. Shapes leave every tail: depths that are not a
    /// multiple of two or four, columns past a whole panel or within half of one (the 8 × 8 tile), rows fewer than a
    /// tile's and past whole tiles (12-, 4- and 1-row quad tiles), rows split into two calls as two threads' bands.
    func testDispatchedTilesEqualTheReferenceAndTheSwiftTiles() {
        let tiers = KernelConfig.dispatchableTiers
        guard !tiers.isEmpty else {
            // No C tiles for this CPU (arm64, or an x86-64 CPU without AVX2): then nothing is dispatched.
            XCTAssertNil(KernelConfig.dispatchedTier)
            return
        }
        var g = Generator(seed: 44)
        var checked = 0, quadRuns = 0
        for tier in tiers {
            var kernels = KernelConfig(tier: KernelConfig.compiledTier)
            XCTAssertTrue(kernels.dispatchQuantizedGEMM(to: tier))
            let tiles = kernels.quantizedGEMMTiles
            XCTAssertEqual(tiles?.tier, tier)
            XCTAssertEqual(kernels.quantizedGEMM, tier == .avx512VNNI ? .int8Quads : .int16Pairs)
            for signed in [false, true] {
                for perChannel in [false, true] where !(signed && perChannel) {
                    for (rows, columns, depth) in [(1, 1, 1), (1, 1000, 1280), (3, 16, 4), (5, 17, 3), (12, 8, 5), (13, 24, 67),
                                                   (25, 40, 130), (4, 33, 27), (24, 48, 288), (7, 1, 9), (2, 7, 2), (11, 30, 6),
                                                   (37, 72, 75), (1, 40, 33)] {
                        let c = Self.makeCase(rows: rows, columns: columns, depth: depth, signed: signed, perChannel: perChannel, &g)
                        let expected = Self.reference(c)
                        XCTAssertEqual(Self.pairs(c, tiles: tiles), expected, "C int16-pair tiles of \(tier), \(c)")
                        XCTAssertEqual(Self.pairs(c, tiles: tiles), Self.pairs(c), "C and Swift int16-pair tiles, \(c)")
                        if tiles?.hasQuads == true {
                            XCTAssertEqual(Self.quads(c, firstRow: rows / 3, tiles: tiles), expected, "C byte-quad tiles of \(tier), \(c)")
                            XCTAssertEqual(Self.quads(c, firstRow: 1, tiles: tiles), Self.quads(c, firstRow: 1), "C and Swift byte-quad tiles, \(c)")
                            quadRuns += 1
                        }
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 42 * tiers.count)
        XCTAssertEqual(quadRuns, tiers.contains(.avx512VNNI) ? 42 : 0)
    }

    /// Requantization at its edges, C tiles against the Swift tiles (the scalar reference rounds a NaN to 0, where both
    /// tiles' `cvtps2dq` gives 0x80000000 and the narrowing saturates): infinite, NaN, zero and huge scales as a crafted
    /// file may have them, sums far outside the output's range. The same bytes, whatever they are.
    func testDispatchedTilesEqualTheSwiftTilesAtTheEdges() {
        let tiers = KernelConfig.dispatchableTiers
        guard !tiers.isEmpty else {
            XCTAssertNil(KernelConfig.dispatchedTier)
            return
        }
        var g = Generator(seed: 45)
        var checked = 0
        for tier in tiers {
            var kernels = KernelConfig(tier: KernelConfig.compiledTier)
            XCTAssertTrue(kernels.dispatchQuantizedGEMM(to: tier))
            for signed in [false, true] {
                let base = Self.makeCase(rows: 14, columns: 21, depth: 259, signed: signed, perChannel: !signed, &g)
                let scales: [Float] = (0..<21).map { [.infinity, -.infinity, .nan, 0, 1e30, 1e-30, -1e-3, 1][$0 % 8] }
                let c = Case(rows: base.rows, columns: base.columns, depth: base.depth, signed: signed, inputZero: base.inputZero,
                             filterZeros: base.filterZeros, a: base.a, w: base.w, bias: base.bias.map { $0 &* 40_000 }, scales: scales,
                             output: base.output)
                XCTAssertEqual(Self.pairs(c, tiles: kernels.quantizedGEMMTiles), Self.pairs(c), "C and Swift int16-pair tiles of \(tier), \(c)")
                if kernels.quantizedGEMMTiles?.hasQuads == true {
                    XCTAssertEqual(Self.quads(c, firstRow: 4, tiles: kernels.quantizedGEMMTiles), Self.quads(c, firstRow: 4),
                                   "C and Swift byte-quad tiles of \(tier), \(c)")
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 2 * tiers.count)
    }
}

/// The byte-table lookup the quantized one-input functions run (``ByteLookup``: `vpshufb` on sixteen XORed slices in
/// a tuned x86-64 build, one byte at a time elsewhere; and the C loop of every tier this CPU runs, which a plain
/// build dispatches to) gives every byte its table entry: every byte value in every lane of a vector, runs that start
/// anywhere and end with tails of 0–31 bytes, random tables and the identity.
final class ByteLookupTests: XCTestCase {
    func testEveryByteGetsItsEntry() {
        // The build's own loop (nil), then each C loop this CPU runs.
        let loops: [ByteLookupLoop?] = [nil] + KernelConfig.Tier.allCases.filter(KernelConfig.cpuRuns).compactMap(ByteLookupLoop.init(tier:))
        #if arch(x86_64)
        XCTAssertGreaterThan(loops.count, 1, "this x86-64 CPU runs AVX2 (the suite needs it)")
        #endif
        for loop in loops { check(loop) }
    }

    private func check(_ loop: ByteLookupLoop?) {
        func apply(_ lookup: ByteLookup, _ x: UnsafePointer<UInt8>, _ y: UnsafeMutablePointer<UInt8>, count: Int) {
            if let loop { loop.apply(lookup, x, y, count: count) } else { lookup.apply(x, y, count: count) }
        }
        var g = SplitMix64(seed: 43)
        let tables: [[UInt8]] = [(0...255).map { UInt8($0) }] + (0..<6).map { _ in (0...255).map { _ in UInt8.random(in: 0...255, using: &g) } }
        for table in tables {
            let lookup = ByteLookup { table[Int($0)] }
            XCTAssertEqual(lookup.table, table)
            // Every byte at every lane: 256 runs of 32 + 31 bytes, byte v at lane (v + shift) % 32.
            for shift in 0..<32 {
                let input = (0..<(256 + 31)).map { UInt8(truncatingIfNeeded: $0 &+ shift) }
                var output = [UInt8](repeating: 0, count: input.count)
                input.withUnsafeBufferPointer { x in
                    output.withUnsafeMutableBufferPointer { y in apply(lookup, x.baseAddress!, y.baseAddress!, count: x.count) }
                }
                XCTAssertEqual(output, input.map { table[Int($0)] }, "shift \(shift), \(loop.map { "C loop \($0.tier)" } ?? "Swift")")
            }
            // Starts and lengths that leave every tail, in place.
            for start in 0..<4 {
                for count in [0, 1, 31, 32, 33, 63, 64, 95] {
                    var bytes = (0..<(start + count + 4)).map { _ in UInt8.random(in: 0...255, using: &g) }
                    let expected = bytes.enumerated().map { $0.offset >= start && $0.offset < start + count ? table[Int($0.element)] : $0.element }
                    bytes.withUnsafeMutableBufferPointer { b in
                        apply(lookup, b.baseAddress! + start, b.baseAddress! + start, count: count)
                    }
                    XCTAssertEqual(bytes, expected, "start \(start), count \(count), \(loop.map { "C loop \($0.tier)" } ?? "Swift")")
                }
            }
        }
    }
}
