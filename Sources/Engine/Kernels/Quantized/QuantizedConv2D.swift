import CVisionTasksOnoneKernels
import VisionTasksModelFormat

/// CONV_2D on uint8 or int8 tensors (per-tensor or per-channel filter scales; int32 bias).
///
/// Output pixels are split in bands over the threads; each band's patches are gathered (im2col, in the filter's
/// (ky, kx, channel) order) into int16 rows holding input − zero point, which makes padding plain zeros, and go
/// through ``QuantizedGEMM``, which requantizes into the output. In the VNNI tier the rows are the input's bytes made
/// unsigned, padding its zero point, for ``QuantizedDotGEMM`` (``KernelConfig/quantizedGEMM``); a 1 × 1 convolution
/// whose channels are a multiple of four then reads the input in place.
struct QuantizedConv2DKernel: Kernel {
    /// int8 rather than uint8. The kernels are not generic types: a generic kernel behind `any Kernel` runs its
    /// unspecialized code (every element access through the type's witness table, 40× slower); the typed code is
    /// generic functions called with a concrete type, which the optimizer specializes.
    let signed: Bool
    let input: Int
    let output: Int
    let batch: Int
    let inputChannels: Int
    let y: WindowAxis
    let x: WindowAxis
    let inputZeroPoint: Int32
    /// Output rows and columns whose windows lie inside the input (computed once: `WindowAxis.interior` divides).
    let interiorRows: Range<Int>
    let interiorColumns: Range<Int>
    let gemm: QuantizedMatrixMultiply
    let requantization: Requantization

    /// The patches of every output pixel (checked at prepare: pixels × patch depth may be huge).
    let scratchBytes: Int

    var isPointwise: Bool {
        y.filter == 1 && x.filter == 1 && y.stride == 1 && x.stride == 1 && y.padBefore == 0 && x.padBefore == 0
            && y.input == y.output && x.input == x.output
    }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .conv2D(options) = context.options else { throw context.fail("missing Conv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        signed = try context.requireSameQuantizedType([output, filter]) == .int8
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input \(context.shape(input)) / filter \(context.shape(filter)) are not 4-D")
        }
        let f = context.shape(filter)
        guard f[3] == i.c else { throw context.unsupported("grouped convolution (filter depth \(f[3]), input \(i.c))") }
        batch = i.n
        inputChannels = i.c
        let padded = context.paddedSpatialSize(i)
        (y, x) = context.unpadding(
            try context.windowAxis(input: padded.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding),
            try context.windowAxis(input: padded.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding))
        try context.expect([batch, y.output, x.output, f[0]], forOutput: 0)
        interiorRows = y.interior
        interiorColumns = x.interior
        let layer = try QuantizedLayer(context, filter: filter, filterAxis: 0, channels: f[0], activation: options.activation)
        inputZeroPoint = layer.input.zeroPoint
        requantization = layer.requantization
        let depth = try context.arithmetic.product([f[1], f[2], i.c], "patch depth")
        gemm = QuantizedMatrixMultiply(layer, signed: signed, columns: f[0], depth: depth, kernels: context.kernels)
        scratchBytes = try gemm.scratchBytes(rows: try context.arithmetic.multiply(y.output, x.output, "output pixels"), context.arithmetic)
    }

    func run(_ memory: TensorMemory) {
        let pixels = y.output * x.output
        if case let .doubles(onone) = gemm {
            for b in 0..<batch {
                memory.parallel.forEach(pixels, minimumPerThread: KernelConfig.quantizedConvolutionMinimumPixelsPerThread, OnoneBands(
                    kernel: self, onone: onone, source: UnsafeRawPointer(memory.raw(input)) + b * y.input * x.input * inputChannels,
                    destination: memory.raw(output) + b * pixels * onone.columns, scratch: memory.scratch))
            }
            return
        }
        for b in 0..<batch {
            memory.parallel.forEach(pixels, minimumPerThread: KernelConfig.quantizedConvolutionMinimumPixelsPerThread, Bands(
                kernel: self, source: UnsafeRawPointer(memory.raw(input)) + b * y.input * x.input * inputChannels,
                destination: memory.raw(output) + b * pixels * gemm.columns, scratch: memory.scratch))
        }
    }

