import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

/// C = A · Wᵀ + bias, activated, for A row-major [M × K] and weights packed at load into panels of 16 output
/// columns: XNNPACK's micro-kernel layout. Each step keeps a 6 × 16 tile of C in twelve SIMD8 registers and
/// streams K: per k, two weight loads, six broadcasts, twelve fused multiply-adds. Twelve accumulators because
/// Zen 2 and Haswell retire two FMAs per cycle with a latency of 5 and 4 cycles: fewer than ten independent
/// chains leave the FMA units idle (the 4 × 16 tile we had peaked at 80 % of the sgemm ceiling). Twelve
/// accumulators, two weight vectors and one broadcast use 15 of the 16 AVX registers.
///
/// Small convolutions (the mobile models' 1×1 layers with 8–600 channels) run several times faster this way than
/// through a general sgemm, whose packing and blocking only pay off on large matrices.
struct PackedGEMM: Sendable {
    static let panelWidth = WeightPanels.width
    /// Panels of `depth` rows × 16 columns, zero-padded past `columns`.
    let panels: [Float]
    /// Bias padded to whole panels.
    let bias: [Float]
    let depth: Int
    let columns: Int
    /// Whether pairs of whole panels go through the AVX-512 tier's 8 × 32 tile (``KernelConfig/floatGEMM``).
    let wideTiles: Bool
    /// The C tiles of the CPU's tier that run in place of the Swift tiles below (``KernelConfig/floatGEMMTiles``), or
    /// nil: the Swift tiles, the reference, compiled for the build's tier.
    let tiles: FloatGEMMTiles?
    var panelCount: Int { (columns + Self.panelWidth - 1) / Self.panelWidth }

    /// Whether a product packed for `kernels` takes pairs of panels through the wide tile (``wideTiles``).
    static func wideTiles(_ kernels: KernelConfig) -> Bool {
        kernels.floatGEMM == .wideTiles && (kernels.floatGEMMTiles?.hasWideTile ?? true)
    }

    /// - Parameter weights: row-major [columns × depth] (TFLite's [out, in] / OHWI layout).
    init(weights: [Float], bias: [Float], columns: Int, depth: Int, kernels: KernelConfig = .compiled) {
        self.depth = depth
        tiles = kernels.floatGEMMTiles
        wideTiles = Self.wideTiles(kernels)
        self.columns = columns
        let panelCount = (columns + Self.panelWidth - 1) / Self.panelWidth
        panels = WeightPanels.pack(columns: columns, depth: depth, group: 1, zero: 0) { weights[$0 * depth + $1] }
        var padded = [Float](repeating: 0, count: panelCount * Self.panelWidth)
        for i in 0..<min(columns, bias.count) { padded[i] = bias[i] }
        self.bias = padded
    }

    /// What the tiles apply after the fused activation: a tensor of C's layout added (a residual ADD), a clamp,
    /// then a per-column PReLU.
    struct Epilogue {
        /// The addend's element matching C's first, or nil.
        var addend: UnsafePointer<Float>?
        /// Elements between the addend's rows (C's ldc unless the addend is narrower).
        var addendStride: Int
        /// Columns of C that have an addend: all of them, or the first ones when the addend is the input of a PAD
        /// that only appended zero channels (the rest add zero).
        var addendColumns: Int
        var clamp: ActivationClamp
        var clamps: Bool
        /// PReLU slopes for every column, padded to whole panels; or nil.
        var alpha: UnsafePointer<Float>?
        /// Over the rows and panels computed, after the tiles and their epilogue (``Epilogue/function``).
        var function: EpilogueFunction?

        /// The same epilogue for C from its row `row` on.
        func fromRow(_ row: Int) -> Epilogue {
            var rest = self
            rest.addend = addend.map { $0 + row * addendStride }
            return rest
        }
    }

    /// Whether a float product — a convolution's gathered windows, a 1 × 1 convolution's pixels, a fully connected
    /// layer's rows: `rows` rows of `depth` values times `weightCount` weights — goes through these tiles rather than
    /// OpenBLAS's sgemm. One rule for every such product, so that a 1 × 1 convolution and the same product as a
    /// FULLY_CONNECTED take the same path.
    ///
    /// Filters that fit in L2 go through the packed tiles; larger ones through OpenBLAS, unless the product has so
    /// few rows that it is a matrix-vector one (face landmarks' 2 × 2 × 128 → 1434 head: OpenBLAS repacked its
    /// 2.9 MB of weights on every call, 0.31 ms; EfficientNetV2-B0's 1280 → 1000 classifier, one row: sgemm
    /// 0.48 ms, the 1 × 64 tile 0.08–0.10, XNNPACK 0.11), where streaming the packed panels once is best. A portable
    /// x86-64 build (no AVX2 / FMA in the target) that runs no C tiles (``KernelConfig/dispatchedTier``) leaves the
    /// rest to OpenBLAS as well — it picks its kernels for the CPU at run time, where our SIMD8 tiles run as pairs of
    /// SSE registers and spill — except products of 16 inputs per output or fewer, where OpenBLAS's packing costs more
    /// than our spills (256 × 256 × 8 → 8 with a residual: 0.93 → 0.64 ms). Where the tier's choice is OpenBLAS
    /// throughout (a build without optimization), nothing comes here.
    static func carries(weightCount: Int, depth: Int, rows: Int, kernels: KernelConfig) -> Bool {
        guard kernels.floatGEMM != .openBLAS else { return false }
        return (weightCount <= KernelConfig.packedFilterMaximumWeights && (tilesAreFast(kernels) || depth <= 16))
            || rows <= KernelConfig.matrixVectorMaximumPixels
    }

