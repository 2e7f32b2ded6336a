import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

/// C = requantize(A · Wᵀ + bias) for quantized convolutions and fully connected layers: A row-major [M × K] int16
/// holding the input less its zero point (so padding is 0, as the zero point is), W the filter less its zero point,
/// packed at load into ``WeightPanels`` of 16 columns × depth pairs.
///
/// The accumulator is exact int32 — what XNNPACK and TFLite compute — however the products are grouped; only the
/// requantization rounds (``Requantization``, XNNPACK's fp32 scheme, per output column). Each tile step keeps a 4 × 16
/// block of C in eight SIMD8<Int32> accumulators and takes two depth steps at once: per row one broadcast of an A
/// pair, per 8 columns one `vpmaddwd` (``SIMD8/accumulatePairs(_:_:)``) — XNNPACK's AVX2 qu8 GEMMs widen to int16 and
/// multiply-add pairs the same way.
struct QuantizedGEMM: Sendable {
    static let panelWidth = WeightPanels.width
    static let tileRows = KernelConfig.quantizedPairTileRows
    /// int16 weights, pairs of depth steps per column.
    let panels: [Int16]
    /// Bias per column, padded to whole panels.
    let bias: [Int32]
    /// Requantization scale per column (input scale × filter scale / output scale), padded to whole panels.
    let scales: [Float]
    /// Depth padded to even: the length of A's rows the tiles read (the pad column must hold 0).
    let depth: Int
    let columns: Int
    /// The CPU's tier's C tiles that run in place of the Swift ones (``KernelConfig/quantizedGEMMTiles``), or nil.
    let tiles: QuantizedGEMMTiles?
    var panelCount: Int { (columns + Self.panelWidth - 1) / Self.panelWidth }

    /// - Parameters:
    ///   - weights: row-major [columns × depth] filter values less their zero point.
    ///   - scales: one per column.
    ///   - tiles: C tiles to run instead of the Swift ones.
    init(weights: [Int16], bias: [Int32], scales: [Float], columns: Int, depth: Int, tiles: QuantizedGEMMTiles? = nil) {
        self.columns = columns
        self.tiles = tiles
        self.depth = WeightPanels.paddedDepth(depth, group: 2)
        panels = WeightPanels.pack(columns: columns, depth: depth, group: 2, zero: 0) { weights[$0 * depth + $1] }
        let padded = (columns + Self.panelWidth - 1) / Self.panelWidth * Self.panelWidth
        self.bias = bias + Array(repeating: 0, count: padded - columns)
        self.scales = scales + Array(repeating: 0, count: padded - columns)
    }

