import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// AVERAGE_POOL_2D on uint8 or int8. XNNPACK does not take it (LiteRT 2.3.0 leaves every quantized average pool to
/// its builtin kernel), so this is TFLite's arithmetic: the stored values of the window's positions inside the input
/// summed and divided by their count in integers, rounding half away from zero (C++ division truncates, so the half
/// count is added to positive sums and subtracted from negative ones), clamped to the activation's bounds. TFLite
/// requires the output to keep the input's scale and zero point, so no requantization.
struct QuantizedAveragePoolKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let y: WindowAxis
    let x: WindowAxis
    let bounds: ClosedRange<Int32>

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .pool2D(options) = context.options else { throw context.fail("missing Pool2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([output]) == .int8
        let q = try context.quantization(input), out = try context.quantization(output)
        guard q == out else { throw context.unsupported("output quantization differs from the input's") }
        guard let i = nhwc(context.shape(input)) else { throw context.fail("input is not 4-D") }
        batch = i.n
        channels = i.c
        y = try context.windowAxis(input: i.h, filter: Int(options.filterHeight), stride: options.strideHeight, dilation: 1, padding: options.padding)
        x = try context.windowAxis(input: i.w, filter: Int(options.filterWidth), stride: options.strideWidth, dilation: 1, padding: options.padding)
        guard let bounds = out.builtinBounds(options.activation) else { throw context.unsupported("fused \(options.activation) on a quantized output") }
        self.bounds = bounds
        try context.expect([batch, y.output, x.output, channels], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let source = memory.raw(input).assumingMemoryBound(to: Element.self)
        let destination = memory.raw(output).assumingMemoryBound(to: Element.self)
        for b in 0..<batch {
            let image = source + b * y.input * x.input * channels
            for oy in 0..<y.output {
                let rows = y.validTaps(oy)
                for ox in 0..<x.output {
                    let columns = x.validTaps(ox)
                    let count = Int32(rows.count * columns.count), half = count / 2
                    let out = destination + ((b * y.output + oy) * x.output + ox) * channels
                    // Eight channels at a time: the window's pixels are contiguous runs of channels.
                    var c = 0
                    while c + 8 <= channels {
                        var sums = SIMD8<Int32>()
                        for ky in rows {
                            for kx in columns {
                                sums &+= SIMD8<Int32>(widening: image + (y.source(oy, ky) * x.input + x.source(ox, kx)) * channels + c,
                                                      signed: Element.isSigned)
                            }
                        }
                        for lane in 0..<8 {
                            let sum = sums[lane]
                            let average = sum > 0 ? (sum + half) / count : (sum - half) / count
                            out[c + lane] = Element(truncatingIfNeeded: min(max(average, bounds.lowerBound), bounds.upperBound))
                        }
                        c += 8
                    }
                    for c in c..<channels {
                        var sum: Int32 = 0
                        for ky in rows {
                            for kx in columns {
                                sum &+= Int32(image[(y.source(oy, ky) * x.input + x.source(ox, kx)) * channels + c])
                            }
                        }
                        let average = sum > 0 ? (sum + half) / count : (sum - half) / count
                        out[c] = Element(truncatingIfNeeded: min(max(average, bounds.lowerBound), bounds.upperBound))
                    }
                }
            }
        }
    }
}
