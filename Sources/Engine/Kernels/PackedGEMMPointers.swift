import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

// Convolutions whose windows the six-row window tile cannot take in place (PackedGEMMWindows.swift: output rows
// narrower than KernelConfig.windowsMinimumRowPixels, dilated taps): the tiles read each row of A through pointers,
// XNNPACK's indirect GEMM. Gathering those patches took a sixth of a 40² × 32 → 32 3 × 3 layer's time (YOLOv8n-like's
// middle layers) and came back from memory for the tiles.
extension PackedGEMM {
    /// Pointers a six-row tile's table may hold (``runPointers(rows:segments:segmentLength:c:ldc:activation:epilogue:panels:fill:)``):
    /// its table lives on the stack, which Swift guarantees for 1,024 bytes.
    static let maximumPointerSegments = 1024 / (6 * MemoryLayout<UnsafePointer<Float>>.stride)

    /// Whether ``runPointers(rows:segments:segmentLength:c:ldc:activation:epilogue:panels:fill:)`` can compute this product
    /// (the six-row tile's tiers, as ``takesWindows``).
    var takesPointers: Bool { Self.takesPointers(wideTiles: wideTiles, tiles: tiles) }

    /// Whether a product packed for `kernels` would take pointers (``takesPointers``), without packing one.
    static func takesPointers(_ kernels: KernelConfig) -> Bool { takesPointers(wideTiles: wideTiles(kernels), tiles: kernels.floatGEMMTiles) }

    private static func takesPointers(wideTiles: Bool, tiles: FloatGEMMTiles?) -> Bool {
        !wideTiles && (tiles == nil || tiles?.table.pointee.pointers_6x16 != nil)
    }

