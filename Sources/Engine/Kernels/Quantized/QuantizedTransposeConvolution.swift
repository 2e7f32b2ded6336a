import VisionTasksModelFormat

/// TRANSPOSE_CONV on uint8/int8 (a quantized U-Net's upsampling) as XNNPACK's deconvolution computes it, which is what
/// LiteRT runs (its delegate takes the operator in both types; tools/litert_kernel_sweeps.py's transpose_conv family
/// records it): for each output pixel and channel the exact int32 sum, over the taps that reach it, of
/// (input − its zero point) × (filter − its zero point), plus the bias, requantized per output channel with XNNPACK's
/// "fp32" arithmetic (``Requantization``, scale input × filter ÷ output in float). The sum is exact, so its order is
/// free: output-centric as the float kernel (``TransposeConvolutionBiasKernel``), every output written once by one
/// thread, the same bytes at any thread count. The output channels are the inner loop, over contiguous weights.
///
/// Where the windows never overlap — filter = stride, no padding: a U-Net's 2 × 2, stride-2 upsampling — each
/// output value has one tap, and the operator is a 1 × 1 convolution of the input to kh × kw × channels columns
/// (``QuantizedLayer/tapsAsColumns(taps:channels:inputChannels:)``) through the tier's quantized GEMM, the same exact
/// sums and requantization: input pixel (y, x)'s row holds, per filter row ky, the kw output pixels from
/// (sy·y + ky, sx·x) on as the output stores them, copied there. The pixel-by-pixel loop took a quantized U-Net's
/// four upsamplings 9.5 × LiteRT's time.
struct QuantizedTransposeConvolutionKernel: Kernel {
    let input: Int
    let output: Int
    let signed: Bool
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
    let inputZeroPoint: Int32
    /// [filterHeight, filterWidth, inputChannels, outputChannels]: the filter less its zero points, widened, so that
    /// one input value meets its output channels' weights side by side.
    let weights: [Int32]
    let bias: [Int32]
    /// Per output channel: input scale × filter scale ÷ output scale.
    let scales: [Float]
    let requantization: Requantization
    /// Output rows per thread below which a band is not split further.
    let minimumRowsPerThread: Int
    /// The 1 × 1 convolution to one column per tap and channel, where the windows do not overlap; else nil.
    let taps: QuantizedMatrixMultiply?
    /// Where the taps' products (input pixels × their columns) start in the scratch, after the GEMM's own rows.
    let productsOffset: Int
    let scratchBytes: Int

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .transposeConv(options) = context.options else { throw context.fail("missing TransposeConvOptions") }
        guard options.strideWidth >= 1, options.strideHeight >= 1 else {
            throw context.fail("strides \(options.strideWidth)×\(options.strideHeight)")
        }
        input = try context.input(2)
        output = try context.output(0)
        let declared = context.shape(output)
        guard context.isConstant(try context.input(0)), try context.constantIntegers(0) == declared else {
            throw context.unsupported("output shape must be a constant equal to the output's \(declared)")
        }
        let type = context.type(input)
        guard type.isQuantizedInteger, context.type(output) == type else {
            throw context.unsupported("\(type.name) input, \(context.type(output).name) output")
        }
        signed = type == .int8
        let filter = try context.input(1)
        guard let i = nhwc(context.shape(input)), let o = nhwc(declared), context.shape(filter).count == 4 else {
            throw context.fail("input, output and filter must be 4-D")
        }
        let f = context.shape(filter)
        guard f[0] == o.c, f[3] == i.c, o.n == i.n else { throw context.fail("filter \(f) for \(i.c) → \(o.c) channels") }
        let layer = try QuantizedLayer(context, filter: filter, filterAxis: 0, channels: o.c, activation: options.activation,
                                       inputPosition: 2, biasPosition: 3)
        batch = i.n
        inputHeight = i.h; inputWidth = i.w; inputChannels = i.c
        outputHeight = o.h; outputWidth = o.w; outputChannels = o.c
        filterHeight = f[1]; filterWidth = f[2]
        strideHeight = Int(options.strideHeight); strideWidth = Int(options.strideWidth)
        // Padding as a forward convolution from the output back to the input would have it (TFLite's and XNNPACK's).
        padTop = WindowAxis(input: o.h, filter: f[1], stride: strideHeight, dilation: 1, padding: options.padding).padBefore
        padLeft = WindowAxis(input: o.w, filter: f[2], stride: strideWidth, dilation: 1, padding: options.padding).padBefore
        inputZeroPoint = layer.input.zeroPoint
        bias = layer.bias
        scales = layer.scales
        requantization = layer.requantization
        let tiles = f[1] == strideHeight && f[2] == strideWidth && padTop == 0 && padLeft == 0
            && o.h == i.h * strideHeight && o.w == i.w * strideWidth
        // QuantizedLayer's rows are [output channel][ky][kx][input channel]; the output-pixel loop's weights are only
        // packed where it runs.
        let depth = f[1] * f[2] * i.c
        var packed = [Int32](repeating: 0, count: tiles ? 0 : depth * o.c)
        for oc in 0..<o.c where !tiles {
            for j in 0..<depth { packed[j * o.c + oc] = Int32(layer.weights[oc * depth + j]) }
        }
        weights = packed
        if tiles {
            let count = f[1] * f[2], columns = try context.arithmetic.multiply(count, o.c, "tap columns")
            let gemm = QuantizedMatrixMultiply(layer.tapsAsColumns(taps: count, channels: o.c, inputChannels: i.c), signed: signed,
                                               columns: columns, depth: i.c, kernels: context.kernels)
            let pixels = try context.arithmetic.multiply(i.h, i.w, "input pixels")
            taps = gemm
            productsOffset = QuantizedMatrixMultiply.rowSumOffset(try gemm.scratchBytes(rows: pixels, context.arithmetic))
            scratchBytes = try context.arithmetic.add(productsOffset, try context.arithmetic.multiply(pixels, columns, "tap products"),
                                                      "transposed convolution scratch")
        } else {
            taps = nil
            productsOffset = 0
            scratchBytes = 0
        }
        // In Double: a hostile model's sizes must not overflow here (the product only picks a split).
        let reaching = Double((f[1] + strideHeight - 1) / strideHeight) * Double((f[2] + strideWidth - 1) / strideWidth)
        let rowWork = max(1, Double(o.w) * reaching * Double(i.c) * Double(o.c))
        minimumRowsPerThread = max(1, Int((Double(1 << 16) / rowWork).rounded(.up)))
    }

    func run(_ memory: TensorMemory) {
        if let taps {
            let pixels = inputHeight * inputWidth
            for b in 0..<batch {
                let source = UnsafeRawPointer(memory.raw(input)) + b * pixels * inputChannels
                let destination = memory.raw(output) + b * outputHeight * outputWidth * outputChannels
                memory.parallel.forEach(pixels, minimumPerThread: KernelConfig.quantizedConvolutionMinimumPixelsPerThread, TapBands(
                    kernel: self, gemm: taps, source: source, destination: destination, scratch: memory.scratch))
            }
            return
        }
        memory.parallel.forEach(batch * outputHeight, minimumPerThread: minimumRowsPerThread,
                                Rows(kernel: self, source: memory.raw(input), destination: memory.raw(output)))
    }

    /// A band of input pixels through the taps' 1 × 1 convolution, each pixel's products then copied to its output
    /// pixels (every output pixel belongs to exactly one input pixel: the bands write disjoint outputs). Not generic
    /// over the element type: the worker pool would run a generic loop's unspecialized code (six times slower at two
    /// threads than one); the typed work is a generic function called with a concrete type.
    private struct TapBands: ParallelLoop {
        let kernel: QuantizedTransposeConvolutionKernel
        let gemm: QuantizedMatrixMultiply
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer
        let scratch: UnsafeMutableRawPointer

        func run(_ pixels: Range<Int>) {
            if kernel.signed { band(pixels, as: Int8.self) } else { band(pixels, as: UInt8.self) }
        }

        private func band<Element: QuantizedElement>(_ pixels: Range<Int>, as _: Element.Type) {
            let k = kernel, columns = gemm.columns, run = k.filterWidth * k.outputChannels
            let products = (scratch + k.productsOffset).assumingMemoryBound(to: Element.self)
            let output = destination.assumingMemoryBound(to: Element.self)
            gemm.runPointwise(pixels, pixelCount: k.inputHeight * k.inputWidth, source: source.assumingMemoryBound(to: Element.self),
                              channels: k.inputChannels, inputZeroPoint: k.inputZeroPoint, scratch: scratch,
                              c: products, ldc: columns, requantization: k.requantization)
            for p in pixels {
                let iy = p / k.inputWidth, ix = p % k.inputWidth
                for ky in 0..<k.filterHeight {
                    let first = ((iy &* k.strideHeight &+ ky) &* k.outputWidth &+ ix &* k.strideWidth) &* k.outputChannels
                    (output + first).update(from: products + (p &* columns &+ ky &* run), count: run)
                }
            }
        }
    }

    /// Output rows, any filter (not generic, as ``TapBands``).
    private struct Rows: ParallelLoop {
        let kernel: QuantizedTransposeConvolutionKernel
        let source: UnsafeMutableRawPointer
        let destination: UnsafeMutableRawPointer
        func run(_ rows: Range<Int>) {
            if kernel.signed { band(rows, as: Int8.self) } else { band(rows, as: UInt8.self) }
        }

        private func band<Element: QuantizedElement>(_ rows: Range<Int>, as _: Element.Type) {
            let k = kernel
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: k.outputChannels) { sums in
                k.weights.withUnsafeBufferPointer { weights in
                    k.bias.withUnsafeBufferPointer { bias in
                        k.scales.withUnsafeBufferPointer { scales in
                            for row in rows {
                                k.row(row, source.assumingMemoryBound(to: Element.self), destination.assumingMemoryBound(to: Element.self),
                                      sums.baseAddress!, weights.baseAddress!, bias.baseAddress!, scales.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
    }

    private func row<Element: QuantizedElement>(_ row: Int, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>,
                                                _ sums: UnsafeMutablePointer<Int32>, _ weights: UnsafePointer<Int32>,
                                                _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>) {
        let b = row / outputHeight, oy = row % outputHeight
        let channels = inputChannels, outputs = outputChannels
        let image = source + b &* inputHeight &* inputWidth &* channels
        for ox in 0..<outputWidth {
            sums.update(from: bias, count: outputs)
            for ky in 0..<filterHeight {
                let dy = oy &+ padTop &- ky
                guard dy >= 0, dy % strideHeight == 0, dy / strideHeight < inputHeight else { continue }
                for kx in 0..<filterWidth {
                    let dx = ox &+ padLeft &- kx
                    guard dx >= 0, dx % strideWidth == 0, dx / strideWidth < inputWidth else { continue }
                    let pixel = image + ((dy / strideHeight) &* inputWidth &+ dx / strideWidth) &* channels
                    let tap = weights + (ky &* filterWidth &+ kx) &* channels &* outputs
                    for c in 0..<channels {
                        let value = Int32(pixel[c]) &- inputZeroPoint
                        let w = tap + c &* outputs
                        // Wrapping: exact for any real layer; a hostile one wraps instead of trapping.
                        for oc in 0..<outputs { sums[oc] = sums[oc] &+ value &* w[oc] }
                    }
                }
            }
            let out = destination + (row &* outputWidth &+ ox) &* outputs
            for oc in 0..<outputs { out[oc] = Element(truncatingIfNeeded: requantization(sums[oc], scale: scales[oc])) }
        }
    }
}
