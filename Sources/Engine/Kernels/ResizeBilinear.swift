import CVisionTasksOnoneKernels
import VisionTasksModelFormat

/// RESIZE_BILINEAR with TFLite's sampling rules (`ComputeInterpolationValues` in its reference kernel):
/// scale = in/out, or (in−1)/(out−1) with align_corners; half-pixel centres sample at (o + ½)·scale − ½;
/// the lower neighbour is clamped at 0 and the upper at in−1.
struct ResizeBilinearKernel: Kernel {
    /// A neighbour pair along one axis: C's type, so that the C loop of a build without optimization reads the
    /// same table (``KernelConfig/compiledWithoutOptimization``).
    typealias Tap = vt_resize_tap

    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let inputHeight: Int
    let inputWidth: Int
    let rows: [Tap]
    let columns: [Tap]
    /// Whether the rows go through the C loop: in a build without optimization, where this Swift loop's array
    /// accesses and checked arithmetic are calls (a pose photo's resizes: 3 ms); the same arithmetic, the same bits.
    let ononeLoop: Bool

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .resizeBilinear(alignCorners, halfPixelCenters) = context.options else {
            throw context.fail("missing ResizeBilinearOptions")
        }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        let geometry = try ResizeGeometry(context, input: input)
        batch = geometry.batch
        channels = geometry.channels
        inputHeight = geometry.height
        inputWidth = geometry.width
        func taps(_ inputSize: Int, _ outputSize: Int) -> [Tap] {
            let scale = alignCorners && outputSize > 1
                ? Float(inputSize - 1) / Float(outputSize - 1) : Float(inputSize) / Float(outputSize)
            return (0..<outputSize).map { o in
                let position = halfPixelCenters ? (Float(o) + 0.5) * scale - 0.5 : Float(o) * scale
                let floor = position.rounded(.down)
                let lower = max(Int(floor), 0)
                let upper = min(Int(position.rounded(.up)), inputSize - 1)
                return Tap(lower: lower, upper: upper, fraction: position - Float(lower))
            }
        }
        rows = taps(geometry.height, geometry.outputHeight)
        columns = taps(geometry.width, geometry.outputWidth)
        ononeLoop = context.kernels.ononeLoops
    }

    func run(_ memory: TensorMemory) {
        for b in 0..<batch {
            let source = memory.floats(input) + b * inputHeight * inputWidth * channels
            let base = memory.floats(output) + b * rows.count * columns.count * channels
            memory.parallel.forEach(rows.count, minimumPerThread: KernelConfig.resizeRowsMinimumPerThread, Rows(kernel: self, source: source, destination: base))
        }
    }

    private struct Rows: ParallelLoop {
        let kernel: ResizeBilinearKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        func run(_ range: Range<Int>) { kernel.rows(range, source, destination) }
    }

    private func rows(_ range: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>) {
        var out = destination + range.lowerBound * columns.count * channels
        if ononeLoop {
            columns.withUnsafeBufferPointer { columns in
                for row in rows[range] {
                    vt_onone_resize_bilinear_row(source + row.lower * inputWidth * channels, source + row.upper * inputWidth * channels,
                                                 row.fraction, columns.baseAddress, Int32(columns.count), Int32(channels), out)
                    out += columns.count * channels
                }
            }
            return
        }
        for row in rows[range] {
            let top = source + row.lower * inputWidth * channels
            let bottom = source + row.upper * inputWidth * channels
            let dy = row.fraction
            for column in columns {
                let dx = column.fraction
                let a = top + column.lower * channels, b = top + column.upper * channels
                let c = bottom + column.lower * channels, d = bottom + column.upper * channels
                for k in 0..<channels {
                    out[k] = a[k] * (1 - dy) * (1 - dx) + c[k] * dy * (1 - dx) + b[k] * (1 - dy) * dx + d[k] * dy * dx
                }
                out += channels
            }
        }
    }
}