    /// Computes rows `rows` of C for columns in whole panels `panelRange` (all by default). `lda` and `ldc` in elements.
    func run<Output: QuantizedElement>(a: UnsafePointer<Int16>, lda: Int, rows: Range<Int>, c: UnsafeMutablePointer<Output>,
                                       ldc: Int, requantization: Requantization, panels panelRange: Range<Int>? = nil) {
        let panelRange = panelRange ?? 0..<panelCount
        if let tiles {
            return runTiles(tiles, a: a, lda: lda, rows: rows, c: c, ldc: ldc, requantization: requantization, panels: panelRange)
        }
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                scales.withUnsafeBufferPointer { scales in
                    // A last panel of 8 columns or fewer (24, 40, 8 output channels) goes through the half-width
                    // tile: the full one would spend half its multiply-adds on padding.
                    let last = panelRange.upperBound - 1
                    let halfPanel = panelRange.isEmpty || columns - last * Self.panelWidth > 8 ? nil : last
                    let fullPanels = panelRange.lowerBound..<(halfPanel ?? panelRange.upperBound)
                    var r = rows.lowerBound
                    while r < rows.upperBound, !fullPanels.isEmpty {
                        let count = min(Self.tileRows, rows.upperBound - r)
                        for panel in fullPanels {
                            tile(a + r * lda, lda, panels.baseAddress! + panel * depth * Self.panelWidth,
                                 bias.baseAddress! + panel * Self.panelWidth, scales.baseAddress! + panel * Self.panelWidth,
                                 c + r * ldc + panel * Self.panelWidth, ldc,
                                 width: min(Self.panelWidth, columns - panel * Self.panelWidth), rows: count, requantization)
                        }
                        r += count
                    }
                    if let panel = halfPanel {
                        var r = rows.lowerBound
                        while r < rows.upperBound {
                            let count = min(8, rows.upperBound - r)
                            halfTile(a + r * lda, lda, panels.baseAddress! + panel * depth * Self.panelWidth,
                                     bias.baseAddress! + panel * Self.panelWidth, scales.baseAddress! + panel * Self.panelWidth,
                                     c + r * ldc + panel * Self.panelWidth, ldc, width: columns - panel * Self.panelWidth,
                                     rows: count, requantization)
                            r += count
                        }
                    }
                }
            }
        }
    }

    /// ``run(a:lda:rows:c:ldc:requantization:panels:)`` through the C tiles: the same tiling (4 × 16 tiles, the last
    /// panel of 8 columns or fewer through 8 × 8 ones), each tile a call.
    private func runTiles<Output: QuantizedElement>(_ tiles: QuantizedGEMMTiles, a: UnsafePointer<Int16>, lda: Int, rows: Range<Int>,
                                                    c: UnsafeMutablePointer<Output>, ldc: Int, requantization: Requantization,
                                                    panels panelRange: Range<Int>) {
        guard let tile = tiles.table.pointee.pairs_4x16, let halfTile = tiles.table.pointee.pairs_8x8 else { return }
        var parameters = requantization.microKernelParameters(signed: Output.isSigned)
        let width = Self.panelWidth
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                scales.withUnsafeBufferPointer { scales in
                    let last = panelRange.upperBound - 1
                    let halfPanel = panelRange.isEmpty || columns - last * width > 8 ? nil : last
                    let fullPanels = panelRange.lowerBound..<(halfPanel ?? panelRange.upperBound)
                    var r = rows.lowerBound
                    while r < rows.upperBound, !fullPanels.isEmpty {
                        let count = min(Self.tileRows, rows.upperBound - r)
                        for panel in fullPanels {
                            tile(count, depth, a + r * lda, lda, panels.baseAddress! + panel * depth * width, bias.baseAddress! + panel * width,
                                 scales.baseAddress! + panel * width, &parameters, c + r * ldc + panel * width, ldc,
                                 min(width, columns - panel * width))
                        }
                        r += count
                    }
                    if let panel = halfPanel {
                        var r = rows.lowerBound
                        while r < rows.upperBound {
                            let count = min(8, rows.upperBound - r)
                            halfTile(count, depth, a + r * lda, lda, panels.baseAddress! + panel * depth * width, bias.baseAddress! + panel * width,
                                     scales.baseAddress! + panel * width, &parameters, c + r * ldc + panel * width, ldc, columns - panel * width)
                            r += count
                        }
                    }
                }
            }
        }
    }

    /// A 4 × 16 tile; missing rows repeat the last one and are not stored.
    @inline(__always)
    private func tile<Output: QuantizedElement>(_ a: UnsafePointer<Int16>, _ lda: Int, _ w: UnsafePointer<Int16>,
                                                _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>,
                                                _ c: UnsafeMutablePointer<Output>, _ ldc: Int, width: Int, rows: Int,
                                                _ requantization: Requantization) {
        let a0 = UnsafeRawPointer(a)
        let a1 = UnsafeRawPointer(a + min(1, rows - 1) * lda)
        let a2 = UnsafeRawPointer(a + min(2, rows - 1) * lda)
        let a3 = UnsafeRawPointer(a + min(3, rows - 1) * lda)
        let weights = UnsafeRawPointer(w)
        var c00 = SIMD8<Int32>(), c01 = SIMD8<Int32>(), c10 = SIMD8<Int32>(), c11 = SIMD8<Int32>()
        var c20 = SIMD8<Int32>(), c21 = SIMD8<Int32>(), c30 = SIMD8<Int32>(), c31 = SIMD8<Int32>()
        var offset = 0, weightOffset = 0
        let end = depth * 2
        while offset < end {
            let w0 = weights.loadUnaligned(fromByteOffset: weightOffset, as: SIMD16<Int16>.self)
            let w1 = weights.loadUnaligned(fromByteOffset: weightOffset + 32, as: SIMD16<Int16>.self)
            let p0 = broadcastPair(a0, offset), p1 = broadcastPair(a1, offset), p2 = broadcastPair(a2, offset), p3 = broadcastPair(a3, offset)
            c00.accumulatePairs(p0, w0); c01.accumulatePairs(p0, w1)
            c10.accumulatePairs(p1, w0); c11.accumulatePairs(p1, w1)
            c20.accumulatePairs(p2, w0); c21.accumulatePairs(p2, w1)
            c30.accumulatePairs(p3, w0); c31.accumulatePairs(p3, w1)
            offset += 4
            weightOffset += 64
        }
        let b0 = UnsafeRawPointer(bias).loadUnaligned(as: SIMD8<Int32>.self)
        let b1 = UnsafeRawPointer(bias + 8).loadUnaligned(as: SIMD8<Int32>.self)
        let s0 = UnsafeRawPointer(scales).loadUnaligned(as: SIMD8<Float>.self)
        let s1 = UnsafeRawPointer(scales + 8).loadUnaligned(as: SIMD8<Float>.self)
        let out = RequantizedStore<Output>(requantization)
        out.store(c00 &+ b0, c01 &+ b1, s0, s1, c, width)
        if rows > 1 { out.store(c10 &+ b0, c11 &+ b1, s0, s1, c + ldc, width) }
        if rows > 2 { out.store(c20 &+ b0, c21 &+ b1, s0, s1, c + 2 * ldc, width) }
        if rows > 3 { out.store(c30 &+ b0, c31 &+ b1, s0, s1, c + 3 * ldc, width) }
    }
}

