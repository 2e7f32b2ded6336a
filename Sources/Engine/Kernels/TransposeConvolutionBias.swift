import VisionTasksModelFormat

/// MediaPipe's custom `Convolution2DTransposeBias` (selfie segmentation): a transposed convolution plus bias.
///
/// Semantics of TFLite's reference TRANSPOSE_CONV, which MediaPipe's op predates only by its bias input: every
/// input pixel scatters `filter × value` into the output window at (input × stride − padding); padding is what a
/// forward convolution from the output size to the input size would use. The options are not a FlexBuffer but the
/// C struct `TfLiteTransposeConvParams` {padding, stride_width, stride_height} as three little-endian int32s.
struct TransposeConvolutionBiasKernel: Kernel {
    let input: Int
    let output: Int
    let batch: Int
    let inputHeight: Int
    let inputWidth: Int
    let inputChannels: Int
    let outputHeight: Int
    let outputWidth: Int
    let outputChannels: Int
    let filterHeight: Int
    let filterWidth: Int
    let strideHeight: Int
    let strideWidth: Int
    let padTop: Int
    let padLeft: Int
    /// [outputChannels, filterHeight, filterWidth, inputChannels], as stored.
    let weights: [Float]
    let bias: [Float]

    init(_ context: OperatorContext) throws(EngineError) {
        guard let options = context.op.customOptions, options.count >= 12 else {
            throw context.fail("custom options must hold padding and strides (12 bytes)")
        }
        let words = options.withUnsafeBytes { raw in (0..<3).map { Int(raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) } }
        // TfLitePadding: 1 = same, 2 = valid.
        guard [1, 2].contains(words[0]), words[1] >= 1, words[2] >= 1 else { throw context.fail("options \(words)") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        try context.requireFloat([input, output, filter])
        guard let i = nhwc(context.shape(input)), let o = nhwc(context.shape(output)), context.shape(filter).count == 4 else {
            throw context.fail("input, output and filter must be 4-D")
        }
        let f = context.shape(filter)
        guard f[0] == o.c, f[3] == i.c, o.n == i.n else { throw context.fail("filter \(f) for \(i.c) → \(o.c) channels") }
        batch = i.n
        inputHeight = i.h; inputWidth = i.w; inputChannels = i.c
        outputHeight = o.h; outputWidth = o.w; outputChannels = o.c
        filterHeight = f[1]; filterWidth = f[2]
        strideWidth = words[1]; strideHeight = words[2]
        let padding: Padding = words[0] == 1 ? .same : .valid
        // Padding as a forward convolution from the output back to the input would have it.
        padTop = WindowAxis(input: o.h, filter: f[1], stride: strideHeight, dilation: 1, padding: padding).padBefore
        padLeft = WindowAxis(input: o.w, filter: f[2], stride: strideWidth, dilation: 1, padding: padding).padBefore
        weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: o.c)
        guard weights.count == f.reduce(1, *), bias.count == o.c else { throw context.fail("weights/bias sizes") }
    }

    func run(_ memory: TensorMemory) {
        let source = memory.floats(input), destination = memory.floats(output)
        let outputCount = batch * outputHeight * outputWidth * outputChannels
        destination.update(repeating: 0, count: outputCount)
        weights.withUnsafeBufferPointer { w in
            for b in 0..<batch {
                for iy in 0..<inputHeight {
                    for ix in 0..<inputWidth {
                        let pixel = source + ((b * inputHeight + iy) * inputWidth + ix) * inputChannels
                        for ky in 0..<filterHeight {
                            let oy = iy * strideHeight - padTop + ky
                            guard oy >= 0, oy < outputHeight else { continue }
                            for kx in 0..<filterWidth {
                                let ox = ix * strideWidth - padLeft + kx
                                guard ox >= 0, ox < outputWidth else { continue }
                                let out = destination + ((b * outputHeight + oy) * outputWidth + ox) * outputChannels
                                for oc in 0..<outputChannels {
                                    let taps = w.baseAddress! + ((oc * filterHeight + ky) * filterWidth + kx) * inputChannels
                                    var sum: Float = 0
                                    for c in 0..<inputChannels { sum += pixel[c] * taps[c] }
                                    out[oc] += sum
                                }
                            }
                        }
                    }
                }
            }
        }
        for i in 0..<outputCount { destination[i] += bias[i % outputChannels] }
    }
}
