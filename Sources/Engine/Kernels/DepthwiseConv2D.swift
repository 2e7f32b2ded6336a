import Format

/// DEPTHWISE_CONV_2D: output channel `c × multiplier + m` filters input channel `c` with its own kh × kw taps.
struct DepthwiseConv2DKernel: Kernel {
    let input: Int
    let output: Int
    let batch: Int
    let inputChannels: Int
    let multiplier: Int
    let y: WindowAxis
    let x: WindowAxis
    /// [kh, kw, outputChannels], as the model stores it.
    let weights: [Float]
    let bias: [Float]
    let activation: Activation

    var outputChannels: Int { inputChannels * multiplier }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .depthwiseConv2D(options) = context.options else { throw context.fail("missing DepthwiseConv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        try context.requireFloat([input, output, filter])
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input or filter is not 4-D")
        }
        let f = context.shape(filter)
        guard f[0] == 1, i.c > 0, f[3] % i.c == 0 else { throw context.fail("filter \(f) for \(i.c) input channels") }
        batch = i.n
        inputChannels = i.c
        multiplier = f[3] / i.c
        let padded = context.paddedSpatialSize(i)
        (y, x) = context.unpadding(
            try context.windowAxis(input: padded.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding),
            try context.windowAxis(input: padded.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding))
        weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: f[3])
        guard weights.count == f[1] * f[2] * f[3], bias.count == f[3] else { throw context.fail("weights/bias sizes") }
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        try context.expect([batch, y.output, x.output, f[3]], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        for b in 0..<batch {
            let source = memory.floats(input) + b * y.input * x.input * inputChannels
            let destination = memory.floats(output) + b * y.output * x.output * outputChannels
            memory.parallel.forEach(y.output, minimumPerThread: 2, Rows(kernel: self, source: source, destination: destination))
        }
    }

    private struct Rows: ParallelLoop {
        let kernel: DepthwiseConv2DKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        func run(_ rows: Range<Int>) { kernel.rows(rows, source, destination) }
    }

    private func rows(_ rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { bias in
                for oy in rows {
                    if multiplier == 1 {
                        row(oy, source, destination, w.baseAddress!, bias.baseAddress!)
                    } else {
                        genericRow(oy, source, destination, w.baseAddress!, bias.baseAddress!)
                    }
                }
            }
        }
    }

    /// One output row, multiplier 1. Taps outside the input are skipped (so borders need no padding copy); each
    /// eight-channel block accumulates in two registers, alternating by tap, so that consecutive fused
    /// multiply-adds do not wait on each other's results.
    @inline(__always)
    private func row(_ oy: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                     _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = inputChannels
        let ky = y.validTaps(oy)
        let rowBase = source + (oy &* y.stride &- y.padBefore) &* x.input &* channels
        let rowStep = y.dilation &* x.input &* channels, columnStep = x.dilation &* channels, tapRowStep = x.filter &* channels
        for ox in 0..<x.output {
            let kx = x.validTaps(ox)
            let pixelBase = rowBase + (ox &* x.stride &- x.padBefore) &* channels
            let out = destination + (oy &* x.output &+ ox) &* channels
            var c = 0
            if x.filter == 3, y.filter == 3, kx.count == 3, ky.count == 3, x.dilation == 1, y.dilation == 1 {
                // Interior pixel of a 3 × 3 filter: nine taps unrolled over three independent accumulators.
                let top = pixelBase, middle = pixelBase + rowStep, bottom = pixelBase + 2 &* rowStep
                @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
                while c &+ 8 <= channels {
                    let t = w + c
                    var a0 = load(bias + c), a1 = SIMD8<Float>(), a2 = SIMD8<Float>()
                    a0.addProduct(load(top + c), load(t))
                    a1.addProduct(load(top + (channels &+ c)), load(t + channels))
                    a2.addProduct(load(top + (2 &* channels &+ c)), load(t + 2 &* channels))
                    a0.addProduct(load(middle + c), load(t + 3 &* channels))
                    a1.addProduct(load(middle + (channels &+ c)), load(t + 4 &* channels))
                    a2.addProduct(load(middle + (2 &* channels &+ c)), load(t + 5 &* channels))
                    a0.addProduct(load(bottom + c), load(t + 6 &* channels))
                    a1.addProduct(load(bottom + (channels &+ c)), load(t + 7 &* channels))
                    a2.addProduct(load(bottom + (2 &* channels &+ c)), load(t + 8 &* channels))
                    UnsafeMutableRawPointer(out + c).storeBytes(of: activation(a0 + a1 + a2), as: SIMD8<Float>.self)
                    c &+= 8
                }
            }
            while c &+ 8 <= channels {
                var acc0 = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Float>.self)
                var acc1 = SIMD8<Float>()
                var ty = ky.lowerBound
                while ty < ky.upperBound {
                    let inputRow = pixelBase + (ty &* rowStep &+ c)
                    let tapRow = w + (ty &* tapRowStep &+ c)
                    var tx = kx.lowerBound
                    while tx &+ 1 < kx.upperBound {
                        acc0.addProduct(UnsafeRawPointer(inputRow + tx &* columnStep).loadUnaligned(as: SIMD8<Float>.self),
                                        UnsafeRawPointer(tapRow + tx &* channels).loadUnaligned(as: SIMD8<Float>.self))
                        acc1.addProduct(UnsafeRawPointer(inputRow + (tx &+ 1) &* columnStep).loadUnaligned(as: SIMD8<Float>.self),
                                        UnsafeRawPointer(tapRow + (tx &+ 1) &* channels).loadUnaligned(as: SIMD8<Float>.self))
                        tx &+= 2
                    }
                    if tx < kx.upperBound {
                        acc0.addProduct(UnsafeRawPointer(inputRow + tx &* columnStep).loadUnaligned(as: SIMD8<Float>.self),
                                        UnsafeRawPointer(tapRow + tx &* channels).loadUnaligned(as: SIMD8<Float>.self))
                    }
                    ty &+= 1
                }
                UnsafeMutableRawPointer(out + c).storeBytes(of: activation(acc0 + acc1), as: SIMD8<Float>.self)
                c &+= 8
            }
            while c < channels {
                var acc = bias[c]
                for ty in ky {
                    for tx in kx {
                        acc += pixelBase[ty &* rowStep &+ tx &* columnStep &+ c] * w[ty &* tapRowStep &+ tx &* channels &+ c]
                    }
                }
                out[c] = activation(acc)
                c &+= 1
            }
        }
    }

    private func genericRow(_ oy: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                            _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = outputChannels
        for ox in 0..<x.output {
            let out = destination + (oy * x.output + ox) * channels
            out.update(from: bias, count: channels)
            for ky in y.validTaps(oy) {
                for kx in x.validTaps(ox) {
                    let input = source + (y.source(oy, ky) * x.input + x.source(ox, kx)) * inputChannels
                    let taps = w + (ky * x.filter + kx) * channels
                    for c in 0..<channels { out[c] += input[c / multiplier] * taps[c] }
                }
            }
            activation.apply(out, count: channels)
        }
    }
}
