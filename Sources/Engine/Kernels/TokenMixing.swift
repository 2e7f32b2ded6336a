import VisionTasksEngineSIMD

/// MLP-Mixer token mixing — TRANSPOSE, 1×1 CONV_2D, 1×1 CONV_2D, TRANSPOSE back — as one kernel (the plan fuses the
/// four; face blendshapes has four such blocks: [97 tokens × 64 channels] → 384 hidden → 97).
///
/// The converter's form transposes X [tokens × channels] so that the two convolutions run with the 64 channels as
/// pixels: Y = ((Xᵀ · W1ᵀ + b1) · W2ᵀ + b2)ᵀ. Transposed, the same product is Y = W2 · (W1 · X + b1) + b2 with
/// per-row biases, and needs no transpose at all: the weights are the left operand, read as they lie, and X and the
/// hidden [384 × 64] are the right one, read in rows of 16 channels — whole panels, where the converter's form had
/// 97 output channels (six panels of 16 and a seventh with one live column) and two 97 × 64 transposes. The rows
/// (384, then 97) are also what the threads split, evenly; the converter's form split 7 panels 3 / 4.
///
/// Each output is the bias plus the products in increasing k, multiply-added one at a time, as PackedGEMM computes
/// the convolutions: the results are the same bits.
struct TokenMixingKernel: Kernel {
    let input: Int
    let output: Int
    /// hidden = act1(W1 · X + b1): [hidden × tokens] · [tokens × channels].
    let expand: RowBiasGEMM
    /// Y = act2(W2 · hidden + b2): [tokens × hidden] · [hidden × channels].
    let contract: RowBiasGEMM
    let channels: Int

    /// The hidden activations live in the scratch area.
    var scratchBytes: Int { expand.rows * channels * 4 }

    /// The fusion of `transpose` → `expand` → `contract` → `back`, or nil when they do not have the form above (or
    /// our SIMD8 tiles are not the fast GEMM here: a portable x86-64 build keeps the operators as they are).
    init?(transpose: TransposeKernel, expand: Conv2DKernel, contract: Conv2DKernel, back: TransposeKernel) {
        guard ownGEMMKernelsAreFast, transpose.elementBytes == 4, back.elementBytes == 4,
              let forward = transpose.matrix, forward.batches == 1, let backward = back.matrix, backward.batches == 1,
              expand.batch == 1, contract.batch == 1, expand.isPointwise, contract.isPointwise,
              expand.epilogue == nil, contract.epilogue == nil, expand.activation != .tanh, contract.activation != .tanh else { return nil }
        let (tokens, channels) = (forward.rows, forward.columns)
        // The panels of 16 channels read X and the hidden rows in place.
        guard channels % RowBiasGEMM.panelWidth == 0,
              expand.y.output * expand.x.output == channels, expand.inputChannels == tokens,
              contract.y.output * contract.x.output == channels, contract.inputChannels == expand.outputChannels,
              contract.outputChannels == tokens, backward.rows == channels, backward.columns == tokens else { return nil }
        input = transpose.input
        output = back.output
        self.channels = channels
        self.expand = RowBiasGEMM(weights: expand.weights, bias: expand.bias, rows: expand.outputChannels, depth: tokens,
                                  columns: channels, activation: ActivationClamp(expand.activation))
        self.contract = RowBiasGEMM(weights: contract.weights, bias: contract.bias, rows: tokens, depth: expand.outputChannels,
                                    columns: channels, activation: ActivationClamp(contract.activation))
    }

    func run(_ memory: TensorMemory) {
        let hidden = memory.scratch.assumingMemoryBound(to: Float.self)
        memory.parallel.forEach(expand.tileCount, Tiles(gemm: expand, b: memory.floats(input), c: hidden))
        memory.parallel.forEach(contract.tileCount, Tiles(gemm: contract, b: hidden, c: memory.floats(output)))
    }

    private struct Tiles: ParallelLoop {
        let gemm: RowBiasGEMM
        let b: UnsafeMutablePointer<Float>
        let c: UnsafeMutablePointer<Float>
        func run(_ tiles: Range<Int>) { gemm.run(tiles: tiles, b: b, c: c) }
    }
}

/// C = clamp(A · B + bias) for a constant row-major A [rows × depth] with a bias per row, and B [depth × columns]
/// and C [rows × columns] row-major at run time, columns a multiple of 16: PackedGEMM's 6 × 16 tile with the
/// operands' roles swapped (A broadcast, B's rows loaded as panels in place — no packing at run time).
struct RowBiasGEMM: Sendable {
    static let panelWidth = 16
    let weights: [Float]
    let bias: [Float]
    let rows: Int
    let depth: Int
    let columns: Int
    let activation: ActivationClamp

