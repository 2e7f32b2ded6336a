import VisionTasksModelFormat

/// MAX_POOL_2D on uint8 or int8: the largest stored value of each window (the order of quantized values is the
/// order of the reals they stand for), clamped to the fused activation's bounds. TFLite requires the output to have
/// the input's scale and zero point.
struct QuantizedMaxPoolKernel: Kernel {
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
        // XNNPACK does not take a pool whose stride exceeds its filter; LiteRT runs its builtin kernel then.
        window = try QuantizedPoolWindow(context) { options in options.strideHeight > options.filterHeight || options.strideWidth > options.filterWidth }
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let source = memory.raw(input).assumingMemoryBound(to: Element.self)
        let destination = memory.raw(output).assumingMemoryBound(to: Element.self)
        let lower = Element(truncatingIfNeeded: bounds.lowerBound), upper = Element(truncatingIfNeeded: bounds.upperBound)
        for b in 0..<batch {
            let image = source + b * y.input * x.input * channels
            for oy in 0..<y.output {
                let rows = y.validTaps(oy)
                for ox in 0..<x.output {
                    let columns = x.validTaps(ox)
                    let out = destination + ((b * y.output + oy) * x.output + ox) * channels
                    // Tap by tap over every channel at once (loops the optimizer vectorizes): channel by channel over
                    // the taps, YOLOv8's three 5 × 5 pools took 0.97 ms, sixty times LiteRT's.
                    out.initialize(repeating: Element.min, count: channels)
                    for ky in rows {
                        for kx in columns {
                            let tap = image + (y.source(oy, ky) * x.input + x.source(ox, kx)) * channels
                            for c in 0..<channels { out[c] = max(out[c], tap[c]) }
                        }
                    }
                    for c in 0..<channels { out[c] = min(max(out[c], lower), upper) }
                }
            }
        }
    }
}

/// What both quantized pools read from the model: the tensors, the window, and the output's quantized bounds (TFLite
/// keeps the input's scale and zero point on a pool's output).
struct QuantizedPoolWindow: Sendable {
    let signed: Bool
    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let y: WindowAxis
    let x: WindowAxis
    let bounds: ClosedRange<Int32>

    /// - Parameter builtinBounds: whether LiteRT runs this pool with its builtin kernel, which rounds the activation's
    ///   bounds its own way (``Quantization/builtinBounds(_:)``), rather than with XNNPACK.
    init(_ context: OperatorContext, builtinBounds: (Pool2DOptions) -> Bool) throws(EngineError) {
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
        guard let bounds = builtinBounds(options) ? out.builtinBounds(options.activation) : out.bounds(options.activation) else {
            throw context.unsupported("fused \(options.activation) on a quantized output")
        }
        self.bounds = bounds
        try context.expect([batch, y.output, x.output, channels], forOutput: 0)
    }
}
