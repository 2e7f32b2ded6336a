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
        y = try context.windowAxis(input: i.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding)
        x = try context.windowAxis(input: i.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding)
        weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: f[3])
        guard weights.count == f[1] * f[2] * f[3], bias.count == f[3] else { throw context.fail("weights/bias sizes") }
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        try context.expect([batch, y.output, x.output, f[3]], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let channels = outputChannels
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { bias in
                for b in 0..<batch {
                    let source = memory.floats(input) + b * y.input * x.input * inputChannels
                    let destination = memory.floats(output) + b * y.output * x.output * channels
                    for oy in 0..<y.output {
                        // Taps that fall inside the input for this row, the same for every column.
                        let kyStart = max(0, (y.padBefore - oy * y.stride + y.dilation - 1) / y.dilation)
                        let kyEnd = min(y.filter, (y.input + y.padBefore - oy * y.stride + y.dilation - 1) / y.dilation)
                        for ox in 0..<x.output {
                            let kxStart = max(0, (x.padBefore - ox * x.stride + x.dilation - 1) / x.dilation)
                            let kxEnd = min(x.filter, (x.input + x.padBefore - ox * x.stride + x.dilation - 1) / x.dilation)
                            let out = destination + (oy * x.output + ox) * channels
                            if multiplier == 1 {
                                pixel(out, source, w.baseAddress!, bias.baseAddress!, oy, ox, kyStart, kyEnd, kxStart, kxEnd)
                            } else {
                                out.update(from: bias.baseAddress!, count: channels)
                                for ky in kyStart..<max(kyStart, kyEnd) {
                                    for kx in kxStart..<max(kxStart, kxEnd) {
                                        let input = source + (y.source(oy, ky) * x.input + x.source(ox, kx)) * inputChannels
                                        let taps = w.baseAddress! + (ky * x.filter + kx) * channels
                                        for c in 0..<channels { out[c] += input[c / multiplier] * taps[c] }
                                    }
                                }
                                activation.apply(out, count: channels)
                            }
                        }
                    }
                }
            }
        }
    }

    /// One output pixel of a multiplier-1 depthwise convolution: eight channels at a time held in a register
    /// across all taps, then bias-added and activated once.
    @inline(__always)
    private func pixel(_ out: UnsafeMutablePointer<Float>, _ source: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>,
                       _ bias: UnsafePointer<Float>, _ oy: Int, _ ox: Int, _ kyStart: Int, _ kyEnd: Int, _ kxStart: Int, _ kxEnd: Int) {
        let channels = inputChannels
        var c = 0
        while c + 8 <= channels {
            var acc = UnsafeRawPointer(bias).loadUnaligned(fromByteOffset: 4 * c, as: SIMD8<Float>.self)
            for ky in kyStart..<max(kyStart, kyEnd) {
                let row = source + y.source(oy, ky) * x.input * channels + c
                let tapRow = w + ky * x.filter * channels + c
                for kx in kxStart..<max(kxStart, kxEnd) {
                    let v = UnsafeRawPointer(row + x.source(ox, kx) * channels).loadUnaligned(as: SIMD8<Float>.self)
                    let t = UnsafeRawPointer(tapRow + kx * channels).loadUnaligned(as: SIMD8<Float>.self)
                    acc += v * t
                }
            }
            UnsafeMutableRawPointer(out + c).storeBytes(of: activation(acc), as: SIMD8<Float>.self)
            c += 8
        }
        while c < channels {
            var acc = bias[c]
            for ky in kyStart..<max(kyStart, kyEnd) {
                for kx in kxStart..<max(kxStart, kxEnd) {
                    acc += source[(y.source(oy, ky) * x.input + x.source(ox, kx)) * channels + c] * w[(ky * x.filter + kx) * channels + c]
                }
            }
            out[c] = activation(acc)
            c += 1
        }
    }
}