extension QuantizedGEMM {
    /// An 8 × 8 tile for a panel's first 8 columns: eight rows keep eight independent multiply-add chains, as the full
    /// tile's 4 × 16 does, at half the columns. Missing rows repeat the last one and are not stored.
    @inline(__always)
    func halfTile<Output: QuantizedElement>(_ a: UnsafePointer<Int16>, _ lda: Int, _ w: UnsafePointer<Int16>,
                                            _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>,
                                            _ c: UnsafeMutablePointer<Output>, _ ldc: Int, width: Int, rows: Int,
                                            _ requantization: Requantization) {
        @inline(__always) func row(_ i: Int) -> UnsafeRawPointer { UnsafeRawPointer(a + min(i, rows - 1) * lda) }
        let a0 = row(0), a1 = row(1), a2 = row(2), a3 = row(3), a4 = row(4), a5 = row(5), a6 = row(6), a7 = row(7)
        let weights = UnsafeRawPointer(w)
        var c0 = SIMD8<Int32>(), c1 = SIMD8<Int32>(), c2 = SIMD8<Int32>(), c3 = SIMD8<Int32>()
        var c4 = SIMD8<Int32>(), c5 = SIMD8<Int32>(), c6 = SIMD8<Int32>(), c7 = SIMD8<Int32>()
        var offset = 0, weightOffset = 0
        let end = depth * 2
        while offset < end {
            let w0 = weights.loadUnaligned(fromByteOffset: weightOffset, as: SIMD16<Int16>.self)
            c0.accumulatePairs(broadcastPair(a0, offset), w0); c1.accumulatePairs(broadcastPair(a1, offset), w0)
            c2.accumulatePairs(broadcastPair(a2, offset), w0); c3.accumulatePairs(broadcastPair(a3, offset), w0)
            c4.accumulatePairs(broadcastPair(a4, offset), w0); c5.accumulatePairs(broadcastPair(a5, offset), w0)
            c6.accumulatePairs(broadcastPair(a6, offset), w0); c7.accumulatePairs(broadcastPair(a7, offset), w0)
            offset += 4
            weightOffset += 64
        }
        let b = UnsafeRawPointer(bias).loadUnaligned(as: SIMD8<Int32>.self)
        let s = UnsafeRawPointer(scales).loadUnaligned(as: SIMD8<Float>.self)
        let out = RequantizedStore<Output>(requantization)
        out.store(c0 &+ b, s, c, width: width)
        if rows > 1 { out.store(c1 &+ b, s, c + ldc, width: width) }
        if rows > 2 { out.store(c2 &+ b, s, c + 2 * ldc, width: width) }
        if rows > 3 { out.store(c3 &+ b, s, c + 3 * ldc, width: width) }
        if rows > 4 { out.store(c4 &+ b, s, c + 4 * ldc, width: width) }
        if rows > 5 { out.store(c5 &+ b, s, c + 5 * ldc, width: width) }
        if rows > 6 { out.store(c6 &+ b, s, c + 6 * ldc, width: width) }
        if rows > 7 { out.store(c7 &+ b, s, c + 7 * ldc, width: width) }
    }
}

