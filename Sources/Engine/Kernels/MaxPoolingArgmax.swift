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
        let source = memory.floats(input), destination = memory.floats(output), where_ = memory.floats(indices)
        let filterWidth = parameters.filterWidth
        for b in 0..<batch {
            for oy in 0..<rows.output {
                let originY = oy * rows.stride - rows.padBefore
                let yStart = max(0, -originY), yEnd = min(parameters.filterHeight, inputHeight - originY)
                for ox in 0..<columns.output {
                    let originX = ox * columns.stride - columns.padBefore
                    let xStart = max(0, -originX), xEnd = min(filterWidth, inputWidth - originX)
                    let out = ((b * rows.output + oy) * columns.output + ox) * channels
                    for c in 0..<channels {
                        var largest = -Float.greatestFiniteMagnitude, maxX = 0, maxY = 0
                        if yStart < yEnd && xStart < xEnd {
                            for fy in yStart..<yEnd {
                                let line = ((b * inputHeight + originY + fy) * inputWidth + originX) * channels + c
                                for fx in xStart..<xEnd where source[line + fx * channels] > largest {
                                    largest = source[line + fx * channels]
                                    maxX = fx
                                    maxY = fy
                                }
                            }
                        }
                        destination[out + c] = parameters.activation(largest)
                        where_[out + c] = Float(maxY * filterWidth + maxX) + 0.1
                    }
                }
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

    func run(_ memory: TensorMemory) {
        let source = memory.floats(input), where_ = memory.floats(indices), destination = memory.floats(output)
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
