import CVisionTasksOnoneKernels
import VisionTasksModelFormat

/// MAX_POOL_2D and AVERAGE_POOL_2D. The average counts only window positions inside the input, as TFLite does.
struct Pooling2DKernel: Kernel {
    enum Mode: Sendable { case maximum, average }

    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let y: WindowAxis
    let x: WindowAxis
    let mode: Mode
    let activation: Activation
    /// The maximum through its C twin (``KernelConfig/ononeLoops``: a build without optimization).
    let ononeLoops: Bool

    init(_ context: OperatorContext, mode: Mode) throws(EngineError) {
        guard case let .pool2D(options) = context.options else { throw context.fail("missing Pool2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        guard let i = nhwc(context.shape(input)) else { throw context.fail("input is not 4-D") }
        batch = i.n
        channels = i.c
        y = try context.windowAxis(input: i.h, filter: Int(options.filterHeight), stride: options.strideHeight, dilation: 1, padding: options.padding)
        x = try context.windowAxis(input: i.w, filter: Int(options.filterWidth), stride: options.strideWidth, dilation: 1, padding: options.padding)
        self.mode = mode
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        ononeLoops = context.kernels.ononeLoops
        try context.expect([batch, y.output, x.output, channels], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        for b in 0..<batch {
            let source = memory.floats(input) + b * y.input * x.input * channels
            let destination = memory.floats(output) + b * y.output * x.output * channels
            memory.parallel.forEach(y.output, minimumPerThread: KernelConfig.poolingRowsMinimumPerThread, Rows(kernel: self, source: source, destination: destination))
        }
    }

    private struct Rows: ParallelLoop {
        let kernel: Pooling2DKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        func run(_ rows: Range<Int>) { kernel.rows(rows, source, destination) }
    }

    private func rows(_ rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>) {
        if takesPairs { return maximumOfPairs(rows, source, destination) }
        for oy in rows {
            let y0 = max(y.source(oy, 0), 0), y1 = min(y.source(oy, 0) + y.filter, y.input)
            for ox in 0..<x.output {
                let x0 = max(x.source(ox, 0), 0), x1 = min(x.source(ox, 0) + x.filter, x.input)
                let out = destination + (oy * x.output + ox) * channels
                switch mode {
                case .maximum where ononeLoops:
                    vt_onone_max_pool_pixel(source, Int32(y0), Int32(max(y0, y1)), Int32(x0), Int32(max(x0, x1)), Int32(x.input), Int32(channels), out)
                case .maximum: maximum(source, out, y0..<max(y0, y1), x0..<max(x0, x1))
                case .average: average(source, out, y0..<max(y0, y1), x0..<max(x0, x1))
                }
                activation.apply(out, count: channels)
            }
        }
    }

    /// 2 × 2 windows at stride 2, every one inside the input, over whole vectors of channels (BlazeFace's and the palm
    /// detector's pools, 64² × 28 → 32² and 32² × 42 → 16²): the general loop spent more on each pixel's window bounds
    /// and index arithmetic than on its four loads (BlazeFace's two 1.6–2 × LiteRT's operator alone).
    private var takesPairs: Bool {
        mode == .maximum && !ononeLoops && y.filter == 2 && x.filter == 2 && y.stride == 2 && x.stride == 2
            && y.padBefore == 0 && x.padBefore == 0 && 2 * y.output <= y.input && 2 * x.output <= x.input && channels >= 8
    }

    /// ``maximum(_:_:_:_:)`` over ``takesPairs``' windows: the four taps at fixed offsets from the window's first, folded
    /// in the same order (the same values, NaN included), the last 1–7 channels as the eight ending there.
    private func maximumOfPairs(_ rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>) {
        let pixelBytes = channels &* 4, rowBytes = x.input &* pixelBytes, last = channels &- 8
        @inline(__always) func fold(_ m: SIMD8<Float>, _ p: UnsafeRawPointer, _ offset: Int) -> SIMD8<Float> {
            let v = p.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            return m.replacing(with: v, where: v .> m)
        }
        for oy in rows {
            var window = UnsafeRawPointer(source + 2 &* oy &* x.input &* channels)
            let first = destination + oy &* x.output &* channels
            var out = UnsafeMutableRawPointer(first)
            for _ in 0..<x.output {
                var c = 0
                while true {
                    let offset = c &* 4
                    var m = SIMD8<Float>(repeating: -.greatestFiniteMagnitude)
                    m = fold(m, window, offset)
                    m = fold(m, window, offset &+ pixelBytes)
                    m = fold(m, window, offset &+ rowBytes)
                    m = fold(m, window, offset &+ rowBytes &+ pixelBytes)
                    out.storeBytes(of: m, toByteOffset: offset, as: SIMD8<Float>.self)
                    if c == last { break }
                    c = min(c &+ 8, last)
                }
                window += 2 &* pixelBytes
                out += pixelBytes
            }
            activation.apply(first, count: x.output &* channels)
        }
    }

    /// Eight channels at a time, the window's pixels folded into one register: the scalar loop, with its output
    /// read and written back per tap, took 0.14 ms for face landmarks' 128 × 128 × 16 → 64 × 64 pool.
    @inline(__always)
    private func maximum(_ source: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ rows: Range<Int>, _ columns: Range<Int>) {
        @inline(__always) func vector(_ c: Int) {
            var m = SIMD8<Float>(repeating: -.greatestFiniteMagnitude)
            for iy in rows {
                for ix in columns {
                    let v = UnsafeRawPointer(source + ((iy &* x.input &+ ix) &* channels &+ c)).loadUnaligned(as: SIMD8<Float>.self)
                    m = m.replacing(with: v, where: v .> m)
                }
            }
            UnsafeMutableRawPointer(out + c).storeBytes(of: m, as: SIMD8<Float>.self)
        }
        var c = 0
        while c &+ 8 <= channels {
            vector(c)
            c &+= 8
        }
        if c < channels, channels >= 8 {
            // The last 1–7 channels as the eight ending there (a maximum is the same however often it is taken):
            // lane by lane they took as long as all the vectors of BlazeFace's 28-channel pool.
            vector(channels &- 8)
            return
        }
        while c < channels {
            var m = -Float.greatestFiniteMagnitude
            for iy in rows {
                for ix in columns { m = max(m, source[(iy &* x.input &+ ix) &* channels &+ c]) }
            }
            out[c] = m
            c &+= 1
        }
    }

    @inline(__always)
    private func average(_ source: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ rows: Range<Int>, _ columns: Range<Int>) {
        let count = Float(max(rows.count * columns.count, 1))
        // Sixteen channels a vector, each lane summing its channel's pixels in the scalar loop's order (from 0, row
        // by row): the same bits. Lane by lane the selfie segmenter's ten global poolings took 0.9 ms of its 4.2.
        // (Not where this module was compiled without optimization: there each SIMD operation is a runtime call, and
        // the scalar loop below computes the same values.)
        var c = 0
        while !ononeLoops, c &+ 16 <= channels {
            var sum = SIMD16<Float>(repeating: 0)
            for iy in rows {
                for ix in columns {
                    sum += UnsafeRawPointer(source + ((iy &* x.input &+ ix) &* channels &+ c)).loadUnaligned(as: SIMD16<Float>.self)
                }
            }
            UnsafeMutableRawPointer(out + c).storeBytes(of: sum / SIMD16(repeating: count), as: SIMD16<Float>.self)
            c &+= 16
        }
        while !ononeLoops, c &+ 8 <= channels {
            var sum = SIMD8<Float>(repeating: 0)
            for iy in rows {
                for ix in columns {
                    sum += UnsafeRawPointer(source + ((iy &* x.input &+ ix) &* channels &+ c)).loadUnaligned(as: SIMD8<Float>.self)
                }
            }
            UnsafeMutableRawPointer(out + c).storeBytes(of: sum / SIMD8(repeating: count), as: SIMD8<Float>.self)
            c &+= 8
        }
        guard c < channels else { return }
        let tail = channels &- c
        (out + c).update(repeating: 0, count: tail)
        for iy in rows {
            for ix in columns {
                let pixel = source + ((iy &* x.input &+ ix) &* channels &+ c)
                for k in 0..<tail { out[c &+ k] += pixel[k] }
            }
        }
        for k in 0..<tail { out[c &+ k] /= count }
    }
}
