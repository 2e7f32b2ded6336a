import VisionTasksModelFormat

/// The options MediaPipe's pooling custom operators read: not a FlexBuffer but the C struct `TfLitePoolParams`
/// {padding, stride_width, stride_height, filter_width, filter_height, activation} as little-endian int32s.
struct PoolParameters: Sendable {
    let padding: Padding
    let strideWidth: Int
    let strideHeight: Int
    let filterWidth: Int
    let filterHeight: Int
    let activation: Activation

    init(_ context: OperatorContext) throws(EngineError) {
        guard let options = context.op.customOptions, options.count >= 24 else {
            throw context.fail("custom options must hold TfLitePoolParams (24 bytes)")
        }
        let words = options.withUnsafeBytes { raw in (0..<6).map { Int(raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) } }
        // TfLitePadding: 1 = same, 2 = valid. Windows and strides are bounded so that no index arithmetic overflows.
        guard [1, 2].contains(words[0]), (1...4096).contains(words[1]), (1...4096).contains(words[2]),
              (1...4096).contains(words[3]), (1...4096).contains(words[4]) else {
            throw context.fail("options \(words)")
        }
        padding = words[0] == 1 ? .same : .valid
        (strideWidth, strideHeight, filterWidth, filterHeight) = (words[1], words[2], words[3], words[4])
        // TfLiteFusedActivation: 0 none, 1 relu, 2 relu_n1_to_1, 3 relu6, 4 tanh.
        switch words[5] {
        case 0: activation = .none
        case 1: activation = .relu
        case 2: activation = .reluMinus1To1
        case 3: activation = .relu6
        case 4: activation = .tanh
        default: throw context.fail("fused activation \(words[5])")
        }
    }
}

/// MediaPipe's custom `MaxPoolingWithArgmax2D` (its hair segmentation model; `mediapipe/util/tflite/operations/
/// max_pool_argmax.cc`): TFLite's reference max pooling, plus a second output holding, per output element, where in
/// its window the maximum was — `filter_y · filter_width + filter_x + 0.1` as a float (the first of equal maxima).
struct MaxPoolingWithArgmaxKernel: Kernel {
    let input: Int
    let output: Int
    let indices: Int
    let parameters: PoolParameters
    let batch: Int, inputHeight: Int, inputWidth: Int, channels: Int
    let rows: WindowAxis, columns: WindowAxis

    init(_ context: OperatorContext) throws(EngineError) {
        parameters = try PoolParameters(context)
        input = try context.input(0)
        output = try context.output(0)
        indices = try context.output(1)
        try context.requireFloat([input, output, indices])
        guard context.shape(input).count == 4, let i = nhwc(context.shape(input)) else { throw context.fail("input must be 4-D") }
        (batch, inputHeight, inputWidth, channels) = (i.n, i.h, i.w, i.c)
        rows = WindowAxis(input: i.h, filter: parameters.filterHeight, stride: parameters.strideHeight, dilation: 1, padding: parameters.padding)
        columns = WindowAxis(input: i.w, filter: parameters.filterWidth, stride: parameters.strideWidth, dilation: 1, padding: parameters.padding)
        guard rows.output > 0, columns.output > 0 else { throw context.fail("a \(parameters.filterHeight) × \(parameters.filterWidth) window does not fit \(i.h) × \(i.w)") }
        let shape = [i.n, rows.output, columns.output, i.c]
        try context.expect(shape, forOutput: 0)
        try context.expect(shape, forOutput: 1)
    }

    func run(_ memory: TensorMemory) {
        memory.parallel.forEach(batch * rows.output, minimumPerThread: KernelConfig.poolingRowsMinimumPerThread,
                                Rows(kernel: self, source: memory.floats(input), destination: memory.floats(output), where_: memory.floats(indices)))
    }

    private struct Rows: ParallelLoop {
        let kernel: MaxPoolingWithArgmaxKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let where_: UnsafeMutablePointer<Float>
        func run(_ rows: Range<Int>) {
            for row in rows { kernel.row(row, source, destination, where_) }
        }
    }

