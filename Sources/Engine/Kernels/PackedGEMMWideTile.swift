import VisionTasksEngineSIMD

// The AVX-512 tier's float GEMM tile: 8 rows × 32 columns (two panels) in sixteen SIMD16<Float> accumulators. Per
// depth step: two 64-byte weight loads, eight broadcasts, sixteen fused multiply-adds — ten loads per sixteen FMAs
// where the AVX2 tile's 6 × 16 does eight per twelve. Sixteen accumulators, two weight vectors and a broadcast take
// 19 of AVX-512's 32 registers; sixteen independent chains cover the FMA's latency of 4 cycles at two a cycle.
//
// Each element of C is still the bias plus its products fused in depth order, one rounding per step, exactly as in
// the six-row tile: the two tiers' outputs are bit-identical (QuantizedGoldenTests' float counterpart,
// KernelTierTests, checks this), and so are any thread counts within a tier.
extension PackedGEMM {
    /// Panels of `panelRange` over `rows`: pairs of whole panels through the wide tile where the configuration asks for
    /// it, the rest (a last single panel, a partial one) through ``runPanel``.
    @inline(__always)
    func runPanels(_ panelRange: Range<Int>, _ rows: Range<Int>, _ body: (Int) -> Void,
                   wide: (Int) -> Void) {
        var panel = panelRange.lowerBound
        while panel < panelRange.upperBound {
            if wideTiles, panel + 1 < panelRange.upperBound, columns - panel * Self.panelWidth >= 2 * Self.panelWidth {
                wide(panel)
                panel += 2
            } else {
                body(panel)
                panel += 1
            }
        }
    }

    /// Rows `rows` of C for whole panels `panel` and `panel + 1`, eight rows at a time; the last tile repeats its
    /// last row for the missing ones (computed, not stored).
    func runPanelPair(_ panel: Int, _ rows: Range<Int>, _ a: UnsafePointer<Float>, _ lda: Int, _ c: UnsafeMutablePointer<Float>, _ ldc: Int,
                      _ panels: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ activation: ActivationClamp,
                      _ epilogue: (_ column0: Int, _ row: Int, _ rows: Int) -> Void) {
        let column0 = panel * Self.panelWidth
        let w0 = panels + panel * depth * Self.panelWidth, w1 = w0 + depth * Self.panelWidth
        let biases = UnsafeRawPointer(bias + column0)
        let b0 = biases.loadUnaligned(as: SIMD16<Float>.self), b1 = biases.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
        let wide = tiles?.table.pointee.tile_8x32
        var r = rows.lowerBound
        while r < rows.upperBound {
            let count = min(8, rows.upperBound - r)
            if let wide {
                wide(count, depth, a + r * lda, lda, w0, depth * Self.panelWidth, bias + column0, c + r * ldc + column0, ldc,
                     activation.lower[0], activation.upper[0])
            } else {
                wideTile8(a + r * lda, lda, w0, w1, b0, b1, c + r * ldc + column0, ldc, activation, rows: count)
            }
            epilogue(column0, r, count)
            epilogue(column0 + Self.panelWidth, r, count)
            r += count
        }
    }

    @inline(never)
    private func wideTile8(_ a: UnsafePointer<Float>, _ lda: Int, _ w0: UnsafePointer<Float>, _ w1: UnsafePointer<Float>,
                           _ b0: SIMD16<Float>, _ b1: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>, _ ldc: Int,
                           _ activation: ActivationClamp, rows: Int) {
        @inline(__always) func row(_ i: Int) -> UnsafePointer<Float> { a + min(i, rows - 1) * lda }
        let a0 = row(0), a1 = row(1), a2 = row(2), a3 = row(3), a4 = row(4), a5 = row(5), a6 = row(6), a7 = row(7)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1
        var c40 = b0, c41 = b1, c50 = b0, c51 = b1, c60 = b0, c61 = b1, c70 = b0, c71 = b1
        var p0 = UnsafeRawPointer(w0), p1 = UnsafeRawPointer(w1)
        for k in 0..<depth {
            let x0 = p0.loadUnaligned(as: SIMD16<Float>.self), x1 = p1.loadUnaligned(as: SIMD16<Float>.self)
            var s = SIMD16(repeating: a0[k])
            c00.accumulate(s, x0); c01.accumulate(s, x1)
            s = SIMD16(repeating: a1[k])
            c10.accumulate(s, x0); c11.accumulate(s, x1)
            s = SIMD16(repeating: a2[k])
            c20.accumulate(s, x0); c21.accumulate(s, x1)
            s = SIMD16(repeating: a3[k])
            c30.accumulate(s, x0); c31.accumulate(s, x1)
            s = SIMD16(repeating: a4[k])
            c40.accumulate(s, x0); c41.accumulate(s, x1)
            s = SIMD16(repeating: a5[k])
            c50.accumulate(s, x0); c51.accumulate(s, x1)
            s = SIMD16(repeating: a6[k])
            c60.accumulate(s, x0); c61.accumulate(s, x1)
            s = SIMD16(repeating: a7[k])
            c70.accumulate(s, x0); c71.accumulate(s, x1)
            p0 += 64
            p1 += 64
        }
        @inline(__always) func store(_ v0: SIMD16<Float>, _ v1: SIMD16<Float>, _ row: Int) {
            let out = UnsafeMutableRawPointer(c + row * ldc)
            out.storeBytes(of: activation(v0.lowHalf), as: SIMD8<Float>.self)
            out.storeBytes(of: activation(v0.highHalf), toByteOffset: 32, as: SIMD8<Float>.self)
            out.storeBytes(of: activation(v1.lowHalf), toByteOffset: 64, as: SIMD8<Float>.self)
            out.storeBytes(of: activation(v1.highHalf), toByteOffset: 96, as: SIMD8<Float>.self)
        }
        store(c00, c01, 0)
        if rows > 1 { store(c10, c11, 1) }
        if rows > 2 { store(c20, c21, 2) }
        if rows > 3 { store(c30, c31, 3) }
        if rows > 4 { store(c40, c41, 4) }
        if rows > 5 { store(c50, c51, 5) }
        if rows > 6 { store(c60, c61, 6) }
        if rows > 7 { store(c70, c71, 7) }
    }
}
