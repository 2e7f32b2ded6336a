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
                        for ox in 0..<x.output {
                            let out = destination + (oy * x.output + ox) * channels
                            out.update(from: bias.baseAddress!, count: channels)
                            for ky in 0..<y.filter {
                                let iy = y.source(oy, ky)
                                guard iy >= 0, iy < y.input else { continue }
                                for kx in 0..<x.filter {
                                    let ix = x.source(ox, kx)
                                    guard ix >= 0, ix < x.input else { continue }
                                    let pixel = source + (iy * x.input + ix) * inputChannels
                                    let taps = w.baseAddress! + (ky * x.filter + kx) * channels
                                    if multiplier == 1 {
                                        accumulate(out, pixel, taps, channels)
                                    } else {
                                        for c in 0..<channels { out[c] += pixel[c / multiplier] * taps[c] }
                                    }
                                }
                            }
                            activation.apply(out, count: channels)
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func accumulate(_ out: UnsafeMutablePointer<Float>, _ pixel: UnsafePointer<Float>, _ taps: UnsafePointer<Float>, _ count: Int) {
        var c = 0
        let o = UnsafeMutableRawPointer(out), p = UnsafeRawPointer(pixel), t = UnsafeRawPointer(taps)
        while c + 8 <= count {
            let sum = o.loadUnaligned(fromByteOffset: 4 * c, as: SIMD8<Float>.self)
                + p.loadUnaligned(fromByteOffset: 4 * c, as: SIMD8<Float>.self) * t.loadUnaligned(fromByteOffset: 4 * c, as: SIMD8<Float>.self)
            o.storeBytes(of: sum, toByteOffset: 4 * c, as: SIMD8<Float>.self)
            c += 8
        }
        while c < count { out[c] += pixel[c] * taps[c]; c += 1 }
    }
}