/// One row's pair of depth steps at byte `offset` (4-aligned: rows and pairs are whole int16 pairs) in all eight lanes.
/// Transparent: as a nested function the half tile called the standard library's generic `loadUnaligned` out of line
/// for every broadcast (2.5 % of SSD's time at one thread).
@_transparent
func broadcastPair(_ row: UnsafeRawPointer, _ offset: Int) -> SIMD16<Int16> {
    unsafeBitCast(SIMD8<UInt32>(repeating: row.load(fromByteOffset: offset, as: UInt32.self)), to: SIMD16<Int16>.self)
}

/// The requantizing epilogue of the integer tiles: 16 accumulators of one output row to 16 stored elements.
struct RequantizedStore<Output: QuantizedElement> {
    let lower: SIMD8<Float>
    let upper: SIMD8<Float>
    let zeroPoint: SIMD8<Int32>
    let requantization: Requantization

    init(_ requantization: Requantization) {
        lower = SIMD8(repeating: requantization.lower)
        upper = SIMD8(repeating: requantization.upper)
        zeroPoint = SIMD8(repeating: requantization.zeroPoint)
        self.requantization = requantization
    }

    /// float × scale, clamped, rounded half to even, zero point added — ``Requantization`` on 8 lanes (lane by lane
    /// where it rounds half up).
    @inline(__always) func callAsFunction(_ accumulator: SIMD8<Int32>, _ scale: SIMD8<Float>) -> SIMD8<Int32> {
        if requantization.roundsHalfUp {
            var result = SIMD8<Int32>()
            for lane in 0..<8 { result[lane] = requantization(accumulator[lane], scale: scale[lane]) }
            return result
        }
        let scaled = accumulator.floats * scale
        var clamped = scaled
        // Select per lane in x86's max/min operand order: one vmaxps and one vminps (see ActivationClamp).
        for lane in 0..<8 {
            let raised = lower[lane] > scaled[lane] ? lower[lane] : scaled[lane]
            clamped[lane] = upper[lane] < raised ? upper[lane] : raised
        }
        return clamped.roundedToInt32 &+ zeroPoint
    }