    /// Whether the tiles run at the tier's speed: the build's own Swift tiles where they are optimized for a vector
    /// tier, or dispatched C tiles (``carries(weightCount:depth:rows:kernels:)``).
    static func tilesAreFast(_ kernels: KernelConfig) -> Bool {
        kernels.floatGEMM != .openBLAS && (ownGEMMKernelsAreFast || kernels.floatGEMMTiles != nil)
    }

    /// Computes all `rows` rows of C over the threads: each thread a band of rows or, when the rows are too few to
    /// give every thread ``KernelConfig/convolutionMinimumPixelsPerThread`` of them (a classifier's head, the 8 × 8
    /// and 16 × 16 layers) and there are several panels, a range of panels over every row. Each column's sums are its
    /// own, so either split — at any thread count — gives the same bits.
    func run(a: UnsafePointer<Float>, lda: Int, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: Activation,
             epilogue: Epilogue?, parallel: Parallel) {
        let product = Product(gemm: self, a: a, lda: lda, rows: rows, c: c, ldc: ldc, activation: activation, epilogue: epilogue)
        if splitsPanels(rows: rows, parallel: parallel) {
            parallel.forEach(panelCount, ProductPanels(product: product))
        } else {
            parallel.forEach(rows, minimumPerThread: KernelConfig.convolutionMinimumPixelsPerThread, product)
        }
    }

    /// Whether `parallel`'s threads share a product of `rows` rows by ranges of panels rather than bands of rows: too
    /// few rows to give each thread ``KernelConfig/convolutionMinimumPixelsPerThread`` of them, and several panels.
    /// (A convolution whose rows are windows splits by the same rule: `Conv2DKernel`.)
    func splitsPanels(rows: Int, parallel: Parallel) -> Bool {
        parallel.threads > 1 && rows < KernelConfig.convolutionMinimumPixelsPerThread * parallel.threads && panelCount > 1
    }

    /// Bands of rows of a whole product (``run(a:lda:rows:c:ldc:activation:epilogue:parallel:)``).
    private struct Product: ParallelLoop {
        let gemm: PackedGEMM
        let a: UnsafePointer<Float>
        let lda: Int
        let rows: Int
        let c: UnsafeMutablePointer<Float>
        let ldc: Int
        let activation: Activation
        let epilogue: Epilogue?
        func run(_ band: Range<Int>) {
            gemm.run(a: a + band.lowerBound * lda, lda: lda, rows: 0..<band.count, c: c + band.lowerBound * ldc, ldc: ldc,
                     activation: activation, epilogue: epilogue?.fromRow(band.lowerBound))
        }
    }

    /// Ranges of panels over every row of a whole product.
    private struct ProductPanels: ParallelLoop {
        let product: Product
        func run(_ panels: Range<Int>) {
            let p = product
            p.gemm.run(a: p.a, lda: p.lda, rows: 0..<p.rows, c: p.c, ldc: p.ldc, activation: p.activation, panels: panels,
                       epilogue: p.epilogue)
        }
    }

