import VisionTasksModelFormat

/// DEPTHWISE_CONV_2D on uint8 or int8 tensors: per output pixel, eight channels at a time in int32 lanes
/// (input − zero point times filter − zero point, exact), requantized per channel like ``QuantizedGEMM``'s tiles.
/// Taps outside the input are skipped, which is padding with the zero point. Output rows are split over threads.
struct QuantizedDepthwiseConv2DKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let batch: Int
    let inputChannels: Int
    let channels: Int
    let multiplier: Int
    let y: WindowAxis
    let x: WindowAxis
    let inputZeroPoint: Int32
    /// [tap][output channel], filter less its zero point.
    let weights: [Int32]
    let bias: [Int32]
    let scales: [Float]
    let requantization: Requantization

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .depthwiseConv2D(options) = context.options else { throw context.fail("missing DepthwiseConv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        signed = try context.requireSameQuantizedType([output, filter]) == .int8
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input or filter is not 4-D")
        }
        let f = context.shape(filter)
        guard f[0] == 1, i.c > 0, f[3] % i.c == 0 else { throw context.fail("filter \(f) for \(i.c) input channels") }
        batch = i.n
        inputChannels = i.c
        channels = f[3]
        multiplier = f[3] / i.c
        let padded = context.paddedSpatialSize(i)
        (y, x) = context.unpadding(
            try context.windowAxis(input: padded.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding),
            try context.windowAxis(input: padded.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding))
        try context.expect([batch, y.output, x.output, channels], forOutput: 0)
        let layer = try QuantizedLayer(context, filter: filter, filterAxis: 3, channels: channels, activation: options.activation)
        inputZeroPoint = layer.input.zeroPoint
        weights = layer.weights.map(Int32.init)
        bias = layer.bias
        scales = layer.scales
        requantization = layer.requantization
    }

    func run(_ memory: TensorMemory) {
        for b in 0..<batch {
            memory.parallel.forEach(y.output, Rows(
                kernel: self, source: UnsafeRawPointer(memory.raw(input)) + b * y.input * x.input * inputChannels,
                destination: memory.raw(output) + b * y.output * x.output * channels))
        }
    }

    private struct Rows: ParallelLoop {
        let kernel: QuantizedDepthwiseConv2DKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer

        func run(_ rows: Range<Int>) {
            if kernel.signed {
                kernel.rows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
            } else {
                kernel.rows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    private func rows<Element: QuantizedElement>(_ rows: Range<Int>, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                scales.withUnsafeBufferPointer { s in
                    for oy in rows { row(oy, source, destination, w.baseAddress!, b.baseAddress!, s.baseAddress!) }
                }
            }
        }
    }

    private func row<Element: QuantizedElement>(_ oy: Int, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>,
                     _ w: UnsafePointer<Int32>, _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>) {
        let taps = y.validTaps(oy)
        let store = RequantizedStore<Element>(requantization)
        let zero = SIMD8<Int32>(repeating: inputZeroPoint)
        let vectorChannels = multiplier == 1 ? channels & ~7 : 0
        for ox in 0..<x.output {
            let columns = x.validTaps(ox)
            let out = destination + (oy * x.output + ox) * channels
            var c = 0
            while c < vectorChannels {
                var acc = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Int32>.self)
                for ky in taps {
                    let line = source + y.source(oy, ky) * x.input * inputChannels
                    for kx in columns {
                        let values = SIMD8<Int32>(widening: line + x.source(ox, kx) * inputChannels + c, signed: Element.isSigned)
                        let tap = UnsafeRawPointer(w + (ky * x.filter + kx) * channels + c).loadUnaligned(as: SIMD8<Int32>.self)
                        acc &+= (values &- zero) &* tap
                    }
                }
                let scale = UnsafeRawPointer(scales + c).loadUnaligned(as: SIMD8<Float>.self)
                store.store(acc, scale, out + c)
                c += 8
            }
            while c < channels {
                var acc = bias[c]
                let ic = c / multiplier
                for ky in taps {
                    let line = source + y.source(oy, ky) * x.input * inputChannels
                    for kx in columns {
                        acc &+= (Int32(line[x.source(ox, kx) * inputChannels + ic]) - inputZeroPoint) * w[(ky * x.filter + kx) * channels + c]
                    }
                }
                out[c] = Element(truncatingIfNeeded: requantization(acc, scale: scales[c]))
                c += 1
            }
        }
    }
}
