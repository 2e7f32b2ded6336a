import VisionTasksModelFormat

/// RESIZE_BILINEAR on uint8 or int8, as XNNPACK computes it: sample positions as TFLite defines them (float), the
/// fractions as Q11 integers rounded half to even, the interpolation in int32 (horizontal, then vertical) and a
/// rounding shift right by 22. The output keeps the input's quantization.
struct QuantizedResizeBilinearKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    struct Tap: Sendable {
        let lower: Int
        let upper: Int
        /// The fraction toward `upper`, in units of 1/2048.
        let weight: Int32
    }

    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let inputHeight: Int
    let inputWidth: Int
    let rows: [Tap]
    let columns: [Tap]

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .resizeBilinear(alignCorners, halfPixelCenters) = context.options else {
            throw context.fail("missing ResizeBilinearOptions")
        }
        input = try context.input(0)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([output]) == .int8
        guard try context.quantization(input) == context.quantization(output) else {
            throw context.unsupported("output quantization differs from the input's")
        }
        let geometry = try ResizeGeometry(context, input: input)
        batch = geometry.batch
        channels = geometry.channels
        inputHeight = geometry.height
        inputWidth = geometry.width
        // XNNPACK's indirection setup: positions in float, the half-pixel offset folded as 0.5 × scale − 0.5,
        // clamped to the last row or column, truncated.
        func taps(_ inputSize: Int, _ outputSize: Int) -> [Tap] {
            let adjust = alignCorners && outputSize != 1 ? 1 : 0
            let scale = Float(inputSize - adjust) / Float(outputSize - adjust)
            let last = Float(inputSize - 1)
            return (0..<outputSize).map { o in
                let position: Float
                if alignCorners || !halfPixelCenters {
                    position = min(Float(o) * scale, last)
                } else {
                    let offset = 0.5 * scale - 0.5
                    position = min(max(Float(o) * scale + offset, 0), last)
                }
                let lower = Int(position)
                return Tap(lower: lower, upper: min(lower + 1, inputSize - 1),
                           weight: Int32(((position - Float(lower)) * 2048).rounded(.toNearestOrEven)))
            }
        }
        rows = taps(geometry.height, geometry.outputHeight)
        columns = taps(geometry.width, geometry.outputWidth)
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let source = memory.raw(input).assumingMemoryBound(to: Element.self)
        var out = memory.raw(output).assumingMemoryBound(to: Element.self)
        for b in 0..<batch {
            let image = source + b * inputHeight * inputWidth * channels
            for row in rows {
                let top = image + row.lower * inputWidth * channels, bottom = image + row.upper * inputWidth * channels
                for column in columns {
                    let l = column.lower * channels, r = column.upper * channels
                    for k in 0..<channels {
                        let tl = Int32(top[l + k]), tr = Int32(top[r + k]), bl = Int32(bottom[l + k]), br = Int32(bottom[r + k])
                        let upper = (tl << 11) + (tr - tl) * column.weight
                        let lower = (bl << 11) + (br - bl) * column.weight
                        let value = ((upper << 11) + (lower - upper) * row.weight + (1 << 21)) >> 22
                        out[k] = Element(truncatingIfNeeded: value)
                    }
                    out += channels
                }
            }
        }
    }
}