    /// A band of output pixels in a build without optimization: its patches gathered by C as exact doubles, then
    /// ``QuantizedOnoneProduct``. Each band takes its own part of the scratch (the patches and products of its rows).
    private struct OnoneBands: ParallelLoop {
        let kernel: QuantizedConv2DKernel
        let onone: QuantizedOnoneProduct
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer
        let scratch: UnsafeMutableRawPointer

        func run(_ pixels: Range<Int>) {
            let k = kernel, band = scratch + pixels.lowerBound * (onone.depth + onone.columns) * MemoryLayout<Double>.stride
            vt_onone_quantized_patches(
                source, k.signed ? 1 : 0, k.inputZeroPoint, Int32(pixels.lowerBound), Int32(pixels.upperBound), Int32(k.x.output),
                Int32(k.y.input), Int32(k.x.input), Int32(k.inputChannels), Int32(k.y.filter), Int32(k.x.filter), Int32(k.y.stride),
                Int32(k.x.stride), Int32(k.y.dilation), Int32(k.x.dilation), Int32(k.y.padBefore), Int32(k.x.padBefore),
                Int32(onone.depth), band.assumingMemoryBound(to: Double.self))
            onone.run(band, rows: pixels.count, c: destination + pixels.lowerBound * onone.columns, ldc: onone.columns, signed: k.signed)
        }
    }

    private struct Bands: ParallelLoop {
        let kernel: QuantizedConv2DKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer
        let scratch: UnsafeMutableRawPointer

