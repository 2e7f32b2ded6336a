import VisionTasksEngineSIMD

/// The first convolution of the mobile models: an RGB image (3 channels) into 16 or 24 channels through a 3 × 3
/// or 5 × 5 window at stride 2. Run directly from the image: with dilation 1 each filter row of a window is one
/// contiguous run of width × channels floats (9 or 15), so a window is a few runs, read where they lie.
///
/// Through im2col and the GEMM, the 27-float patch of each of 12,544 pixels was copied and read back (pose
/// detector: 0.40 ms, 40 GFLOP/s). Here four pixels (24 channels: 3 vectors) or six (16 channels: 2 vectors) share
/// each broadcast tap row of weights, twelve accumulators as in the GEMM tile.
struct StemConvolution: Sendable {
    /// [patch × outputChannels]: for each (ky, kx, input channel), the weights of every output channel.
    let weights: [Float]
    let bias: [Float]
    let outputChannels: Int
    let inputChannels: Int
    let filterHeight: Int
    let runLength: Int

    /// Nil unless the convolution has this shape: ≤ 4 input channels, 16 or 24 output channels, dilation 1.
    init?(weights ohwi: [Float], bias: [Float], outputChannels: Int, inputChannels: Int, y: WindowAxis, x: WindowAxis) {
        guard inputChannels <= 4, outputChannels == 16 || outputChannels == 24, y.dilation == 1, x.dilation == 1,
              y.filter > 1 || x.filter > 1 else { return nil }
        let patch = y.filter * x.filter * inputChannels
        var weights = [Float](repeating: 0, count: patch * outputChannels)
        for o in 0..<outputChannels {
            for k in 0..<patch { weights[k * outputChannels + o] = ohwi[o * patch + k] }
        }
        self.weights = weights
        self.bias = bias
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        filterHeight = y.filter
        runLength = x.filter * inputChannels
    }

    /// How many consecutive output pixels one step computes.
    var pixelsPerStep: Int { outputChannels == 24 ? 4 : 6 }

    /// Output pixels `count` × ``pixelsPerStep`` starting at `out`, whose windows lie inside the input and start at
    /// `window`, `pixelStep` floats apart, their filter rows `rowStep` floats apart.
    func run(steps count: Int, window: UnsafePointer<Float>, pixelStep: Int, rowStep: Int, out: UnsafeMutablePointer<Float>,
             activation: ActivationClamp) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                var window = window, out = out
                for _ in 0..<count {
                    if outputChannels == 24 {
                        step4x24(window, pixelStep, rowStep, out, w.baseAddress!, b.baseAddress!, activation)
                        window += 4 &* pixelStep
                        out += 4 &* 24
                    } else {
                        step6x16(window, pixelStep, rowStep, out, w.baseAddress!, b.baseAddress!, activation)
                        window += 6 &* pixelStep
                        out += 6 &* 16
                    }
                }
            }
        }
    }

    @inline(never)
    private func step4x24(_ window: UnsafePointer<Float>, _ pixelStep: Int, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ activation: ActivationClamp) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        let b0 = load(bias), b1 = load(bias + 8), b2 = load(bias + 16)
        var c00 = b0, c01 = b1, c02 = b2, c10 = b0, c11 = b1, c12 = b2
        var c20 = b0, c21 = b1, c22 = b2, c30 = b0, c31 = b1, c32 = b2
        var wk = w
        for ky in 0..<filterHeight {
            let p0 = window + ky &* rowStep, p1 = p0 + pixelStep, p2 = p0 + 2 &* pixelStep, p3 = p0 + 3 &* pixelStep
            for j in 0..<runLength {
                let w0 = load(wk), w1 = load(wk + 8), w2 = load(wk + 16)
                var v = SIMD8(repeating: p0[j])
                c00.accumulate(v, w0); c01.accumulate(v, w1); c02.accumulate(v, w2)
                v = SIMD8(repeating: p1[j])
                c10.accumulate(v, w0); c11.accumulate(v, w1); c12.accumulate(v, w2)
                v = SIMD8(repeating: p2[j])
                c20.accumulate(v, w0); c21.accumulate(v, w1); c22.accumulate(v, w2)
                v = SIMD8(repeating: p3[j])
                c30.accumulate(v, w0); c31.accumulate(v, w1); c32.accumulate(v, w2)
                wk += 24
            }
        }
        @inline(__always) func store(_ v: SIMD8<Float>, _ offset: Int) {
            UnsafeMutableRawPointer(out + offset).storeBytes(of: activation(v), as: SIMD8<Float>.self)
        }
        store(c00, 0); store(c01, 8); store(c02, 16)
        store(c10, 24); store(c11, 32); store(c12, 40)
        store(c20, 48); store(c21, 56); store(c22, 64)
        store(c30, 72); store(c31, 80); store(c32, 88)
    }

    @inline(never)
    private func step6x16(_ window: UnsafePointer<Float>, _ pixelStep: Int, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ activation: ActivationClamp) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        let b0 = load(bias), b1 = load(bias + 8)
        var c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1
        var c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1
        var wk = w
        for ky in 0..<filterHeight {
            let p0 = window + ky &* rowStep
            for j in 0..<runLength {
                let w0 = load(wk), w1 = load(wk + 8)
                var v = SIMD8(repeating: p0[j])
                c00.accumulate(v, w0); c01.accumulate(v, w1)
                v = SIMD8(repeating: p0[pixelStep &+ j])
                c10.accumulate(v, w0); c11.accumulate(v, w1)
                v = SIMD8(repeating: p0[2 &* pixelStep &+ j])
                c20.accumulate(v, w0); c21.accumulate(v, w1)
                v = SIMD8(repeating: p0[3 &* pixelStep &+ j])
                c30.accumulate(v, w0); c31.accumulate(v, w1)
                v = SIMD8(repeating: p0[4 &* pixelStep &+ j])
                c40.accumulate(v, w0); c41.accumulate(v, w1)
                v = SIMD8(repeating: p0[5 &* pixelStep &+ j])
                c50.accumulate(v, w0); c51.accumulate(v, w1)
                wk += 16
            }
        }
        @inline(__always) func store(_ v: SIMD8<Float>, _ offset: Int) {
            UnsafeMutableRawPointer(out + offset).storeBytes(of: activation(v), as: SIMD8<Float>.self)
        }
        store(c00, 0); store(c01, 8); store(c10, 16); store(c11, 24); store(c20, 32); store(c21, 40)
        store(c30, 48); store(c31, 56); store(c40, 64); store(c41, 72); store(c50, 80); store(c51, 88)
    }
}
