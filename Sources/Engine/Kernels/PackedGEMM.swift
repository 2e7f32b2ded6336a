/// C = A · Wᵀ + bias, activated, for A row-major [M × K] and weights packed at load into panels of 16 output
/// columns: XNNPACK's micro-kernel layout. Each step keeps a 4 × 16 tile of C in eight SIMD8 registers and
/// streams K: per k, two weight loads, four broadcasts, eight fused multiply-adds.
///
/// Small convolutions (the mobile models' 1×1 layers with 8–600 channels) run several times faster this way than
/// through a general sgemm, whose packing and blocking only pay off on large matrices.
struct PackedGEMM: Sendable {
    static let panelWidth = 16
    /// Panels of `depth` rows × 16 columns, zero-padded past `columns`.
    let panels: [Float]
    /// Bias padded to whole panels.
    let bias: [Float]
    let depth: Int
    let columns: Int
    var panelCount: Int { (columns + Self.panelWidth - 1) / Self.panelWidth }

    /// - Parameter weights: row-major [columns × depth] (TFLite's [out, in] / OHWI layout).
    init(weights: [Float], bias: [Float], columns: Int, depth: Int) {
        self.depth = depth
        self.columns = columns
        let panelCount = (columns + Self.panelWidth - 1) / Self.panelWidth
        var panels = [Float](repeating: 0, count: panelCount * depth * Self.panelWidth)
        for column in 0..<columns {
            let panel = column / Self.panelWidth, lane = column % Self.panelWidth
            for k in 0..<depth {
                panels[(panel * depth + k) * Self.panelWidth + lane] = weights[column * depth + k]
            }
        }
        self.panels = panels
        var padded = [Float](repeating: 0, count: panelCount * Self.panelWidth)
        for i in 0..<min(columns, bias.count) { padded[i] = bias[i] }
        self.bias = padded
    }

    /// Computes rows `rows` of C (leading dimensions `lda`, `ldc` in elements).
    func run(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, c: UnsafeMutablePointer<Float>, ldc: Int, activation: Activation,
             panels panelRange: Range<Int>? = nil) {
        panels.withUnsafeBufferPointer { panels in
            bias.withUnsafeBufferPointer { bias in
                // One panel over all rows keeps the panel's K × 16 weights in L1.
                for panel in panelRange ?? 0..<panelCount { runPanel(panel, rows, a, lda, c, ldc, panels.baseAddress!, bias.baseAddress!, activation) }
            }
        }
    }

    @inline(__always)
    private func runPanel(_ panel: Int, _ rows: Range<Int>, _ a: UnsafePointer<Float>, _ lda: Int, _ c: UnsafeMutablePointer<Float>,
                          _ ldc: Int, _ panels: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ activation: Activation) {
        let w = panels + panel * depth * Self.panelWidth
        let b0 = UnsafeRawPointer(bias + panel * Self.panelWidth).loadUnaligned(as: SIMD8<Float>.self)
        let b1 = UnsafeRawPointer(bias + panel * Self.panelWidth + 8).loadUnaligned(as: SIMD8<Float>.self)
        let column0 = panel * Self.panelWidth
        let width = min(Self.panelWidth, columns - column0)
        var r = rows.lowerBound
        while r + 4 <= rows.upperBound {
            tile4(a + r * lda, lda, w, b0, b1, c + r * ldc + column0, ldc, width, activation)
            r += 4
        }
        while r < rows.upperBound {
            tile1(a + r * lda, w, b0, b1, c + r * ldc + column0, width, activation)
            r += 1
        }
    }

    @inline(__always)
    private func tile4(_ a: UnsafePointer<Float>, _ lda: Int, _ w: UnsafePointer<Float>, _ b0: SIMD8<Float>, _ b1: SIMD8<Float>,
                       _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ width: Int, _ activation: Activation) {
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1
        let a0 = a, a1 = a + lda, a2 = a + 2 * lda, a3 = a + 3 * lda
        var wk = UnsafeRawPointer(w)
        for k in 0..<depth {
            let w0 = wk.loadUnaligned(as: SIMD8<Float>.self)
            let w1 = wk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
            let x0 = SIMD8(repeating: a0[k]), x1 = SIMD8(repeating: a1[k])
            let x2 = SIMD8(repeating: a2[k]), x3 = SIMD8(repeating: a3[k])
            c00.addProduct(x0, w0); c01.addProduct(x0, w1)
            c10.addProduct(x1, w0); c11.addProduct(x1, w1)
            c20.addProduct(x2, w0); c21.addProduct(x2, w1)
            c30.addProduct(x3, w0); c31.addProduct(x3, w1)
            wk += 64
        }
        store(activation(c00), activation(c01), c, width)
        store(activation(c10), activation(c11), c + ldc, width)
        store(activation(c20), activation(c21), c + 2 * ldc, width)
        store(activation(c30), activation(c31), c + 3 * ldc, width)
    }

    @inline(__always)
    private func tile1(_ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ b0: SIMD8<Float>, _ b1: SIMD8<Float>,
                       _ c: UnsafeMutablePointer<Float>, _ width: Int, _ activation: Activation) {
        var c0 = b0, c1 = b1
        var wk = UnsafeRawPointer(w)
        for k in 0..<depth {
            let x = SIMD8(repeating: a[k])
            c0.addProduct(x, wk.loadUnaligned(as: SIMD8<Float>.self))
            c1.addProduct(x, wk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
            wk += 64
        }
        store(activation(c0), activation(c1), c, width)
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
