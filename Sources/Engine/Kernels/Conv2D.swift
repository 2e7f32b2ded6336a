import CBLAS
import Format

/// CONV_2D: NHWC input, OHWI filter, per-output-channel bias.
///
/// 1×1 stride-1 convolutions are one sgemm over the input as it lies; others gather patches into an im2col
/// scratch matrix (rows = output pixels, columns in the filter's (ky, kx, channel) order) and run one sgemm.
struct Conv2DKernel: Kernel {
    let input: Int
    let output: Int
    let batch: Int
    let inputChannels: Int
    let outputChannels: Int
    let y: WindowAxis
    let x: WindowAxis
    /// [outputChannels, kh × kw × inputChannels], the model's OHWI layout flattened.
    let weights: [Float]
    let bias: [Float]
    let activation: Activation

    var isPointwise: Bool {
        y.filter == 1 && x.filter == 1 && y.stride == 1 && x.stride == 1 && y.padBefore == 0 && x.padBefore == 0
    }

    var patchSize: Int { y.filter * x.filter * inputChannels }

    var scratchBytes: Int { isPointwise ? 0 : y.output * x.output * patchSize * 4 }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .conv2D(options) = context.options else { throw context.fail("missing Conv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        try context.requireFloat([input, output, filter])
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input \(context.shape(input)) / filter \(context.shape(filter)) are not 4-D")
        }
        let f = context.shape(filter)
        guard f[3] == i.c else { throw context.unsupported("grouped convolution (filter depth \(f[3]), input \(i.c))") }
        batch = i.n
        inputChannels = i.c
        outputChannels = f[0]
        y = try context.windowAxis(input: i.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding)
        x = try context.windowAxis(input: i.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding)
        weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: f[0])
        guard bias.count == outputChannels, weights.count == outputChannels * f[1] * f[2] * i.c else {
            throw context.fail("weights/bias sizes do not match the filter shape")
        }
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        try context.expect([batch, y.output, x.output, outputChannels], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let pixels = y.output * x.output
        for b in 0..<batch {
            let source = memory.floats(input) + b * y.input * x.input * inputChannels
            let destination = memory.floats(output) + b * pixels * outputChannels
            let patches: UnsafePointer<Float>
            if isPointwise {
                patches = UnsafePointer(source)
            } else {
                let scratch = memory.scratch.assumingMemoryBound(to: Float.self)
                gatherPatches(from: source, into: scratch)
                patches = UnsafePointer(scratch)
            }
            weights.withUnsafeBufferPointer { w in
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(pixels), Int32(outputChannels), Int32(patchSize),
                            1, patches, Int32(patchSize), w.baseAddress, Int32(patchSize), 0, destination, Int32(outputChannels))
            }
            addBiasAndActivate(destination, rows: pixels)
        }
    }

    private func gatherPatches(from source: UnsafeMutablePointer<Float>, into scratch: UnsafeMutablePointer<Float>) {
        let rowBytes = inputChannels * 4
        var row = scratch
        for oy in 0..<y.output {
            for ox in 0..<x.output {
                var column = row
                for ky in 0..<y.filter {
                    let iy = y.source(oy, ky)
                    for kx in 0..<x.filter {
                        let ix = x.source(ox, kx)
                        if iy >= 0, iy < y.input, ix >= 0, ix < x.input {
                            UnsafeMutableRawPointer(column).copyMemory(
                                from: source + (iy * x.input + ix) * inputChannels, byteCount: rowBytes)
                        } else {
                            column.update(repeating: 0, count: inputChannels)
                        }
                        column += inputChannels
                    }
                }
                row += patchSize
            }
        }
    }

    private func addBiasAndActivate(_ destination: UnsafeMutablePointer<Float>, rows: Int) {
        bias.withUnsafeBufferPointer { bias in
            for r in 0..<rows {
                let out = destination + r * outputChannels
                for c in 0..<outputChannels { out[c] += bias[c] }
                activation.apply(out, count: outputChannels)
            }
        }
    }
}
