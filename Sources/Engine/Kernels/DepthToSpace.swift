import VisionTasksModelFormat

/// DEPTH_TO_SPACE: out[n, h·b + dy, w·b + dx, c] = in[n, h, w, (dy·b + dx)·C + c]. A pure move, so one kernel
/// serves every element type: quantized tensors are copied byte for byte, as TFLite's reference kernel and
/// XNNPACK's copy do (the converter gives the output the input's quantization; ESPCN-style super-resolution
/// models end on it in int8).
struct DepthToSpaceKernel: Kernel {
    let input: Int
    let output: Int
    let batch: Int
    let height: Int
    let width: Int
    let block: Int
    /// Bytes of one output pixel's channels (output channels × element size).
    let pixelBytes: Int

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .depthToSpace(blockSize) = context.options else { throw context.fail("missing DepthToSpaceOptions") }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireSameType([output], as: input)
        guard let elementBytes = context.type(input).byteSize else { throw context.fail("\(context.type(input).name) elements") }
        // block_size is the file's Int32: its square and the output sizes are computed with checks.
        let arithmetic = context.arithmetic
        let block = Int(blockSize)
        guard let i = nhwc(context.shape(input)), block >= 1,
              case let square = try arithmetic.multiply(block, block, "block_size²"), i.c % square == 0 else {
            throw context.fail("block \(blockSize) for input \(context.shape(input))")
        }
        batch = i.n
        height = i.h
        width = i.w
        self.block = block
        let outputChannels = i.c / square
        try context.expect([batch, try arithmetic.multiply(height, block, "output height"),
                            try arithmetic.multiply(width, block, "output width"), outputChannels], forOutput: 0)
        pixelBytes = try arithmetic.multiply(outputChannels, elementBytes, "pixel bytes")
    }

    /// Output rows over threads. For one output row (n, h·b + dy), each input pixel (n, h, w) gives one contiguous run
    /// of b output pixels: its channels dy·b·C ..< (dy + 1)·b·C, as they lie. A memcpy per output pixel (12 bytes in
    /// ESPCN's three-channel float output) cost 7 × LiteRT's time there (``StridedRuns``).
    func run(_ memory: TensorMemory) {
        memory.parallel.forEach(batch * height * block, minimumPerThread: KernelConfig.paddedRowsMinimumPerThread,
                                Rows(kernel: self, source: UnsafeRawPointer(memory.raw(input)), destination: memory.raw(output)))
    }

    private struct Rows: ParallelLoop {
        let kernel: DepthToSpaceKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer
        func run(_ rows: Range<Int>) { kernel.rows(rows, source, destination) }
    }

    private func rows(_ rows: Range<Int>, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer) {
        let runBytes = block * pixelBytes
        let inputPixelBytes = block * runBytes
        let outputRowBytes = width * runBytes
        for row in rows {
            // row = (n·H + h)·b + dy: the input row n·H + h, the run's offset dy·b·C in its pixels.
            let inputRow = row / block, dy = row % block
            StridedRuns.copy(count: width, runBytes: runBytes, from: source + inputRow * width * inputPixelBytes + dy * runBytes,
                             sourceStride: inputPixelBytes, to: destination + row * outputRowBytes, destinationStride: runBytes)
        }
    }
}
