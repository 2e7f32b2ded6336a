import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

/// C = requantize(A · Wᵀ + bias) for quantized convolutions and fully connected layers in the AVX-512 VNNI and NEON
/// dot-product tiers: A and W as bytes, four depth steps multiplied and added per int32 lane by one `vpdpbusd` or
/// `sdot` lane (``SIMD16/accumulateQuads(_:_:)``), 64 multiply-adds an instruction where ``QuantizedGEMM``'s
/// `vpmaddwd` does 16 (`sdot`: 16 where NEON's widening multiply-adds do 8).
///
/// The instructions take the stored bytes as they are, not less their zero points, so the zero points are corrected
/// around them, as XNNPACK's VNNI and NEONDOT kernels do. Let A′ = the input's bytes in the range the instruction
/// takes (``quadsTakeSignedBytes``): unsigned for `vpdpbusd` (uint8 as stored; int8 with the sign bit flipped,
/// + 128), signed for `sdot` (int8 as stored; uint8 with the sign bit flipped, − 128); W′ = the filter's bytes made
/// signed (int8 as stored; uint8 − 128), A₀ = the input's zero point in A′'s terms and W₀ = the filter zero point's
/// distance from W′'s (128 − z for uint8, −z for int8).
/// Then over a column's K depth steps
///
///     Σ (a − z_a)(w − z_w) = Σ A′W′ + W₀ · Σ A′ − A₀ · Σ W′ − K · A₀ · W₀
///
/// The last two terms are constants of the column and go into the bias at load; W₀ · Σ A′ needs one sum of each row
/// of A, which the caller computes with the row (``rowSums(_:count:)``) — only where some W₀ is not 0: never for int8
/// filters, whose zero point is 0, nor for uint8 ones whose zero point is 128. Every step is int32 arithmetic that
/// wraps, so the sum is exact whenever the true one fits in int32, as LiteRT's and XNNPACK's are: the outputs are
/// byte-identical to ``QuantizedGEMM``'s, and only the requantization rounds (``Requantization``).
struct QuantizedDotGEMM: Sendable {
    static let panelWidth = WeightPanels.width
    static let tileRows = KernelConfig.quantizedQuadTileRows
    /// Whether A′ is the input's bytes with the sign bit flipped: where the input's signedness is not the
    /// instruction's (``quadsTakeSignedBytes``).
    /// W′, quads of depth steps per column (``WeightPanels`` with group 4), padded with zeros.
    let panels: [Int8]
    /// The bias less A₀ · Σ W′ and K · A₀ · W₀ per column, padded to whole panels.
    let bias: [Int32]
    /// Requantization scale per column, padded to whole panels.
    let scales: [Float]
    /// W₀ per column, padded to whole panels; nil when every column's is 0 (no row sums needed).
    let rowSumFactors: [Int32]?
    /// Depth padded to a multiple of four: the length of A's rows the tiles read (the pad bytes must hold 0).
    let depth: Int
    let columns: Int
    /// Added to an input byte to make it A′ (0 or 128: flipping the sign bit), as `UInt8(truncatingIfNeeded:)` of the sum.
    let inputOffset: UInt8
    /// A₀: the input's zero point as A′, what padding reads as.
    let inputZero: UInt8
    /// The VNNI tier's C tiles that run in place of the Swift ones (``KernelConfig/quantizedGEMMTiles``), or nil.
    let tiles: QuantizedGEMMTiles?
    var panelCount: Int { (columns + Self.panelWidth - 1) / Self.panelWidth }
    var needsRowSums: Bool { rowSumFactors != nil }