    /// Tiles of six rows (the last may be shorter): the unit the threads split.
    var tileCount: Int { (rows + 5) / 6 }

    func run(tiles: Range<Int>, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>) {
        weights.withUnsafeBufferPointer { weights in
            bias.withUnsafeBufferPointer { bias in
                let a = weights.baseAddress!, bias = bias.baseAddress!
                for tile in tiles {
                    let row = tile &* 6, count = min(6, rows &- row)
                    if count >= 3 {
                        // Six rows' A stay in L1 while the tile walks the panels; B is read once per tile.
                        for column in stride(from: 0, to: columns, by: Self.panelWidth) {
                            tile6(a + row &* depth, bias + row, b + column, c + row &* columns + column, rows: count)
                        }
                    } else {
                        // One or two rows left (97 = 16 × 6 + 1): a six-row tile would compute five or four rows
                        // for nothing; a row across four panels keeps eight independent accumulators instead.
                        for r in row..<row &+ count { self.row(a + r &* depth, bias[r], b, c + r &* columns) }
                    }
                }
            }
        }
    }

    @inline(never)
    private func tile6(_ a: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ b: UnsafePointer<Float>,
                       _ c: UnsafeMutablePointer<Float>, rows: Int) {
        // Rows past `rows` repeat the last one: computed, not stored.
        let last = rows &- 1
        let a0 = a, a1 = a + min(1, last) &* depth, a2 = a + min(2, last) &* depth
        let a3 = a + min(3, last) &* depth, a4 = a + min(4, last) &* depth, a5 = a + min(5, last) &* depth
        var c00 = SIMD8(repeating: bias[0]), c01 = c00
        var c10 = SIMD8(repeating: bias[min(1, last)]), c11 = c10
        var c20 = SIMD8(repeating: bias[min(2, last)]), c21 = c20
        var c30 = SIMD8(repeating: bias[min(3, last)]), c31 = c30
        var c40 = SIMD8(repeating: bias[min(4, last)]), c41 = c40
        var c50 = SIMD8(repeating: bias[min(5, last)]), c51 = c50
        var bk = UnsafeRawPointer(b)
        let rowBytes = columns &* 4
        for k in 0..<depth {
            let w0 = bk.loadUnaligned(as: SIMD8<Float>.self)
            let w1 = bk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
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
            bk += rowBytes
        }
        store(c00, c01, c)
        if rows > 1 { store(c10, c11, c + columns) }
        if rows > 2 { store(c20, c21, c + 2 &* columns) }
        if rows > 3 { store(c30, c31, c + 3 &* columns) }
        if rows > 4 { store(c40, c41, c + 4 &* columns) }
        if rows > 5 { store(c50, c51, c + 5 &* columns) }
    }

    /// One row of C: four panels at a time (eight accumulators), then single panels.
    @inline(never)
    private func row(_ a: UnsafePointer<Float>, _ bias: Float, _ b: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>) {
        let rowBytes = columns &* 4
        var column = 0
        while column &+ 4 &* Self.panelWidth <= columns {
            var c0 = SIMD8(repeating: bias), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
            var bk = UnsafeRawPointer(b + column)
            for k in 0..<depth {
                let x = SIMD8(repeating: a[k])
                c0.accumulate(x, bk.loadUnaligned(as: SIMD8<Float>.self))
                c1.accumulate(x, bk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
                c2.accumulate(x, bk.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self))
                c3.accumulate(x, bk.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self))
                c4.accumulate(x, bk.loadUnaligned(fromByteOffset: 128, as: SIMD8<Float>.self))
                c5.accumulate(x, bk.loadUnaligned(fromByteOffset: 160, as: SIMD8<Float>.self))
                c6.accumulate(x, bk.loadUnaligned(fromByteOffset: 192, as: SIMD8<Float>.self))
                c7.accumulate(x, bk.loadUnaligned(fromByteOffset: 224, as: SIMD8<Float>.self))
                bk += rowBytes
            }
            store(c0, c1, c + column); store(c2, c3, c + column + 16)
            store(c4, c5, c + column + 32); store(c6, c7, c + column + 48)
            column &+= 4 &* Self.panelWidth
        }
        while column < columns {
            var c0 = SIMD8(repeating: bias), c1 = c0
            var bk = UnsafeRawPointer(b + column)
            for k in 0..<depth {
                let x = SIMD8(repeating: a[k])
                c0.accumulate(x, bk.loadUnaligned(as: SIMD8<Float>.self))
                c1.accumulate(x, bk.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self))
                bk += rowBytes
            }
            store(c0, c1, c + column)
            column &+= Self.panelWidth
        }
    }

    @inline(__always)
    private func store(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ c: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(c).storeBytes(of: activation(v0), as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(c + 8).storeBytes(of: activation(v1), as: SIMD8<Float>.self)
    }
}