    /// The window's taps in the reference order with the same strict comparison: the first of equal maxima wins,
    /// NaN never does.
    private func row(_ row: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                     _ where_: UnsafeMutablePointer<Float>) {
        let filterWidth = parameters.filterWidth, activation = parameters.activation
        let b = row / rows.output, oy = row % rows.output
        let originY = oy * rows.stride - rows.padBefore
        let yStart = max(0, -originY), yEnd = min(parameters.filterHeight, inputHeight - originY)
        for ox in 0..<columns.output {
            let originX = ox * columns.stride - columns.padBefore
            let xStart = max(0, -originX), xEnd = min(filterWidth, inputWidth - originX)
            let out = destination + (row * columns.output + ox) * channels, at = where_ + (row * columns.output + ox) * channels
            // The running maximum and its position kept in the outputs, channels innermost: loops of compares and
            // selects that LLVM vectorizes (the same values and indices as channel by channel, which took 3 ms of the
            // hair model's 25 at one thread).
            for c in 0..<channels {
                out[c] = -.greatestFiniteMagnitude
                at[c] = 0
            }
            if yStart < yEnd && xStart < xEnd {
                for fy in yStart..<yEnd {
                    for fx in xStart..<xEnd {
                        let pixel = source + ((b * inputHeight + originY + fy) * inputWidth + originX + fx) * channels
                        let position = Float(fy * filterWidth + fx)
                        for c in 0..<channels {
                            let v = pixel[c], larger = v > out[c]
                            out[c] = larger ? v : out[c]
                            at[c] = larger ? position : at[c]
                        }
                    }
                }
            }
            for c in 0..<channels {
                out[c] = activation(out[c])
                at[c] = at[c] + 0.1
            }
        }
    }
}

/// MediaPipe's custom `MaxUnpooling2D` (`max_unpooling.cc`): the inverse of ``MaxPoolingWithArgmaxKernel`` — an
/// output `filter` times the input's size, zero but where each input value goes back to the position its index
/// names (the float index truncated, as C's conversion does). Unlike MediaPipe's, an index naming a position outside
/// the output (a hostile model's) is skipped, not written.
struct MaxUnpoolingKernel: Kernel {
    let input: Int
    let indices: Int
    let output: Int
    let parameters: PoolParameters
    let batch: Int, inputHeight: Int, inputWidth: Int, channels: Int
    let outputHeight: Int, outputWidth: Int
    let padTop: Int, padLeft: Int

    init(_ context: OperatorContext) throws(EngineError) {
        parameters = try PoolParameters(context)
        input = try context.input(0)
        indices = try context.input(1)
        output = try context.output(0)
        try context.requireFloat([input, indices, output])
        guard context.shape(input).count == 4, let i = nhwc(context.shape(input)), context.shape(indices) == context.shape(input) else {
            throw context.fail("input and indices must be 4-D and of one shape")
        }
        (batch, inputHeight, inputWidth, channels) = (i.n, i.h, i.w, i.c)
        let (h, overflowH) = i.h.multipliedReportingOverflow(by: parameters.filterHeight)
        let (w, overflowW) = i.w.multipliedReportingOverflow(by: parameters.filterWidth)
        guard !overflowH, !overflowW else { throw context.fail("output size overflows") }
        (outputHeight, outputWidth) = (h, w)
        // ComputePadding(stride, 1, out_size, filter, in_size): the padding of a pooling from the output to the input.
        padTop = max((i.h - 1) * parameters.strideHeight + parameters.filterHeight - h, 0) / 2
        padLeft = max((i.w - 1) * parameters.strideWidth + parameters.filterWidth - w, 0) / 2
        try context.expect([i.n, h, w, i.c], forOutput: 0)
    }

    /// Whether the windows tile the output (stride = filter, no padding: the hair model's 2 × 2 unpoolings), where
    /// ``run(_:)`` writes each window whole instead of zeroing the output and scattering.
    private var windowsTile: Bool {
        parameters.strideHeight == parameters.filterHeight && parameters.strideWidth == parameters.filterWidth && padTop == 0 && padLeft == 0
    }

