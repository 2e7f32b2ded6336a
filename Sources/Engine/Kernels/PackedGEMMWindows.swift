import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

/// A window of a convolution's NHWC input as a row of A, read in place: `segments` runs (the filter's rows) of
/// `segmentLength` floats (the filter's width times the input's channels: adjacent when the dilation is 1),
/// `segmentStride` floats apart (an input row). Its depth order — filter row, column, channel — is the im2col row's,
/// so the weight panels are the same.
struct ConvolutionWindows {
    let segments: Int
    let segmentLength: Int
    let segmentStride: Int
}

// Convolutions whose im2col rows would be copies of the input: the tiles read each window where it lies. Gathering
// the patches took 11 % of ESPCN's and the float U-Net's time and 5 % of YOLOv8n-like's at one thread; XNNPACK's
// indirect GEMM (a pointer per row and tap) never copies them either.
extension PackedGEMM {
    /// Whether ``runWindows(a:lda:groups:windows:c:ldc:activation:epilogue:)`` can compute this product: the six-row
    /// tile's tiers (the AVX-512 tiers' wide tile has no window form yet, and their panel pairs beat six-row tiles).
    var takesWindows: Bool { Self.takesWindows(wideTiles: wideTiles, tiles: tiles) }

    /// Whether a product packed for `kernels` would take windows (``takesWindows``), without packing one.
    static func takesWindows(_ kernels: KernelConfig) -> Bool { takesWindows(wideTiles: wideTiles(kernels), tiles: kernels.floatGEMMTiles) }

    private static func takesWindows(wideTiles: Bool, tiles: FloatGEMMTiles?) -> Bool {
        !wideTiles && (tiles == nil || tiles?.table.pointee.windows_6x16 != nil)
    }