    /// Rows `0 ..< rows` of C, six at a time: `fill(first, count, table)` writes rows `first ..< first + count`'s
    /// pointers into `table` — run s of row `first + r` at `table[s · 6 + r]`, each `segmentLength` floats, `segments`
    /// runs a row in depth order — repeating the last row's for a group of fewer than six. Every element is the bias
    /// plus its products in depth order, as ``run(a:lda:rows:c:ldc:activation:panels:epilogue:)`` over the same rows
    /// copied one after another gives it: the same bits. A partial group or panel goes through a scratch tile (a panel's
    /// weights are zero-padded to 16 columns, and each column's sum is its own: the half tiles' bits); every panel of a
    /// group while its rows are in L1, then the group's function (as ``runWindows(a:lda:groups:windows:c:ldc:activation:epilogue:)``).
    ///
    /// `panels` limits the product to those panels' columns (a thread's share of a product with few rows; the same
    /// bits: each column's sums are its own). Weights larger than L2 stream from L3 once a group of rows (XNNPACK's
    /// order too): a group of panels at a time over all rows, to keep them in L2, measured no faster on
    /// YOLOv8n-like's, DeepLab v3's, U-Net's and MiDaS-like's 1–3 MB filters over 10² to 32² pixels.
    func runPointers(rows: Int, segments: Int, segmentLength: Int, c: UnsafeMutablePointer<Float>, ldc: Int, activation: Activation,
                     epilogue: Epilogue? = nil, panels panelRange: Range<Int>? = nil,
                     fill: (_ first: Int, _ count: Int, _ table: UnsafeMutablePointer<UnsafePointer<Float>>) -> Void) {
        precondition(segments <= Self.maximumPointerSegments, "a pointer table of \(segments) runs a row")
        let clamp = ActivationClamp(activation)
        let tileEpilogue = epilogue.flatMap { $0.addend != nil || $0.clamps || $0.alpha != nil ? TileEpilogue($0) : nil }
        let pointerTile = tiles?.table.pointee.pointers_6x16, function = epilogue?.function
        let panelRange = panelRange ?? 0..<panelCount
        let computed = panelRange.lowerBound * Self.panelWidth..<min(columns, panelRange.upperBound * Self.panelWidth)
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: segments * 6) { table in
            let table = table.baseAddress!
            panels.withUnsafeBufferPointer { panels in
                bias.withUnsafeBufferPointer { bias in
                    let panels = panels.baseAddress!, bias = bias.baseAddress!
                    var r = 0
                    while r < rows {
                        let count = min(6, rows - r)
                        fill(r, count, table)
                        for panel in panelRange {
                            let column0 = panel * Self.panelWidth, width = min(Self.panelWidth, columns - column0)
                            let w = panels + panel * depth * Self.panelWidth
                            @inline(__always) func tile(_ c: UnsafeMutablePointer<Float>, _ ldc: Int) {
                                if let pointerTile {
                                    table.withMemoryRebound(to: Optional<UnsafePointer<Float>>.self, capacity: segments * 6) { table in
                                        pointerTile(segments, segmentLength, table, w, bias + column0, c, ldc, clamp.lower[0], clamp.upper[0])
                                    }
                                } else {
                                    pointerTile6(table, segments, segmentLength, w, bias + column0, c, ldc, clamp)
                                }
                            }
                            if width == Self.panelWidth, count == 6 {
                                tile(c + r * ldc + column0, ldc)
                            } else {
                                Self.throughScratch(c + r * ldc + column0, ldc, width, rows: count, tile)
                            }
                            tileEpilogue?.panel(column0).apply(c, row: r, column: column0, ldc, rows: count, width)
                        }
                        if let function { function.apply(c + r * ldc, rows: count, rowStride: ldc, channels: computed) }
                        r += count
                    }
                }
            }
        }
    }

    /// ``tile6`` over six rows of A given by pointers (``runPointers(rows:segments:segmentLength:c:ldc:activation:epilogue:panels:fill:)``):
    /// the same multiply-adds in the same order; all six rows stored.
    @inline(never)
    private func pointerTile6(_ table: UnsafePointer<UnsafePointer<Float>>, _ segments: Int, _ length: Int, _ w: UnsafePointer<Float>,
                              _ bias: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ activation: ActivationClamp) {
        let b0 = UnsafeRawPointer(bias).loadUnaligned(as: SIMD8<Float>.self)
        let b1 = UnsafeRawPointer(bias + 8).loadUnaligned(as: SIMD8<Float>.self)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1
        var c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        var wk = UnsafeRawPointer(w)
        var runs = table
        for _ in 0..<segments {
            let p0 = runs[0], p1 = runs[1], p2 = runs[2], p3 = runs[3], p4 = runs[4], p5 = runs[5]
            for k in 0..<length {
                let w0 = wk.loadUnaligned(as: SIMD8<Float>.self)
                let w1 = wk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                var x = SIMD8(repeating: p0[k])
                c00.accumulate(x, w0); c01.accumulate(x, w1)
                x = SIMD8(repeating: p1[k])
                c10.accumulate(x, w0); c11.accumulate(x, w1)
                x = SIMD8(repeating: p2[k])
                c20.accumulate(x, w0); c21.accumulate(x, w1)
                x = SIMD8(repeating: p3[k])
                c30.accumulate(x, w0); c31.accumulate(x, w1)
                x = SIMD8(repeating: p4[k])
                c40.accumulate(x, w0); c41.accumulate(x, w1)
                x = SIMD8(repeating: p5[k])
                c50.accumulate(x, w0); c51.accumulate(x, w1)
                wk += 64
            }
            runs += 6
        }
        Self.storeRow(c00, c01, c, 0, ldc, activation); Self.storeRow(c10, c11, c, 1, ldc, activation)
        Self.storeRow(c20, c21, c, 2, ldc, activation); Self.storeRow(c30, c31, c, 3, ldc, activation)
        Self.storeRow(c40, c41, c, 4, ldc, activation); Self.storeRow(c50, c51, c, 5, ldc, activation)
    }
}