    /// Computes rows `rows` of C (leading dimensions `lda`, `ldc` in elements).
    func run(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, c: UnsafeMutablePointer<Float>, ldc: Int, activation: Activation,
             panels panelRange: Range<Int>? = nil, epilogue: Epilogue? = nil) {
        // A function alone (tanh, swish) leaves the tiles nothing to do (it runs in the pass after them).
        let clamp = ActivationClamp(activation)
        let tileEpilogue = epilogue.flatMap { $0.addend != nil || $0.clamps || $0.alpha != nil ? TileEpilogue($0) : nil }
        let panelRange = panelRange ?? 0..<panelCount
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                let panels = panels.baseAddress!, bias = bias.baseAddress!
                // A row left over after tiles of six (7 × 7 = 49 rows), or a product of one row (a classifier's
                // head), would cost a whole six-row tile per panel; it goes across four panels at a time instead
                // (``singleRow``; the same bits: each column's sum is its own).
                let single = rows.count % 6 == 1 ? rows.upperBound - 1 : nil
                let rows = rows.lowerBound..<(single ?? rows.upperBound)
                if self.panels.count * 4 > Self.residentWeightBytes {
                    // Large filters: one panel over all rows keeps that panel's K × 16 weights in L1/L2 while A streams;
                    // the single row follows every four panels, while their weights are still in L2.
                    var panel = panelRange.lowerBound
                    while panel < panelRange.upperBound {
                        let group = panel..<min(panel + 4, panelRange.upperBound)
                        runPanels(group, rows, { runPanel($0, rows, a, lda, c, ldc, panels, bias, clamp, tileEpilogue) },
                                  wide: { runPanelPair($0, rows, a, lda, c, ldc, panels, bias, clamp) { column0, row, count in
                                      tileEpilogue?.panel(column0).apply(c, row: row, column: column0, ldc, rows: count, Self.panelWidth)
                                  } })
                        if let single { singleRow(single, group, a, lda, c, ldc, panels, bias, clamp, tileEpilogue) }
                        panel = group.upperBound
                    }
                } else {
                    // Small filters stay cached whole; A is the stream, so each chunk of rows is read from memory once
                    // and then reused from L1 by every panel (16→64 channels on 112 × 112: 0.70 → 0.38 ms).
                    let chunk = max(6, Self.chunkBytes / max(1, depth * 4) / 6 * 6)
                    var start = rows.lowerBound
                    while start < rows.upperBound {
                        let end = min(rows.upperBound, start + chunk)
                        runPanels(panelRange, start..<end, { runPanel($0, start..<end, a, lda, c, ldc, panels, bias, clamp, tileEpilogue) },
                                  wide: { runPanelPair($0, start..<end, a, lda, c, ldc, panels, bias, clamp) { column0, row, count in
                                      tileEpilogue?.panel(column0).apply(c, row: row, column: column0, ldc, rows: count, Self.panelWidth)
                                  } })
                        start = end
                    }
                    if let single { singleRow(single, panelRange, a, lda, c, ldc, panels, bias, clamp, tileEpilogue) }
                }
            }
        }
        let computed = panelRange.lowerBound * Self.panelWidth..<min(columns, panelRange.upperBound * Self.panelWidth)
        if activation == .tanh {
            for r in rows { activation.apply(c + r * ldc + computed.lowerBound, count: computed.count) }
        }
        if let function = epilogue?.function, !rows.isEmpty {
            function.apply(c + rows.lowerBound * ldc, rows: rows.count, rowStride: ldc, channels: computed)
        }
    }

    private static let residentWeightBytes = KernelConfig.residentWeightBytes
    private static let chunkBytes = KernelConfig.chunkBytes

    @inline(__always)
    private func runPanel(_ panel: Int, _ rows: Range<Int>, _ a: UnsafePointer<Float>, _ lda: Int, _ c: UnsafeMutablePointer<Float>,
                          _ ldc: Int, _ panels: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                          _ activation: ActivationClamp, _ output: TileEpilogue?) {
        let w = panels + panel * depth * Self.panelWidth
        let column0 = panel * Self.panelWidth
        let width = min(Self.panelWidth, columns - column0)
        let epilogue = output?.panel(column0)
        if let tiles {
            runPanel(tiles.table.pointee, w, bias + column0, rows, a, lda, c, ldc, column0, width, activation, epilogue)
            return
        }
        let b0 = UnsafeRawPointer(bias + panel * Self.panelWidth).loadUnaligned(as: SIMD8<Float>.self)
        let b1 = UnsafeRawPointer(bias + panel * Self.panelWidth + 8).loadUnaligned(as: SIMD8<Float>.self)
        var r = rows.lowerBound
        if width <= 8 {
            // The last panel of 8, 24, 40 … channels: half a panel, so half the multiply-adds; twelve rows at a time
            // for the same twelve independent accumulators as a full tile.
            while r + 12 <= rows.upperBound {
                if width == 8 {
                    halfTile12(a + r * lda, lda, w, b0, c + r * ldc + column0, ldc, width, activation)
                } else {
                    Self.throughScratch(c + r * ldc + column0, ldc, width, rows: 12) { halfTile12(a + r * lda, lda, w, b0, $0, $1, 8, activation) }
                }
                epilogue?.apply(c, row: r, column: column0, ldc, rows: 12, width)
                r += 12
            }
            while r < rows.upperBound {
                let count = min(6, rows.upperBound - r)
                if width == 8 {
                    halfTile6(a + r * lda, lda, w, b0, c + r * ldc + column0, ldc, width, activation, rows: count)
                } else {
                    Self.throughScratch(c + r * ldc + column0, ldc, width, rows: count) {
                        halfTile6(a + r * lda, lda, w, b0, $0, $1, 8, activation, rows: count)
                    }
                }
                epilogue?.apply(c, row: r, column: column0, ldc, rows: count, width)
                r += count
            }
        } else {
            // The last 1–5 rows too go through the six-row tile (its missing rows repeat the last one and are not
            // stored): one row at a time was latency-bound, and 14 × 14 = 196 rows leave four per panel.
            while r < rows.upperBound {
                let count = min(6, rows.upperBound - r)
                if width == 16 {
                    tile6(a + r * lda, lda, w, b0, b1, c + r * ldc + column0, ldc, width, activation, rows: count)
                } else {
                    Self.throughScratch(c + r * ldc + column0, ldc, width, rows: count) {
                        tile6(a + r * lda, lda, w, b0, b1, $0, $1, 16, activation, rows: count)
                    }
                }
                epilogue?.apply(c, row: r, column: column0, ldc, rows: count, width)
                r += count
            }
        }
    }

    /// ``runPanel(_:_:_:_:_:_:_:_:_:_:)`` through C tiles: the same tiles over the same rows in the same order, each
    /// the C twin of the Swift tile named beside it.
    @inline(__always)
    private func runPanel(_ tiles: vision_tasks_f32_gemm_kernels, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                          _ rows: Range<Int>, _ a: UnsafePointer<Float>, _ lda: Int, _ c: UnsafeMutablePointer<Float>, _ ldc: Int,
                          _ column0: Int, _ width: Int, _ activation: ActivationClamp, _ epilogue: TileEpilogue?) {
        let lower = activation.lower[0], upper = activation.upper[0], depth = self.depth
        var r = rows.lowerBound
        if width <= 8 {
            let tile12 = tiles.tile_12x8!, tile6 = tiles.tile_6x8!  // halfTile12, halfTile6
            while r + 12 <= rows.upperBound {
                if width == 8 {
                    tile12(12, depth, a + r * lda, lda, w, 0, bias, c + r * ldc + column0, ldc, lower, upper)
                } else {
                    Self.throughScratch(c + r * ldc + column0, ldc, width, rows: 12) { tile12(12, depth, a + r * lda, lda, w, 0, bias, $0, $1, lower, upper) }
                }
                epilogue?.apply(c, row: r, column: column0, ldc, rows: 12, width)
                r += 12
            }
            while r < rows.upperBound {
                let count = min(6, rows.upperBound - r)
                if width == 8 {
                    tile6(count, depth, a + r * lda, lda, w, 0, bias, c + r * ldc + column0, ldc, lower, upper)
                } else {
                    Self.throughScratch(c + r * ldc + column0, ldc, width, rows: count) { tile6(count, depth, a + r * lda, lda, w, 0, bias, $0, $1, lower, upper) }
                }
                epilogue?.apply(c, row: r, column: column0, ldc, rows: count, width)
                r += count
            }
        } else {
            let tile = tiles.tile_6x16!  // tile6
            while r < rows.upperBound {
                let count = min(6, rows.upperBound - r)
                if width == 16 {
                    tile(count, depth, a + r * lda, lda, w, 0, bias, c + r * ldc + column0, ldc, lower, upper)
                } else {
                    Self.throughScratch(c + r * ldc + column0, ldc, width, rows: count) { tile(count, depth, a + r * lda, lda, w, 0, bias, $0, $1, lower, upper) }
                }
                epilogue?.apply(c, row: r, column: column0, ldc, rows: count, width)
                r += count
            }
        }
    }

    /// A tile of a partial panel (channel counts that are not multiples of 8: BlazeFace's 28, 36, 42): `tile` stores
    /// whole vectors into a scratch tile on the stack (its C and ldc), then `width` columns of each row are copied
    /// out four at a time. The tiles' own stores went lane by lane for these, which cost such a convolution a
    /// fifth of its time; teaching the tiles partial stores instead made their code larger and every full panel
    /// some 3 % slower (pose detector, counted in instructions).
    @inline(never)
    static func throughScratch(_ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ width: Int, rows: Int,
                                       _ tile: (UnsafeMutablePointer<Float>, Int) -> Void) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 12 * panelWidth) { buffer in
            let scratch = buffer.baseAddress!
            tile(scratch, panelWidth)
            for row in 0..<rows {
                let from = UnsafeRawPointer(scratch + row &* panelWidth), to = c + row &* ldc
                if width > 8 {
                    UnsafeMutableRawPointer(to).storeBytes(of: from.loadUnaligned(as: SIMD8<Float>.self), as: SIMD8<Float>.self)
                    storePartial(from.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self), to + 8, width &- 8)
                } else {
                    storePartial(from.loadUnaligned(as: SIMD8<Float>.self), to, width)
                }
            }
        }
    }

    /// Row `row` of C over `panelRange`: four whole panels at a time (eight accumulators, one broadcast per k), the
    /// rest through the six-row tiles. Eight chains of FMAs at latency 5 keep the FMA units 80 % busy on a row
    /// that a six-row tile would run at a sixth of that.
    private func singleRow(_ row: Int, _ panelRange: Range<Int>, _ a: UnsafePointer<Float>, _ lda: Int, _ c: UnsafeMutablePointer<Float>,
                           _ ldc: Int, _ panels: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                           _ activation: ActivationClamp, _ output: TileEpilogue?) {
        let wholePanelsEnd = min(panelRange.upperBound, columns / Self.panelWidth)
        var panel = panelRange.lowerBound
        while panel + 4 <= wholePanelsEnd {
            let column0 = panel * Self.panelWidth
            if let tiles {
                tiles.table.pointee.row_1x64!(1, depth, a + row * lda, lda, panels + panel * depth * Self.panelWidth, depth * Self.panelWidth,
                                              bias + column0, c + row * ldc + column0, ldc, activation.lower[0], activation.upper[0])
            } else {
                rowTile4(a + row * lda, panels + panel * depth * Self.panelWidth, bias + column0, c + row * ldc + column0, activation)
            }
            if let output {
                for p in 0..<4 { output.panel(column0 + p * Self.panelWidth).apply(c, row: row, column: column0 + p * Self.panelWidth, ldc, rows: 1, Self.panelWidth) }
            }
            panel += 4
        }
        for rest in panel..<panelRange.upperBound { runPanel(rest, row..<row + 1, a, lda, c, ldc, panels, bias, activation, output) }
    }

    @inline(never)
    private func rowTile4(_ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>,
                          _ activation: ActivationClamp) {
        let biases = UnsafeRawPointer(bias)
        var c0 = biases.loadUnaligned(as: SIMD8<Float>.self), c1 = biases.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
        var c2 = biases.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self), c3 = biases.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
        var c4 = biases.loadUnaligned(fromByteOffset: 128, as: SIMD8<Float>.self), c5 = biases.loadUnaligned(fromByteOffset: 160, as: SIMD8<Float>.self)
        var c6 = biases.loadUnaligned(fromByteOffset: 192, as: SIMD8<Float>.self), c7 = biases.loadUnaligned(fromByteOffset: 224, as: SIMD8<Float>.self)
        let panelBytes = depth * Self.panelWidth * 4
        var w0 = UnsafeRawPointer(w), w1 = w0 + panelBytes, w2 = w1 + panelBytes, w3 = w2 + panelBytes
        for k in 0..<depth {
            let x = SIMD8(repeating: a[k])
            c0.accumulate(x, w0.loadUnaligned(as: SIMD8<Float>.self)); c1.accumulate(x, w0.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
            c2.accumulate(x, w1.loadUnaligned(as: SIMD8<Float>.self)); c3.accumulate(x, w1.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
            c4.accumulate(x, w2.loadUnaligned(as: SIMD8<Float>.self)); c5.accumulate(x, w2.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
            c6.accumulate(x, w3.loadUnaligned(as: SIMD8<Float>.self)); c7.accumulate(x, w3.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
            w0 += 64; w1 += 64; w2 += 64; w3 += 64
        }
        let out = UnsafeMutableRawPointer(c)
        out.storeBytes(of: activation(c0), as: SIMD8<Float>.self); out.storeBytes(of: activation(c1), toByteOffset: 32, as: SIMD8<Float>.self)
        out.storeBytes(of: activation(c2), toByteOffset: 64, as: SIMD8<Float>.self); out.storeBytes(of: activation(c3), toByteOffset: 96, as: SIMD8<Float>.self)
        out.storeBytes(of: activation(c4), toByteOffset: 128, as: SIMD8<Float>.self); out.storeBytes(of: activation(c5), toByteOffset: 160, as: SIMD8<Float>.self)
        out.storeBytes(of: activation(c6), toByteOffset: 192, as: SIMD8<Float>.self); out.storeBytes(of: activation(c7), toByteOffset: 224, as: SIMD8<Float>.self)
    }

    /// The six rows of A a tile reads; past the `rows` valid ones, the last valid row again (computed, not stored).
    @inline(__always)
    private static func sixRows(_ a: UnsafePointer<Float>, _ lda: Int, _ rows: Int)
        -> (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>) {
        let last = rows - 1
        return (a, a + min(1, last) * lda, a + min(2, last) * lda, a + min(3, last) * lda, a + min(4, last) * lda, a + min(5, last) * lda)
    }

    @inline(never)
    private func tile6(_ a: UnsafePointer<Float>, _ lda: Int, _ w: UnsafePointer<Float>, _ b0: SIMD8<Float>, _ b1: SIMD8<Float>,
                       _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ width: Int, _ activation: ActivationClamp, rows: Int) {
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1
        var c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        let (a0, a1, a2, a3, a4, a5) = Self.sixRows(a, lda, rows)
        var wk = UnsafeRawPointer(w)
        for k in 0..<depth {
            let w0 = wk.loadUnaligned(as: SIMD8<Float>.self)
            let w1 = wk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
            var x = SIMD8(repeating: a0[k])
            c00.accumulate(x, w0); c01.accumulate(x, w1)
            x = SIMD8(repeating: a1[k])
            c10.accumulate(x, w0); c11.accumulate(x, w1)
            x = SIMD8(repeating: a2[k])
            c20.accumulate(x, w0); c21.accumulate(x, w1)
            x = SIMD8(repeating: a3[k])
            c30.accumulate(x, w0); c31.accumulate(x, w1)
            x = SIMD8(repeating: a4[k])
            c40.accumulate(x, w0); c41.accumulate(x, w1)
            x = SIMD8(repeating: a5[k])
            c50.accumulate(x, w0); c51.accumulate(x, w1)
            wk += 64
        }
        store(activation(c00), activation(c01), c, width)
        if rows > 1 { store(activation(c10), activation(c11), c + ldc, width) }
        if rows > 2 { store(activation(c20), activation(c21), c + 2 * ldc, width) }
        if rows > 3 { store(activation(c30), activation(c31), c + 3 * ldc, width) }
        if rows > 4 { store(activation(c40), activation(c41), c + 4 * ldc, width) }
        if rows > 5 { store(activation(c50), activation(c51), c + 5 * ldc, width) }
    }

    @inline(never)
    private func halfTile12(_ a: UnsafePointer<Float>, _ lda: Int, _ w: UnsafePointer<Float>, _ b0: SIMD8<Float>,
                            _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ width: Int, _ activation: ActivationClamp) {
        var c0 = b0, c1 = b0, c2 = b0, c3 = b0, c4 = b0, c5 = b0, c6 = b0, c7 = b0, c8 = b0, c9 = b0, c10 = b0, c11 = b0
        let a0 = a, a6 = a + 6 * lda
        var wk = UnsafeRawPointer(w)
        for k in 0..<depth {
            let w0 = wk.loadUnaligned(as: SIMD8<Float>.self)
            c0.accumulate(SIMD8(repeating: a0[k]), w0)
            c1.accumulate(SIMD8(repeating: a0[lda + k]), w0)
            c2.accumulate(SIMD8(repeating: a0[2 * lda + k]), w0)
            c3.accumulate(SIMD8(repeating: a0[3 * lda + k]), w0)
            c4.accumulate(SIMD8(repeating: a0[4 * lda + k]), w0)
            c5.accumulate(SIMD8(repeating: a0[5 * lda + k]), w0)
            c6.accumulate(SIMD8(repeating: a6[k]), w0)
            c7.accumulate(SIMD8(repeating: a6[lda + k]), w0)
            c8.accumulate(SIMD8(repeating: a6[2 * lda + k]), w0)
            c9.accumulate(SIMD8(repeating: a6[3 * lda + k]), w0)
            c10.accumulate(SIMD8(repeating: a6[4 * lda + k]), w0)
            c11.accumulate(SIMD8(repeating: a6[5 * lda + k]), w0)
            wk += 64
        }
        let zero = SIMD8<Float>()
        store(activation(c0), zero, c, width)
        store(activation(c1), zero, c + ldc, width)
        store(activation(c2), zero, c + 2 * ldc, width)
        store(activation(c3), zero, c + 3 * ldc, width)
        store(activation(c4), zero, c + 4 * ldc, width)
        store(activation(c5), zero, c + 5 * ldc, width)
        store(activation(c6), zero, c + 6 * ldc, width)
        store(activation(c7), zero, c + 7 * ldc, width)
        store(activation(c8), zero, c + 8 * ldc, width)
        store(activation(c9), zero, c + 9 * ldc, width)
        store(activation(c10), zero, c + 10 * ldc, width)
        store(activation(c11), zero, c + 11 * ldc, width)
    }

    @inline(never)
    private func halfTile6(_ a: UnsafePointer<Float>, _ lda: Int, _ w: UnsafePointer<Float>, _ b0: SIMD8<Float>,
                           _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ width: Int, _ activation: ActivationClamp, rows: Int) {
        var c0 = b0, c1 = b0, c2 = b0, c3 = b0, c4 = b0, c5 = b0
        let (a0, a1, a2, a3, a4, a5) = Self.sixRows(a, lda, rows)
        var wk = UnsafeRawPointer(w)
        for k in 0..<depth {
            let w0 = wk.loadUnaligned(as: SIMD8<Float>.self)
            c0.accumulate(SIMD8(repeating: a0[k]), w0)
            c1.accumulate(SIMD8(repeating: a1[k]), w0)
            c2.accumulate(SIMD8(repeating: a2[k]), w0)
            c3.accumulate(SIMD8(repeating: a3[k]), w0)
            c4.accumulate(SIMD8(repeating: a4[k]), w0)
            c5.accumulate(SIMD8(repeating: a5[k]), w0)
            wk += 64
        }
        let zero = SIMD8<Float>()
        store(activation(c0), zero, c, width)
        if rows > 1 { store(activation(c1), zero, c + ldc, width) }
        if rows > 2 { store(activation(c2), zero, c + 2 * ldc, width) }
        if rows > 3 { store(activation(c3), zero, c + 3 * ldc, width) }
        if rows > 4 { store(activation(c4), zero, c + 4 * ldc, width) }
        if rows > 5 { store(activation(c5), zero, c + 5 * ldc, width) }
    }

    @inline(__always)
    private func store(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ c: UnsafeMutablePointer<Float>, _ width: Int) {
        if width == 16 {
            UnsafeMutableRawPointer(c).storeBytes(of: v0, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(c + 8).storeBytes(of: v1, as: SIMD8<Float>.self)
        } else if width == 8 {
            UnsafeMutableRawPointer(c).storeBytes(of: v0, as: SIMD8<Float>.self)
        } else {
            for i in 0..<width { c[i] = i < 8 ? v0[i] : v1[i - 8] }
        }
    }
}

/// The first `count` (< 8) lanes of `v` stored at `p`: four at once where there are four, then one at a time. A
/// partial panel (BlazeFace's 28, 36 and 42 channels) was stored lane by lane, which cost its convolutions a
/// fifth of their time.
@inline(__always)
func storePartial(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>, _ count: Int) {
    var i = 0
    if count >= 4 {
        UnsafeMutableRawPointer(p).storeBytes(of: v.lowHalf, as: SIMD4<Float>.self)
        i = 4
    }
    while i < count { p[i] = v[i]; i &+= 1 }
}

/// The first `count` (< 8) floats at `p` in the low lanes, zeros in the others; reads nothing past them.
@inline(__always)
func loadPartial(_ p: UnsafePointer<Float>, _ count: Int) -> SIMD8<Float> {
    var v = SIMD8<Float>()
    var i = 0
    if count >= 4 {
        v.lowHalf = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
        i = 4
    }
    while i < count { v[i] = p[i]; i &+= 1 }
    return v
}

/// The epilogue run over each tile right after the tile is stored, while its rows are in L1. (Applying it to the
/// accumulators before the store made the tile functions too large for the optimizer to inline their vector
/// loads; re-reading a just-written tile costs a few cycles per row.) It repeats ``Epilogue/apply(output:addend:
/// rows:rowStride:channels:)``'s arithmetic on purpose: with the panel's slopes loaded once and the 16- and 8-wide
/// rows as straight-line code, face landmarks runs 5 % faster than through that general row loop (4.63 vs 4.89 ms).
struct TileEpilogue {
    let addend: UnsafePointer<Float>?
    let addendStride: Int
    let addendColumns: Int
    let clamp: ActivationClamp
    let clamps: Bool
    let alpha: UnsafePointer<Float>?
    /// The current panel's 16 slopes, loaded once per panel.
    var alpha0 = SIMD8<Float>(), alpha1 = SIMD8<Float>()
    /// How many of the current panel's columns have an addend (16 unless the addend is narrower than C).
    var addendLanes = PackedGEMM.panelWidth

    init(_ epilogue: PackedGEMM.Epilogue) {
        addend = epilogue.addend
        addendStride = epilogue.addendStride
        addendColumns = epilogue.addendColumns
        clamp = epilogue.clamp
        clamps = epilogue.clamps
        alpha = epilogue.alpha
    }

    /// The epilogue for the panel starting at column `column0`.
    func panel(_ column0: Int) -> TileEpilogue {
        var panel = self
        panel.addendLanes = min(PackedGEMM.panelWidth, max(0, addendColumns - column0))
        if let alpha {
            panel.alpha0 = UnsafeRawPointer(alpha + column0).loadUnaligned(as: SIMD8<Float>.self)
            panel.alpha1 = UnsafeRawPointer(alpha + column0 + 8).loadUnaligned(as: SIMD8<Float>.self)
        }
        return panel
    }

    /// Eight addend values, of which the first `lanes` exist (a narrower addend ends inside the panel: BlazeFace's
    /// 24 → 28 channel residual); reading past them could leave the tensor.
    @inline(__always)
    private static func addend(_ add: UnsafeRawPointer, lanes: Int) -> SIMD8<Float> {
        lanes >= 8 ? add.loadUnaligned(as: SIMD8<Float>.self) : loadPartial(add.assumingMemoryBound(to: Float.self), max(0, lanes))
    }

    /// ``apply(_:row:column:_:rows:_:)`` where the addend, if any, covers every column of the panel.
    @inline(__always)
    private func applyWhole(_ c: UnsafeMutablePointer<Float>, row first: Int, column: Int, _ ldc: Int, rows: Int, _ width: Int) {
        // The three combinations the models use get loops of their own, with the tests on what the epilogue does
        // hoisted out (BlazeFace's ADD + RELU after 1×1 convolutions of 24–96 channels: its epilogue took 21
        // instructions per vector, as many as a third of the GEMM's own).
        switch (addend != nil, clamps, alpha != nil) {
        case (true, true, false): applyWhole(c, first, column, ldc, rows, width, adds: true, clamps: true, prelu: false)
        case (false, false, true): applyWhole(c, first, column, ldc, rows, width, adds: false, clamps: false, prelu: true)
        case (true, false, true): applyWhole(c, first, column, ldc, rows, width, adds: true, clamps: false, prelu: true)
        case let (adds, clamps, prelu): applyWhole(c, first, column, ldc, rows, width, adds: adds, clamps: clamps, prelu: prelu)
        }
    }

    @inline(__always)
    private func applyWhole(_ c: UnsafeMutablePointer<Float>, _ first: Int, _ column: Int, _ ldc: Int, _ rows: Int, _ width: Int,
                            adds: Bool, clamps: Bool, prelu: Bool) {
        let zero = SIMD8<Float>()
        let addend = adds ? addend : nil
        for row in first..<first &+ rows {
            let start = row &* ldc &+ column
            let out = UnsafeMutableRawPointer(c + start)
            let add = addend.map { UnsafeRawPointer($0 + (row &* addendStride &+ column)) }
            if width >= 8 {
                var v = out.loadUnaligned(as: SIMD8<Float>.self)
                if adds, let add { v += add.loadUnaligned(as: SIMD8<Float>.self) }
                if clamps { v = clamp(v) }
                if prelu { v = v.replacing(with: v * alpha0, where: v .< zero) }
                out.storeBytes(of: v, as: SIMD8<Float>.self)
            }
            if width == 16 {
                var v = out.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                if adds, let add { v += add.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self) }
                if clamps { v = clamp(v) }
                if prelu { v = v.replacing(with: v * alpha1, where: v .< zero) }
                out.storeBytes(of: v, toByteOffset: 32, as: SIMD8<Float>.self)
            }
            if width != 8 && width != 16 { partialTail(c, start, add, width: width, lanes: width) }
        }
    }

    /// The last 1–7 values of a row of a partial panel (channel counts that are not multiples of 8), as one vector
    /// padded with zeros, loaded and stored without touching what lies past them; `lanes` of the row's values have
    /// an addend.
    @inline(never)
    private func partialTail(_ c: UnsafeMutablePointer<Float>, _ start: Int, _ add: UnsafeRawPointer?, width: Int, lanes: Int) {
        let first = width > 8 ? 8 : 0, count = width &- first
        let values = c + (start &+ first)
        var v = loadPartial(values, count)
        if let add { v += Self.addend(add + 4 &* first, lanes: min(lanes &- first, count)) }
        if clamps { v = clamp(v) }
        if alpha != nil { v = v.replacing(with: v * (first == 0 ? alpha0 : alpha1), where: v .< SIMD8<Float>()) }
        storePartial(v, values, count)
    }

    /// Rows `row ..< row + rows` of `width` (≤ 16) columns of C from column `column`.
    @inline(never)
    func apply(_ c: UnsafeMutablePointer<Float>, row first: Int, column: Int, _ ldc: Int, rows: Int, _ width: Int) {
        let zero = SIMD8<Float>()
        let lanes = min(addendLanes, width)
        if lanes == width || addend == nil {
            // The usual case, as before narrow addends: the same straight-line rows.
            applyWhole(c, row: first, column: column, ldc, rows: rows, width)
            return
        }
        for row in first..<first &+ rows {
            let start = row &* ldc &+ column
            let out = UnsafeMutableRawPointer(c + start)
            let add = lanes == 0 ? nil : addend.map { UnsafeRawPointer($0 + (row &* addendStride &+ column)) }
            if width >= 8 {
                var v = out.loadUnaligned(as: SIMD8<Float>.self)
                if let add { v += Self.addend(add, lanes: lanes) }
                if clamps { v = clamp(v) }
                if alpha != nil { v = v.replacing(with: v * alpha0, where: v .< zero) }
                out.storeBytes(of: v, as: SIMD8<Float>.self)
            }
            if width == 16 {
                var v = out.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                if let add { v += Self.addend(add + 32, lanes: lanes &- 8) }
                if clamps { v = clamp(v) }
                if alpha != nil { v = v.replacing(with: v * alpha1, where: v .< zero) }
                out.storeBytes(of: v, toByteOffset: 32, as: SIMD8<Float>.self)
            }
            if width != 8 && width != 16 { partialTail(c, start, add, width: width, lanes: lanes) }
        }
    }
}