        func run(_ pixels: Range<Int>) {
            if kernel.isPointwise {
                // A 1 × 1, stride-1 filter's patches are the input's pixels as they lie.
                if kernel.signed { pointwise(pixels, as: Int8.self) } else { pointwise(pixels, as: UInt8.self) }
                return
            }
            if case let .quads(dot) = kernel.gemm {
                if kernel.signed {
                    kernel.band(pixels, source, destination.assumingMemoryBound(to: Int8.self), scratch, dot)
                } else {
                    kernel.band(pixels, source, destination.assumingMemoryBound(to: UInt8.self), scratch, dot)
                }
                return
            }
            guard case let .pairs(gemm) = kernel.gemm else { return }
            let scratch = scratch.assumingMemoryBound(to: Int16.self)
            if kernel.signed {
                kernel.band(pixels, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self), scratch, gemm)
            } else {
                kernel.band(pixels, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self), scratch, gemm)
            }
        }

        private func pointwise<Element: QuantizedElement>(_ pixels: Range<Int>, as _: Element.Type) {
            let k = kernel
            k.gemm.runPointwise(pixels, pixelCount: k.y.output * k.x.output, source: source.assumingMemoryBound(to: Element.self),
                                channels: k.inputChannels, inputZeroPoint: k.inputZeroPoint, scratch: scratch,
                                c: destination.assumingMemoryBound(to: Element.self), ldc: k.gemm.columns, requantization: k.requantization)
        }
    }

    /// Output pixels gathered and multiplied a chunk at a time (``forEachChunk(of:depth:elementBytes:_:)``), each
    /// chunk's patches at the start of the band's own part of the scratch.
    private func band<Element: QuantizedElement>(_ pixels: Range<Int>, _ source: UnsafePointer<Element>,
                                                 _ destination: UnsafeMutablePointer<Element>, _ scratch: UnsafeMutablePointer<Int16>,
                                                 _ gemm: QuantizedGEMM) {
        let depth = gemm.depth, rows = scratch + pixels.lowerBound * depth
        Self.forEachChunk(of: pixels, depth: depth, elementBytes: 2) { chunk in
            for p in chunk { gatherPatch(p, source, rows + (p - chunk.lowerBound) * depth, depth: depth) }
            gemm.run(a: rows, lda: depth, rows: 0..<chunk.count, c: destination + chunk.lowerBound * gemm.columns, ldc: gemm.columns,
                     requantization: requantization)
        }
    }

    /// A band's pixels in chunks whose im2col rows take about 64 KB, a multiple of 24 rows (the tiles' heights: 4 and
    /// 8 for int16 pairs, 12 and 4 for byte quads). The whole band's rows at once (256² pixels × 3 × 3 × 16 channels:
    /// 9.4 MB of int16 per thread in an int8 U-Net) went out to memory and back between the gathering and the GEMM;
    /// a chunk's stay in L2. Every sum is exact, so how rows are grouped changes no byte.
    @inline(__always)
    fileprivate static func forEachChunk(of pixels: Range<Int>, depth: Int, elementBytes: Int, _ body: (Range<Int>) -> Void) {
        let size = max(24, (64 << 10) / max(1, depth * elementBytes) / 24 * 24)
        var start = pixels.lowerBound
        while start < pixels.upperBound {
            let end = min(start + size, pixels.upperBound)
            body(start..<end)
            start = end
        }
    }

    /// `count` inputs less the zero point, eight at a time (the stem's rows of 3 × 3 RGB values are too short for the
    /// optimizer to vectorize the plain loop; a 3 × 3 window over 256 channels is 768).
    @inline(__always)
    private static func widen<Element: QuantizedElement>(_ source: UnsafePointer<Element>, count: Int, zero: Int16,
                                                         into target: UnsafeMutablePointer<Int16>) {
        var i = 0
        while i + 8 <= count {
            let values = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<Element>.self)
            UnsafeMutableRawPointer(target + i).storeBytes(of: SIMD8<Int16>(truncatingIfNeeded: values) &- zero, as: SIMD8<Int16>.self)
            i += 8
        }
        while i < count {
            target[i] = Int16(source[i]) &- zero
            i += 1
        }
    }

    /// One im2col row: the window of output pixel `p`, input less its zero point, zeros outside and in the pad column.
    private func gatherPatch<Element: QuantizedElement>(_ p: Int, _ source: UnsafePointer<Element>, _ row: UnsafeMutablePointer<Int16>,
                                                        depth: Int) {
        let oy = p / x.output, ox = p % x.output
        let zero = Int16(inputZeroPoint)
        var column = 0
        if x.dilation == 1, interiorRows.contains(oy), interiorColumns.contains(ox) {
            // The whole window inside the input: each filter row is one contiguous run of kw × channels values.
            let run = x.filter * inputChannels
            for ky in 0..<y.filter {
                let start = source + (y.source(oy, ky) * x.input + x.source(ox, 0)) * inputChannels
                Self.widen(start, count: run, zero: zero, into: row + column)
                column += run
            }
            if column < depth { (row + column).initialize(repeating: 0, count: depth - column) }
            return
        }
        for ky in 0..<y.filter {
            let iy = y.source(oy, ky)
            for kx in 0..<x.filter {
                let ix = x.source(ox, kx)
                if iy >= 0, iy < y.input, ix >= 0, ix < x.input {
                    let pixel = source + (iy * x.input + ix) * inputChannels
                    for c in 0..<inputChannels { row[column + c] = Int16(pixel[c]) &- zero }
                } else {
                    (row + column).initialize(repeating: 0, count: inputChannels)
                }
                column += inputChannels
            }
        }
        if column < depth { (row + column).initialize(repeating: 0, count: depth - column) }
    }
}

