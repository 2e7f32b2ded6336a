import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// AVERAGE_POOL_2D on uint8 or int8. XNNPACK does not take it (LiteRT 2.3.0 leaves every quantized average pool to
/// its builtin kernel), so this is TFLite's arithmetic: the stored values of the window's positions inside the input
/// summed and divided by their count in integers, rounding half away from zero (C++ division truncates, so the half
/// count is added to positive sums and subtracted from negative ones), clamped to the activation's bounds. TFLite
/// requires the output to keep the input's scale and zero point, so no requantization.
struct QuantizedAveragePoolKernel: Kernel {
    let window: QuantizedPoolWindow
    var signed: Bool { window.signed }
    var input: Int { window.input }
    var output: Int { window.output }
    var batch: Int { window.batch }
    var channels: Int { window.channels }
    var y: WindowAxis { window.y }
    var x: WindowAxis { window.x }
    var bounds: ClosedRange<Int32> { window.bounds }

    init(_ context: OperatorContext) throws(EngineError) {
        // LiteRT runs every quantized average pool with its builtin kernel.
        window = try QuantizedPoolWindow(context) { _ in true }
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
