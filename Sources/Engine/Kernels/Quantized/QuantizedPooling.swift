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
        // Rows of some 64 K window values a thread at least: a U-Net's 2 × 2 pools over 256 × 256 × 16 split in two.
        let work = max(1, x.output * channels * y.filter * x.filter)
        memory.parallel.forEach(batch * y.output, minimumPerThread: max(1, (1 << 16) / work),
                                Rows(kernel: self, source: memory.raw(input), destination: memory.raw(output)))
    }

    /// Output rows (of all the batch's images), typed inside: a generic loop would run unspecialized on the pool.
    private struct Rows: ParallelLoop {
        let kernel: QuantizedMaxPoolKernel
        let source: UnsafeMutableRawPointer
        let destination: UnsafeMutableRawPointer

        func run(_ rows: Range<Int>) {
            if kernel.signed {
                kernel.rows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
            } else {
                kernel.rows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    /// Tap by tap over sixteen channels at once, then the channels past the last sixteen one at a time. (Channel by
    /// channel over the taps, YOLOv8's three 5 × 5 pools took sixty times LiteRT's time; with every pixel's channels
    /// through loops the optimizer vectorized, with their set-up and tails, a U-Net's 2 × 2 pools of 16 channels
    /// still took six times LiteRT's.)
    private func rows<Element: QuantizedElement>(_ rows: Range<Int>, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>) {
        let lower = Element(truncatingIfNeeded: bounds.lowerBound), upper = Element(truncatingIfNeeded: bounds.upperBound)
        let lowest = SIMD16<Element>(repeating: lower), highest = SIMD16<Element>(repeating: upper)
        let vectors = channels & ~15
        for row in rows {
            let b = row / y.output, oy = row % y.output
            let image = source + b &* y.input &* x.input &* channels
            let taps = y.validTaps(oy)
            for ox in 0..<x.output {
                let columns = x.validTaps(ox)
                let out = destination + (row &* x.output &+ ox) &* channels
                var c = 0
                while c < vectors {
                    var m = SIMD16<Element>(repeating: .min)
                    for ky in taps {
                        for kx in columns {
                            let tap = image + ((y.source(oy, ky) &* x.input &+ x.source(ox, kx)) &* channels &+ c)
                            m = pointwiseMax(m, UnsafeRawPointer(tap).loadUnaligned(as: SIMD16<Element>.self))
                        }
                    }
                    UnsafeMutableRawPointer(out + c).storeBytes(of: m.clamped(lowerBound: lowest, upperBound: highest), as: SIMD16<Element>.self)
                    c &+= 16
                }
                while c < channels {
                    var m = Element.min
                    for ky in taps {
                        for kx in columns { m = max(m, image[(y.source(oy, ky) &* x.input &+ x.source(ox, kx)) &* channels &+ c]) }
                    }
                    out[c] = min(max(m, lower), upper)
                    c &+= 1
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