extension QuantizedConv2DKernel {
    /// A band through ``QuantizedDotGEMM`` (a filter wider than 1 × 1 or strided; a 1 × 1 one reads the input in place
    /// or flipped in one run, ``QuantizedMatrixMultiply/runPointwise``): A′ rows, then their sums where the filter
    /// needs them, then the tiles.
    fileprivate func band<Element: QuantizedElement>(_ pixels: Range<Int>, _ source: UnsafeRawPointer, _ destination: UnsafeMutablePointer<Element>,
                                                     _ scratch: UnsafeMutableRawPointer, _ dot: QuantizedDotGEMM) {
        let depth = dot.depth, bytes = source.assumingMemoryBound(to: UInt8.self)
        let rows = scratch.assumingMemoryBound(to: UInt8.self) + pixels.lowerBound * depth
        let sums = (scratch + QuantizedMatrixMultiply.rowSumOffset(y.output * x.output * depth)).assumingMemoryBound(to: Int32.self)
            + pixels.lowerBound
        Self.forEachChunk(of: pixels, depth: depth, elementBytes: 1) { chunk in
            dotChunk(chunk, bytes, destination, rows, sums, dot)
        }
    }

    /// One chunk of a band: its A′ rows and sums from the band's start in the scratch.
    @inline(__always)
    private func dotChunk<Element: QuantizedElement>(_ pixels: Range<Int>, _ bytes: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<Element>,
                                                     _ rows: UnsafeMutablePointer<UInt8>, _ sums: UnsafeMutablePointer<Int32>,
                                                     _ dot: QuantizedDotGEMM) {
        let depth = dot.depth
        // Row and column counted along (a division per pixel was a tenth of a 3 × 3 stem's gathering), and a window
        // inside the input copied here with the steps computed once: through gatherBytes' general index arithmetic,
        // the stem of an int8 YOLOv8 (3 × 3 over RGB, 25,600 pixels) spent 70 % of its time gathering, 3.4 times
        // LiteRT's whole operator. Every offset is inside the input (interior windows).
        var oy = pixels.lowerBound / x.output, ox = pixels.lowerBound % x.output
        let run = x.filter * inputChannels, rowStep = y.dilation * x.input * inputChannels
        let tail = depth - y.filter * run, flip = dot.inputOffset
        for p in pixels {
            if x.dilation == 1, interiorRows.contains(oy), interiorColumns.contains(ox) {
                var from = bytes + (y.source(oy, 0) &* x.input &+ x.source(ox, 0)) &* inputChannels
                var to = rows + (p &- pixels.lowerBound) &* depth
                for _ in 0..<y.filter {
                    copyBytes(from, to: to, count: run, flip: flip)
                    from += rowStep
                    to += run
                }
                if tail > 0 { to.initialize(repeating: 0, count: tail) }
            } else {
                gatherBytes(oy, ox, bytes, rows + (p - pixels.lowerBound) * depth, dot)
            }
            ox += 1
            if ox == x.output { (oy, ox) = (oy + 1, 0) }
        }
        if dot.needsRowSums {
            for r in 0..<pixels.count { sums[r] = dot.rowSum(rows + r * depth, count: depth) }
        }
        dot.run(a: rows, lda: depth, rowSums: dot.needsRowSums ? UnsafePointer(sums) : nil, rows: 0..<pixels.count,
                c: destination + pixels.lowerBound * dot.columns, ldc: dot.columns, requantization: requantization)
    }

    /// One im2col row of A′ for a window that reaches outside the input or is dilated (the band copies the others
    /// itself): the window of output pixel (`oy`, `ox`) as unsigned bytes, the input's zero point outside it (the
    /// value that contributes nothing once the bias's correction is applied), zeros in the pad of the last quad.
    @inline(__always)
    private func gatherBytes(_ oy: Int, _ ox: Int, _ source: UnsafePointer<UInt8>, _ row: UnsafeMutablePointer<UInt8>,
                             _ dot: QuantizedDotGEMM) {
        let flip = dot.inputOffset
        var column = 0
        for ky in 0..<y.filter {
            let iy = y.source(oy, ky)
            for kx in 0..<x.filter {
                let ix = x.source(ox, kx)
                if iy >= 0, iy < y.input, ix >= 0, ix < x.input {
                    copyBytes(source + (iy * x.input + ix) * inputChannels, to: row + column, count: inputChannels, flip: flip)
                } else {
                    (row + column).initialize(repeating: dot.inputZero, count: inputChannels)
                }
                column += inputChannels
            }
        }
        if column < dot.depth { (row + column).initialize(repeating: 0, count: dot.depth - column) }
    }
}