    /// ``Requantization`` on 16 lanes (one zmm register in the AVX-512 tiers), lane for lane as on 8.
    @inline(__always) func callAsFunction(_ accumulator: SIMD16<Int32>, _ scale: SIMD16<Float>) -> SIMD16<Int32> {
        if requantization.roundsHalfUp {
            return SIMD16(lowHalf: self(accumulator.lowHalf, scale.lowHalf), highHalf: self(accumulator.highHalf, scale.highHalf))
        }
        let lower = SIMD16(lowHalf: self.lower, highHalf: self.lower), upper = SIMD16(lowHalf: self.upper, highHalf: self.upper)
        let scaled = accumulator.floats * scale
        var clamped = scaled
        for lane in 0..<16 {
            let raised = lower[lane] > scaled[lane] ? lower[lane] : scaled[lane]
            clamped[lane] = upper[lane] < raised ? upper[lane] : raised
        }
        return clamped.roundedToInt32 &+ SIMD16(lowHalf: zeroPoint, highHalf: zeroPoint)
    }

    // The stores are transparent rather than @inline(__always): the optimizer kept the 16-lane one out of line in
    // the GEMM tiles (each call re-assembling the accumulators from xmm halves and reloading the bounds from
    // memory), 8.5 % of SSD's samples at one thread; inlined, SSD runs ~7 % faster, byte-identical.
    @_transparent func store(_ v0: SIMD8<Int32>, _ v1: SIMD8<Int32>, _ s0: SIMD8<Float>, _ s1: SIMD8<Float>,
                             _ c: UnsafeMutablePointer<Output>, _ width: Int) {
        let bytes = narrowToBytes(self(v0, s0), self(v1, s1), signed: Output.isSigned)
        if width == 16 {
            UnsafeMutableRawPointer(c).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
        } else {
            let out = UnsafeMutableRawPointer(c).assumingMemoryBound(to: UInt8.self)
            for lane in 0..<width { out[lane] = bytes[lane] }
        }
    }

    /// Sixteen channels from paired accumulators (``TapPairs``: `low` holds channels 0–3 and 8–11, `high` 4–7 and
    /// 12–15, and their scales likewise), stored in channel order.
    @_transparent func storePaired(_ low: SIMD8<Int32>, _ high: SIMD8<Int32>, _ lowScale: SIMD8<Float>, _ highScale: SIMD8<Float>,
                                   _ c: UnsafeMutablePointer<Output>) {
        let bytes = narrowPairedToBytes(self(low, lowScale), self(high, highScale), signed: Output.isSigned)
        UnsafeMutableRawPointer(c).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
    }

    /// Sixteen lanes in channel order (a step of the sixteen-channel depthwise loops).
    @_transparent func store(_ v: SIMD16<Int32>, _ scale: SIMD16<Float>, _ c: UnsafeMutablePointer<Output>) {
        UnsafeMutableRawPointer(c).storeBytes(of: narrowToBytes(self(v, scale), signed: Output.isSigned), as: SIMD16<UInt8>.self)
    }

    /// Eight lanes (a depthwise step).
    @_transparent func store(_ v: SIMD8<Int32>, _ scale: SIMD8<Float>, _ c: UnsafeMutablePointer<Output>) {
        let bytes = narrowToBytes(self(v, scale), .zero, signed: Output.isSigned)
        UnsafeMutableRawPointer(c).storeBytes(of: bytes.lowHalf, as: SIMD8<UInt8>.self)
    }

    /// The first `width` (≤ 8) of eight lanes: whole when 8, lane by lane otherwise (the bytes after belong to the
    /// next row, which another thread may be writing).
    @_transparent func store(_ v: SIMD8<Int32>, _ scale: SIMD8<Float>, _ c: UnsafeMutablePointer<Output>, width: Int) {
        guard width < 8 else { return store(v, scale, c) }
        let bytes = narrowToBytes(self(v, scale), .zero, signed: Output.isSigned)
        let out = UnsafeMutableRawPointer(c).assumingMemoryBound(to: UInt8.self)
        for lane in 0..<width { out[lane] = bytes[lane] }
    }
}