    /// A flag byte per input row (``windowsTile``): whether the row holds an index past its window.
    var scratchBytes: Int { windowsTile ? batch * inputHeight : 0 }

    func run(_ memory: TensorMemory) {
        let source = memory.floats(input), where_ = memory.floats(indices), destination = memory.floats(output)
        if windowsTile {
            // Each window written whole by the thread of its input row: a value where its index names the position,
            // zero elsewhere — what zeroing then scattering leaves when every index is inside its own window. An
            // index past the window (only a hostile model's: MaxPoolingWithArgmax2D names a position in the window)
            // writes into another window in the scatter, so then the scatter runs as the reference does.
            let flags = memory.scratch.assumingMemoryBound(to: UInt8.self)
            memory.parallel.forEach(batch * inputHeight, minimumPerThread: KernelConfig.poolingRowsMinimumPerThread,
                                    TiledRows(kernel: self, source: source, where_: where_, destination: destination, flags: flags))
            guard (0..<(batch * inputHeight)).contains(where: { flags[$0] != 0 }) else { return }
        }
        scatter(source, where_, destination)
    }

    private struct TiledRows: ParallelLoop {
        let kernel: MaxUnpoolingKernel
        let source: UnsafeMutablePointer<Float>
        let where_: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let flags: UnsafeMutablePointer<UInt8>
        func run(_ rows: Range<Int>) {
            for row in rows { flags[row] = kernel.tiledRow(row, source, where_, destination) ? 1 : 0 }
        }
    }

    /// One input row's windows; true when an index lies past its window (the output is then rewritten by the scatter).
    private func tiledRow(_ row: Int, _ source: UnsafeMutablePointer<Float>, _ where_: UnsafeMutablePointer<Float>,
                          _ destination: UnsafeMutablePointer<Float>) -> Bool {
        let filterHeight = parameters.filterHeight, filterWidth = parameters.filterWidth
        let window = Float(filterHeight * filterWidth)
        let b = row / inputHeight, iy = row % inputHeight
        var outside = false
        for ix in 0..<inputWidth {
            let at = (row * inputWidth + ix) * channels
            let value = source + at, index = where_ + at
            // Channels innermost, compares and selects only: loops LLVM vectorizes.
            for c in 0..<channels where index[c] >= window { outside = true }
            for fy in 0..<filterHeight {
                for fx in 0..<filterWidth {
                    // Int(index) == k for the indices the scatter writes (finite, ≥ 0): k ≤ index < k + 1.
                    let k = Float(fy * filterWidth + fx), next = k + 1
                    let out = destination + ((b * outputHeight + iy * filterHeight + fy) * outputWidth + ix * filterWidth + fx) * channels
                    for c in 0..<channels { out[c] = index[c] >= k ? (index[c] < next ? value[c] : 0) : 0 }
                }
            }
        }
        return outside
    }

    private func scatter(_ source: UnsafeMutablePointer<Float>, _ where_: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>) {
        destination.update(repeating: 0, count: batch * outputHeight * outputWidth * channels)
        let filterWidth = parameters.filterWidth
        for b in 0..<batch {
            for iy in 0..<inputHeight {
                for ix in 0..<inputWidth {
                    let at = ((b * inputHeight + iy) * inputWidth + ix) * channels
                    for c in 0..<channels {
                        let value = where_[at + c]
                        guard value.isFinite, value >= 0, value < Float(Int32.max) else { continue }
                        let index = Int(value)
                        let oy = iy * parameters.strideHeight - padTop + index / filterWidth
                        let ox = ix * parameters.strideWidth - padLeft + index % filterWidth
                        guard oy >= 0, oy < outputHeight, ox >= 0, ox < outputWidth else { continue }
                        destination[((b * outputHeight + oy) * outputWidth + ox) * channels + c] = source[at + c]
                    }
                }
            }
        }
    }
}