    /// Rows `0 ..< 6 · groups` of C, row r's A the window at `a + r · lda` (`windows`); every element the bias plus its
    /// products in depth order, as ``run(a:lda:rows:c:ldc:activation:panels:epilogue:)`` over the same windows copied
    /// into rows gives it: the same bits. A half or partial last panel goes through the whole-panel tile (its weights
    /// are zero-padded to 16 columns, and each column's sum is its own: the half tiles' bits) into a scratch tile.
    /// Group by group, every panel of a group while its six windows are in L1, as the gathered rows went chunk by
    /// chunk (panel by panel instead streamed both the windows and the weights from L2: ESPCN's tiles ran 6 % slower).
    func runWindows(a: UnsafePointer<Float>, lda: Int, groups: Int, windows: ConvolutionWindows, c: UnsafeMutablePointer<Float>,
                    ldc: Int, activation: Activation, epilogue: Epilogue? = nil) {
        let clamp = ActivationClamp(activation)
        let tileEpilogue = epilogue.flatMap { $0.addend != nil || $0.clamps || $0.alpha != nil ? TileEpilogue($0) : nil }
        let window = tiles?.table.pointee.windows_6x16, function = epilogue?.function
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                let panels = panels.baseAddress!, bias = bias.baseAddress!
                for group in 0..<groups {
                    let r = group * 6, rows = a + r * lda
                    for panel in 0..<panelCount {
                        let column0 = panel * Self.panelWidth, width = min(Self.panelWidth, columns - column0)
                        let w = panels + panel * depth * Self.panelWidth
                        @inline(__always) func tile(_ c: UnsafeMutablePointer<Float>, _ ldc: Int) {
                            if let window {
                                window(windows.segments, windows.segmentLength, windows.segmentStride, rows, lda, w, bias + column0, c, ldc,
                                       clamp.lower[0], clamp.upper[0])
                            } else {
                                windowTile6(rows, lda, windows, w, bias + column0, c, ldc, clamp)
                            }
                        }
                        if width == Self.panelWidth {
                            tile(c + r * ldc + column0, ldc)
                        } else {
                            Self.throughScratch(c + r * ldc + column0, ldc, width, rows: 6, tile)
                        }
                        tileEpilogue?.panel(column0).apply(c, row: r, column: column0, ldc, rows: 6, width)
                    }
                    // The group's rows while they are in L1 (after the whole run they had to come back: YOLOv8n-like's
                    // SiLU layers ran slower than over gathered chunks).
                    if let function { function.apply(c + r * ldc, rows: 6, rowStride: ldc, channels: 0..<columns) }
                }
            }
        }
    }

    /// Row `row` of a six-row tile's 16 columns, activated and stored whole (the window and pointer tiles, which store
    /// every row: a partial tile goes through a scratch tile).
    @inline(__always)
    static func storeRow(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ c: UnsafeMutablePointer<Float>, _ row: Int, _ ldc: Int,
                         _ activation: ActivationClamp) {
        let out = UnsafeMutableRawPointer(c + row * ldc)
        out.storeBytes(of: activation(v0), as: SIMD8<Float>.self)
        out.storeBytes(of: activation(v1), toByteOffset: 32, as: SIMD8<Float>.self)
    }

    /// ``tile6`` with each row's depth in `windows.segments` runs: the same multiply-adds in the same order.
    @inline(never)
    private func windowTile6(_ a: UnsafePointer<Float>, _ lda: Int, _ windows: ConvolutionWindows, _ w: UnsafePointer<Float>,
                             _ bias: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ activation: ActivationClamp) {
        let b0 = UnsafeRawPointer(bias).loadUnaligned(as: SIMD8<Float>.self)
        let b1 = UnsafeRawPointer(bias + 8).loadUnaligned(as: SIMD8<Float>.self)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1
        var c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        // Rows 0–2 at p, p + lda, p + 2 lda and rows 3–5 at q likewise: two pointers and one byte stride, which x86's
        // scaled-index addresses take as they are. With six pointers, an index and the segment loop's counters the
        // compiler ran short of registers and recomputed row addresses inside the loop (five integer instructions a
        // step beside the tile's twelve multiply-adds, against three this way).
        let strideBytes = lda &* 4, length = windows.segmentLength
        var p = UnsafeRawPointer(a), q = UnsafeRawPointer(a + 3 &* lda)
        var wk = UnsafeRawPointer(w)
        for _ in 0..<windows.segments {
            var pk = p, qk = q
            let end = p + length &* 4
            while pk < end {
                let w0 = wk.loadUnaligned(as: SIMD8<Float>.self)
                let w1 = wk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                var x = SIMD8(repeating: pk.load(as: Float.self))
                c00.accumulate(x, w0); c01.accumulate(x, w1)
                x = SIMD8(repeating: pk.load(fromByteOffset: strideBytes, as: Float.self))
                c10.accumulate(x, w0); c11.accumulate(x, w1)
                x = SIMD8(repeating: pk.load(fromByteOffset: strideBytes &* 2, as: Float.self))
                c20.accumulate(x, w0); c21.accumulate(x, w1)
                x = SIMD8(repeating: qk.load(as: Float.self))
                c30.accumulate(x, w0); c31.accumulate(x, w1)
                x = SIMD8(repeating: qk.load(fromByteOffset: strideBytes, as: Float.self))
                c40.accumulate(x, w0); c41.accumulate(x, w1)
                x = SIMD8(repeating: qk.load(fromByteOffset: strideBytes &* 2, as: Float.self))
                c50.accumulate(x, w0); c51.accumulate(x, w1)
                wk += 64
                pk += 4
                qk += 4
            }
            p += windows.segmentStride &* 4
            q += windows.segmentStride &* 4
        }
        Self.storeRow(c00, c01, c, 0, ldc, activation); Self.storeRow(c10, c11, c, 1, ldc, activation)
        Self.storeRow(c20, c21, c, 2, ldc, activation); Self.storeRow(c30, c31, c, 3, ldc, activation)
        Self.storeRow(c40, c41, c, 4, ldc, activation); Self.storeRow(c50, c51, c, 5, ldc, activation)
    }
}