/// What a quantized convolution or fully connected layer reads from the model: the filter less its zero points as
/// int16 (row-major [channels × depth]), the int32 bias, the requantization scale per output channel and the output
/// bounds of the fused activation.
struct QuantizedLayer {
    let input: Quantization
    let output: Quantization
    let weights: [Int16]
    /// The filter's zero point per channel.
    let filterZeroPoints: [Int32]
    let bias: [Int32]
    let scales: [Float]
    let requantization: Requantization

    /// `inputPosition`, `biasPosition`: where the operator takes them (TRANSPOSE_CONV: 2 and 3, after its output
    /// shape and filter); the filter is input 1 everywhere.
    init(_ context: OperatorContext, filter: Int, filterAxis: Int, channels: Int, activation: FusedActivation,
         inputPosition: Int = 0, biasPosition: Int = 2) throws(EngineError) {
        input = try context.quantization(try context.input(inputPosition))
        output = try context.quantization(try context.output(0))
        let (filterScales, filterZeroPoints) = try context.channelQuantization(filter, axis: filterAxis, channels: channels)
        self.filterZeroPoints = filterZeroPoints
        let raw = try context.constantQuantizedValues(1)
        guard channels > 0, raw.count % channels == 0 else { throw context.fail("filter of \(raw.count) values for \(channels) channels") }
        let depth = raw.count / channels
        // Depthwise filters run along their last axis ([1, kh, kw, channels]); the others along the first.
        weights = raw.indices.map { i in
            Int16(raw[i] - filterZeroPoints[filterAxis == 0 ? i / depth : i % channels])
        }
        bias = try context.constantBias(biasPosition, count: channels)
        // XNNPACK's operator setup: input scale × filter scale / output scale, in float, in that order.
        let inputScale = input.scale, outputScale = output.scale
        scales = filterScales.map { inputScale * $0 / outputScale }
        guard let bounds = output.bounds(activation) else { throw context.unsupported("fused \(activation) on a quantized output") }
        guard bounds.lowerBound <= bounds.upperBound else { throw context.fail("empty output range \(bounds)") }
        requantization = Requantization(output: output, bounds: bounds,
                                        roundsHalfUp: Requantization.roundsHalfUp(signed: output.range.lowerBound < 0))
    }

    private init(input: Quantization, output: Quantization, weights: [Int16], filterZeroPoints: [Int32], bias: [Int32],
                 scales: [Float], requantization: Requantization) {
        self.input = input; self.output = output; self.weights = weights; self.filterZeroPoints = filterZeroPoints
        self.bias = bias; self.scales = scales; self.requantization = requantization
    }

    /// A filter of `channels` rows of `taps` × `inputChannels` values, each tap made an output column of its own:
    /// column tap × channels + c holds tap `tap`'s weights of channel c, with c's zero point, bias and scale. A filter
    /// whose windows never overlap (TRANSPOSE_CONV with filter = stride) is then a 1 × 1 convolution to these columns.
    func tapsAsColumns(taps: Int, channels: Int, inputChannels: Int) -> QuantizedLayer {
        var columns = [Int16](repeating: 0, count: weights.count)
        for tap in 0..<taps {
            for c in 0..<channels {
                let from = (c * taps + tap) * inputChannels, to = (tap * channels + c) * inputChannels
                for k in 0..<inputChannels { columns[to + k] = weights[from + k] }
            }
        }
        func repeated<T>(_ values: [T]) -> [T] { (0..<taps).flatMap { _ in values } }
        return QuantizedLayer(input: input, output: output, weights: columns, filterZeroPoints: repeated(filterZeroPoints),
                              bias: repeated(bias), scales: repeated(scales), requantization: requantization)
    }
}