    /// - Parameters:
    ///   - weights: row-major [columns × depth] filter values less their zero point (``QuantizedLayer/weights``).
    ///   - filterZeroPoints: one per column.
    ///   - signed: int8 tensors rather than uint8.
    init(weights: [Int16], filterZeroPoints: [Int32], signed: Bool, inputZeroPoint: Int32, bias: [Int32], scales: [Float],
         columns: Int, depth: Int, tiles: QuantizedGEMMTiles? = nil) {
        self.columns = columns
        self.tiles = tiles.flatMap { $0.hasQuads ? $0 : nil }
        self.depth = WeightPanels.paddedDepth(depth, group: 4)
        // Wrapping arithmetic throughout: the zero points come from the file; a crafted one makes wrong numbers,
        // never a trap, and real ones keep every value in range.
        let weightOffset: Int32 = signed ? 0 : 128
        let flipped = signed != quadsTakeSignedBytes
        inputOffset = flipped ? 128 : 0
        let a0 = inputZeroPoint &+ (flipped ? (signed ? 128 : -128) : 0)
        inputZero = UInt8(truncatingIfNeeded: a0)
        // W′ = w − 128 for uint8 (w = weight + z), w for int8: in −128…127 for any stored byte.
        func shifted(_ column: Int, _ k: Int) -> Int8 {
            Int8(truncatingIfNeeded: Int32(weights[column * depth + k]) &+ filterZeroPoints[column] &- weightOffset)
        }
        panels = WeightPanels.pack(columns: columns, depth: depth, group: 4, zero: 0, shifted)
        let padded = (columns + Self.panelWidth - 1) / Self.panelWidth * Self.panelWidth
        var corrected = [Int32](repeating: 0, count: padded), factors = [Int32](repeating: 0, count: padded)
        for column in 0..<columns {
            var sum: Int32 = 0
            for k in 0..<depth { sum &+= Int32(shifted(column, k)) }
            let w0 = weightOffset &- filterZeroPoints[column]
            factors[column] = w0
            corrected[column] = bias[column] &- a0 &* sum &- Int32(truncatingIfNeeded: depth) &* a0 &* w0
        }
        self.bias = corrected
        self.scales = scales + Array(repeating: 0, count: padded - columns)
        rowSumFactors = factors.allSatisfy { $0 == 0 } ? nil : factors
    }

    /// ``rowSum(_:count:)`` through the C tiles' row sum where they run (the portable Swift form emulates the quads).
    func rowSum(_ row: UnsafePointer<UInt8>, count: Int) -> Int32 {
        if let sum = tiles?.table.pointee.row_sum { return sum(row, count) }
        return Self.rowSum(row, count: count)
    }

    /// Σ A′ over `count` bytes: the row sum the tiles multiply by W₀.
    static func rowSum(_ row: UnsafePointer<UInt8>, count: Int) -> Int32 {
        var sums = SIMD16<Int32>(), i = 0
        let ones = SIMD64<Int8>(repeating: 1)
        while i + 64 <= count {
            sums.accumulateQuads(UnsafeRawPointer(row + i).loadUnaligned(as: SIMD64<UInt8>.self), ones)
            i += 64
        }
        var total = sums.wrappedSum()
        while i < count { total &+= quadsTakeSignedBytes ? Int32(Int8(bitPattern: row[i])) : Int32(row[i]); i += 1 }
        return total
    }

    /// Computes rows `rows` of C for columns in whole panels `panelRange` (all by default). `lda` and `ldc` in
    /// elements; `rowSums[r]` is row r's ``rowSum(_:count:)`` when ``needsRowSums``.
    func run<Output: QuantizedElement>(a: UnsafePointer<UInt8>, lda: Int, rowSums: UnsafePointer<Int32>?, rows: Range<Int>,
                                       c: UnsafeMutablePointer<Output>, ldc: Int, requantization: Requantization,
                                       panels panelRange: Range<Int>? = nil) {
        let panelRange = panelRange ?? 0..<panelCount
        if let tiles {
            return runTiles(tiles, a: a, lda: lda, rowSums: rowSums, rows: rows, c: c, ldc: ldc, requantization: requantization,
                            panels: panelRange)
        }
        let out = RequantizedStore<Output>(requantization)
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                scales.withUnsafeBufferPointer { scales in
                    var r = rows.lowerBound
                    while r < rows.upperBound {
                        let count = min(Self.tileRows, rows.upperBound - r)
                        for panel in panelRange {
                            let column0 = panel * Self.panelWidth
                            let w = panels.baseAddress! + panel * depth * Self.panelWidth
                            // A short band (a fully connected layer's single row, a band's last rows) takes the
                            // smaller tiles: the twelve-row one would multiply its repeated rows for nothing.
                            let accumulators = count > 4 ? tile(a + r * lda, lda, w, rows: count)
                                : count > 1 ? tile4(a + r * lda, lda, w, rows: count) : tile1(a + r * lda, w)
                            let b = UnsafeRawPointer(bias.baseAddress! + column0).loadUnaligned(as: SIMD16<Int32>.self)
                            let s = UnsafeRawPointer(scales.baseAddress! + column0).loadUnaligned(as: SIMD16<Float>.self)
                            let factors = rowSumFactors.map { f in f.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress! + column0).loadUnaligned(as: SIMD16<Int32>.self) } }
                            let width = min(Self.panelWidth, columns - column0)
                            for i in 0..<count {
                                var v = accumulators[i] &+ b
                                if let factors, let rowSums { v &+= factors &* rowSums[r + i] }
                                out.store(v.lowHalf, v.highHalf, s.lowHalf, s.highHalf, c + (r + i) * ldc + column0, width)
                            }
                        }
                        r += count
                    }
                }
            }
        }
    }

    /// ``run(a:lda:rowSums:rows:c:ldc:requantization:panels:)`` through the C tiles: the same tiling, each tile a
    /// call that also adds the bias and the row-sum correction and requantizes.
    private func runTiles<Output: QuantizedElement>(_ tiles: QuantizedGEMMTiles, a: UnsafePointer<UInt8>, lda: Int,
                                                    rowSums: UnsafePointer<Int32>?, rows: Range<Int>, c: UnsafeMutablePointer<Output>,
                                                    ldc: Int, requantization: Requantization, panels panelRange: Range<Int>) {
        let table = tiles.table.pointee
        guard let tile12 = table.quads_12x16, let tile4 = table.quads_4x16, let tile1 = table.quads_1x16 else { return }
        var parameters = requantization.microKernelParameters(signed: Output.isSigned)
        let width = Self.panelWidth
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                scales.withUnsafeBufferPointer { scales in
                    let factors = rowSums == nil ? nil : rowSumFactors
                    factors.withOptionalBaseAddress { factors in
                        var r = rows.lowerBound
                        while r < rows.upperBound {
                            let count = min(Self.tileRows, rows.upperBound - r)
                            let tile = count > 4 ? tile12 : count > 1 ? tile4 : tile1
                            let sums = factors == nil ? nil : rowSums.map { $0 + r }
                            for panel in panelRange {
                                let column0 = panel * width
                                tile(count, depth, a + r * lda, lda, panels.baseAddress! + panel * depth * width, bias.baseAddress! + column0,
                                     scales.baseAddress! + column0, factors.map { $0 + column0 }, sums, &parameters,
                                     c + r * ldc + column0, ldc, min(width, columns - column0))
                            }
                            r += count
                        }
                    }
                }
            }
        }
    }

    /// Up to ``tileRows`` rows × 16 columns of A′ · W′ (missing rows repeat the last one and are not kept): per quad
    /// of depth steps one 64-byte weight load, and per row one broadcast of four bytes and one `vpdpbusd` (four `sdot`s).
    @inline(__always)
    private func tile(_ a: UnsafePointer<UInt8>, _ lda: Int, _ w: UnsafePointer<Int8>, rows: Int) -> TileAccumulators {
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { UnsafeRawPointer(a + min(i, rows - 1) * lda) }
        let a0 = row(0), a1 = row(1), a2 = row(2), a3 = row(3), a4 = row(4), a5 = row(5)
        let a6 = row(6), a7 = row(7), a8 = row(8), a9 = row(9), a10 = row(10), a11 = row(11)
        var c0 = SIMD16<Int32>(), c1 = SIMD16<Int32>(), c2 = SIMD16<Int32>(), c3 = SIMD16<Int32>()
        var c4 = SIMD16<Int32>(), c5 = SIMD16<Int32>(), c6 = SIMD16<Int32>(), c7 = SIMD16<Int32>()
        var c8 = SIMD16<Int32>(), c9 = SIMD16<Int32>(), c10 = SIMD16<Int32>(), c11 = SIMD16<Int32>()
        let weights = UnsafeRawPointer(w)
        var offset = 0
        while offset < depth {
            let wk = weights.loadUnaligned(fromByteOffset: offset &* 16, as: SIMD64<Int8>.self)
            c0.accumulateQuads(Self.quad(a0, offset), wk); c1.accumulateQuads(Self.quad(a1, offset), wk)
            c2.accumulateQuads(Self.quad(a2, offset), wk); c3.accumulateQuads(Self.quad(a3, offset), wk)
            c4.accumulateQuads(Self.quad(a4, offset), wk); c5.accumulateQuads(Self.quad(a5, offset), wk)
            c6.accumulateQuads(Self.quad(a6, offset), wk); c7.accumulateQuads(Self.quad(a7, offset), wk)
            c8.accumulateQuads(Self.quad(a8, offset), wk); c9.accumulateQuads(Self.quad(a9, offset), wk)
            c10.accumulateQuads(Self.quad(a10, offset), wk); c11.accumulateQuads(Self.quad(a11, offset), wk)
            offset &+= 4
        }
        return TileAccumulators(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11)
    }

    /// ``tile(_:_:_:rows:)`` for up to four rows.
    @inline(__always)
    private func tile4(_ a: UnsafePointer<UInt8>, _ lda: Int, _ w: UnsafePointer<Int8>, rows: Int) -> TileAccumulators {
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { UnsafeRawPointer(a + min(i, rows - 1) * lda) }
        let a0 = row(0), a1 = row(1), a2 = row(2), a3 = row(3)
        var c0 = SIMD16<Int32>(), c1 = SIMD16<Int32>(), c2 = SIMD16<Int32>(), c3 = SIMD16<Int32>()
        let weights = UnsafeRawPointer(w)
        var offset = 0
        while offset < depth {
            let wk = weights.loadUnaligned(fromByteOffset: offset &* 16, as: SIMD64<Int8>.self)
            c0.accumulateQuads(Self.quad(a0, offset), wk); c1.accumulateQuads(Self.quad(a1, offset), wk)
            c2.accumulateQuads(Self.quad(a2, offset), wk); c3.accumulateQuads(Self.quad(a3, offset), wk)
            offset &+= 4
        }
        let zero = SIMD16<Int32>()
        return TileAccumulators(c0, c1, c2, c3, zero, zero, zero, zero, zero, zero, zero, zero)
    }

    /// One row: two accumulators over alternate quads, so that consecutive `vpdpbusd`s do not wait on each other.
    @inline(__always)
    private func tile1(_ a: UnsafePointer<UInt8>, _ w: UnsafePointer<Int8>) -> TileAccumulators {
        let row = UnsafeRawPointer(a), weights = UnsafeRawPointer(w)
        var even = SIMD16<Int32>(), odd = SIMD16<Int32>()
        var offset = 0
        while offset &+ 8 <= depth {
            even.accumulateQuads(Self.quad(row, offset), weights.loadUnaligned(fromByteOffset: offset &* 16, as: SIMD64<Int8>.self))
            odd.accumulateQuads(Self.quad(row, offset &+ 4), weights.loadUnaligned(fromByteOffset: (offset &+ 4) &* 16, as: SIMD64<Int8>.self))
            offset &+= 8
        }
        if offset < depth {
            even.accumulateQuads(Self.quad(row, offset), weights.loadUnaligned(fromByteOffset: offset &* 16, as: SIMD64<Int8>.self))
        }
        let zero = SIMD16<Int32>()
        return TileAccumulators(even &+ odd, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero, zero)
    }

    /// Four bytes of a row in every lane: one broadcast (`vpbroadcastd`, or `vpdpbusd`'s own memory broadcast).
    @_transparent
    static func quad(_ row: UnsafeRawPointer, _ offset: Int) -> SIMD64<UInt8> {
        unsafeBitCast(SIMD16<UInt32>(repeating: row.loadUnaligned(fromByteOffset: offset, as: UInt32.self)), to: SIMD64<UInt8>.self)
    }
}

/// A tile's accumulators, one per row, returned by value (in registers once the tile is inlined): an array would
/// allocate on every tile of every invoke.
struct TileAccumulators {
    var c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11: SIMD16<Int32>

    @inline(__always)
    init(_ c0: SIMD16<Int32>, _ c1: SIMD16<Int32>, _ c2: SIMD16<Int32>, _ c3: SIMD16<Int32>, _ c4: SIMD16<Int32>,
         _ c5: SIMD16<Int32>, _ c6: SIMD16<Int32>, _ c7: SIMD16<Int32>, _ c8: SIMD16<Int32>, _ c9: SIMD16<Int32>,
         _ c10: SIMD16<Int32>, _ c11: SIMD16<Int32>) {
        (self.c0, self.c1, self.c2, self.c3, self.c4, self.c5) = (c0, c1, c2, c3, c4, c5)
        (self.c6, self.c7, self.c8, self.c9, self.c10, self.c11) = (c6, c7, c8, c9, c10, c11)
    }

    @inline(__always)
    subscript(row: Int) -> SIMD16<Int32> {
        switch row {
        case 0: c0
        case 1: c1
        case 2: c2
        case 3: c3
        case 4: c4
        case 5: c5
        case 6: c6
        case 7: c7
        case 8: c8
        case 9: c9
        case 10: c10
        default: c11
        }
    }
}

extension Optional where Wrapped == [Int32] {
    /// The array's base address, or nil, for the length of `body`.
    @inline(__always)
    func withOptionalBaseAddress<Result>(_ body: (UnsafePointer<Int32>?) -> Result) -> Result {
        guard let array = self else { return body(nil) }
        return array.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
