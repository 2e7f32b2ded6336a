import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// MediaPipe's custom `Convolution2DTransposeBias` (selfie segmentation), and TFLite's builtin TRANSPOSE_CONV
/// (float; what TensorFlow's converter makes of Keras' Conv2DTranspose: U-Nets, decoders): a transposed
/// convolution plus bias.
///
/// Semantics of TFLite's reference TRANSPOSE_CONV, which MediaPipe's op predates only by its bias input: every
/// input pixel scatters `filter × value` into the output window at (input × stride − padding); padding is what a
/// forward convolution from the output size to the input size would use. The options are not a FlexBuffer but the
/// C struct `TfLiteTransposeConvParams` {padding, stride_width, stride_height} as three little-endian int32s.
struct TransposeConvolutionBiasKernel: EpilogueFusable {
    let input: Int
    private(set) var output: Int
    /// What the plan fused after it (the hair model's PReLU after each transposed convolution), applied to each
    /// output row as soon as it is written.
    private(set) var epilogue: Epilogue?
    /// The epilogue through its C twin (``KernelConfig/ononeLoops``).
    let ononeLoops: Bool
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
    /// Output channels rounded up to whole vectors of ``lanes``.
    let paddedChannels: Int
    /// [filterHeight, filterWidth, inputChannels, paddedChannels]: the taps of one input channel for every output
    /// channel side by side, zeros past the last, so that an output pixel's channels are one vector per tap.
    let weights: [Float]
    /// [paddedChannels], zeros past the last.
    let bias: [Float]
    /// Output rows per thread below which a row band is not split further.
    let minimumRowsPerThread: Int
    /// Whether ``tileRow(_:_:_:_:_:)`` runs: windows that tile the output, output channels below a vector.
    let tiles: Bool
    /// An input pixel's output window (filter rows × columns × output channels) rounded up to whole vectors.
    let tileWidth: Int
    /// [inputChannels, tileWidth] for ``tiles``: input channel c's taps for the whole window, zeros past its end.
    let tileWeights: [Float]
    /// [tileWidth]: each window position's bias.
    let tileBias: [Float]
    /// [window]: each window position's offset in the output from the window's first element.
    let tileOffsets: [Int]

    static let lanes = 8

    /// MediaPipe's custom operator: inputs (input, filter, bias).
    init(_ context: OperatorContext) throws(EngineError) {
        guard let options = context.op.customOptions, options.count >= 12 else {
            throw context.fail("custom options must hold padding and strides (12 bytes)")
        }
        let words = options.withUnsafeBytes { raw in (0..<3).map { Int(raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self)) } }
        // TfLitePadding: 1 = same, 2 = valid.
        guard [1, 2].contains(words[0]), words[1] >= 1, words[2] >= 1 else { throw context.fail("options \(words)") }
        try self.init(context, padding: words[0] == 1 ? .same : .valid, strideWidth: words[1], strideHeight: words[2],
                      inputPosition: 0, filterPosition: 1, biasPosition: 2)
    }

    /// TFLite's builtin TRANSPOSE_CONV: inputs (output shape, filter, input, bias from version 3 on), its fused
    /// activation (version 4) applied as an epilogue clamp. The output shape input must be the constant the output
    /// tensor declares: a shape computed at run time would need the plan to resize.
    init(builtin context: OperatorContext) throws(EngineError) {
        guard case let .transposeConv(options) = context.options else { throw context.fail("missing TransposeConvOptions") }
        guard options.strideWidth >= 1, options.strideHeight >= 1 else {
            throw context.fail("strides \(options.strideWidth)×\(options.strideHeight)")
        }
        let declared = context.shape(try context.output(0))
        guard context.hasInput(0), context.isConstant(try context.input(0)), try context.constantIntegers(0) == declared else {
            throw context.unsupported("output shape must be a constant equal to the output's \(declared)")
        }
        let activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        guard activation != .tanh else { throw context.unsupported("fused TANH activation") }
        try self.init(context, padding: options.padding, strideWidth: Int(options.strideWidth), strideHeight: Int(options.strideHeight),
                      inputPosition: 2, filterPosition: 1, biasPosition: 3)
        if activation != .none { epilogue = Epilogue(clamp: activation) }
    }

    private init(_ context: OperatorContext, padding: Padding, strideWidth: Int, strideHeight: Int,
                 inputPosition: Int, filterPosition: Int, biasPosition: Int) throws(EngineError) {
        input = try context.input(inputPosition)
        output = try context.output(0)
        ononeLoops = context.kernels.ononeLoops
        let filter = try context.input(filterPosition)
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
        self.strideWidth = strideWidth; self.strideHeight = strideHeight
        // Padding as a forward convolution from the output back to the input would have it.
        padTop = WindowAxis(input: o.h, filter: f[1], stride: strideHeight, dilation: 1, padding: padding).padBefore
        padLeft = WindowAxis(input: o.w, filter: f[2], stride: strideWidth, dilation: 1, padding: padding).padBefore
        let stored = try context.constantFloats(filterPosition)
        let storedBias = context.hasInput(biasPosition) ? try context.constantFloats(biasPosition) : Array(repeating: 0, count: o.c)
        guard stored.count == f.reduce(1, *), storedBias.count == o.c else { throw context.fail("weights/bias sizes") }
        let padded = (o.c + Self.lanes - 1) / Self.lanes * Self.lanes
        paddedChannels = padded
        var packed = [Float](repeating: 0, count: f[1] * f[2] * i.c * padded)
        for oc in 0..<o.c {
            for ky in 0..<f[1] {
                for kx in 0..<f[2] {
                    for c in 0..<i.c {
                        packed[((ky * f[2] + kx) * i.c + c) * padded + oc] = stored[((oc * f[1] + ky) * f[2] + kx) * i.c + c]
                    }
                }
            }
        }
        weights = packed
        bias = storedBias + Array(repeating: 0, count: padded - o.c)
        // An output pixel takes about ceil(filter / stride)² taps of inputChannels multiply-adds per vector.
        let taps = ((f[1] + strideHeight - 1) / strideHeight) * ((f[2] + strideWidth - 1) / strideWidth)
        let window = f[1] * f[2] * o.c
        tiles = strideHeight == f[1] && strideWidth == f[2] && padTop == 0 && padLeft == 0 && o.c < Self.lanes
            && o.h == i.h * strideHeight && o.w == i.w * strideWidth
        tileWidth = tiles ? (window + Self.lanes - 1) / Self.lanes * Self.lanes : 0
        if tiles {
            var tilePacked = [Float](repeating: 0, count: i.c * tileWidth)
            var offsets = [Int](repeating: 0, count: window), tileBiases = [Float](repeating: 0, count: tileWidth)
            for ky in 0..<f[1] {
                for kx in 0..<f[2] {
                    for oc in 0..<o.c {
                        let j = (ky * f[2] + kx) * o.c + oc
                        offsets[j] = (ky * o.w + kx) * o.c + oc
                        tileBiases[j] = storedBias[oc]
                        for c in 0..<i.c { tilePacked[c * tileWidth + j] = stored[((oc * f[1] + ky) * f[2] + kx) * i.c + c] }
                    }
                }
            }
            (tileWeights, tileBias, tileOffsets) = (tilePacked, tileBiases, offsets)
        } else {
            (tileWeights, tileBias, tileOffsets) = ([], [], [])
        }
        // In Double: a hostile model's sizes must not overflow here (the product only picks a split).
        let rowWork = max(1, Double(o.w) * Double(taps) * Double(i.c) * Double(padded / Self.lanes))
        minimumRowsPerThread = max(1, Int((Double(1 << 15) / rowWork).rounded(.up)))
    }

    /// Output-centric (a gather, where the reference definition scatters): an output pixel sums the taps that reach
    /// it — ky, then kx, then input channels, in that order whatever the thread count or grouping — then adds the
    /// bias, so each output is written once by one thread and the result is the same at any thread count. The
    /// scatter form took 16 ms of the hair model's 25 at one thread (its 128² × 32 → 256² × 8 layer alone): a scalar
    /// dot product per tap and output channel. Outputs of one row whose columns have the same remainder modulo the
    /// stride take the same taps, at input columns one apart: eight of them run at once, eight independent
    /// accumulators over the same weight vectors.
    var acceptsEpilogue: Bool { true }

    func fusing(_ epilogue: Epilogue, output: Int) -> any Kernel {
        var fused = self
        fused.epilogue = epilogue
        fused.output = output
        return fused
    }

    func run(_ memory: TensorMemory) {
        let addend = epilogue?.addend(in: memory, offset: 0)
        if ononeLoops {
            // A build that compiled this module without optimization: its SIMD operations would be runtime calls.
            memory.parallel.forEach(batch * outputHeight, minimumPerThread: minimumRowsPerThread,
                                    Rows(kernel: self, source: memory.floats(input), destination: memory.floats(output), addend: addend, scalar: true))
            return
        }
        if tiles {
            memory.parallel.forEach(batch * inputHeight, minimumPerThread: max(1, minimumRowsPerThread / strideHeight),
                                    TileRows(kernel: self, source: memory.floats(input), destination: memory.floats(output), addend: addend))
            return
        }
        memory.parallel.forEach(batch * outputHeight, minimumPerThread: minimumRowsPerThread,
                                Rows(kernel: self, source: memory.floats(input), destination: memory.floats(output), addend: addend, scalar: false))
    }

    /// The epilogue over `pixels` output pixels from pixel `first` on, just written.
    @inline(__always)
    private func finish(_ first: Int, pixels: Int, _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?) {
        guard let epilogue else { return }
        let offset = first * outputChannels
        epilogue.apply(output: destination + offset, addend: addend.map { $0 + (epilogue.addendChannels.map { first * $0 } ?? offset) },
                       rows: pixels, rowStride: outputChannels, channels: 0..<outputChannels, ononeLoop: ononeLoops)
    }

    private func scalarRow(_ row: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                           _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let b = row / outputHeight, oy = row % outputHeight
        let channels = inputChannels, padded = paddedChannels
        let image = source + b * inputHeight * inputWidth * channels
        let out = destination + row * outputWidth * outputChannels
        for ox in 0..<outputWidth {
            for oc in 0..<outputChannels {
                var sum: Float = 0
                for ky in 0..<filterHeight {
                    guard let iy = inputRow(oy, ky) else { continue }
                    for kx in 0..<filterWidth {
                        let d = ox + padLeft - kx
                        guard d >= 0, d % strideWidth == 0, d / strideWidth < inputWidth else { continue }
                        let pixel = image + (iy * inputWidth + d / strideWidth) * channels
                        let tap = weights + (ky * filterWidth + kx) * channels * padded + oc
                        for c in 0..<channels {
                            #if VISION_TASKS_FMA || arch(arm64)
                            sum = sum.addingProduct(pixel[c], tap[c * padded])
                            #else
                            sum += pixel[c] * tap[c * padded]
                            #endif
                        }
                    }
                }
                out[ox * outputChannels + oc] = sum + bias[oc]
            }
        }
    }

    private struct TileRows: ParallelLoop {
        let kernel: TransposeConvolutionBiasKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        func run(_ rows: Range<Int>) {
            kernel.tileWeights.withUnsafeBufferPointer { w in
                kernel.tileBias.withUnsafeBufferPointer { b in
                    kernel.tileOffsets.withUnsafeBufferPointer { o in
                        for row in rows {
                            kernel.tileRow(row, source, destination, w.baseAddress!, b.baseAddress!, o.baseAddress!)
                            // Input row iy wrote output rows iy × stride ..< (iy + 1) × stride of its image.
                            let outputRow = row / kernel.inputHeight * kernel.outputHeight + row % kernel.inputHeight * kernel.strideHeight
                            kernel.finish(outputRow * kernel.outputWidth, pixels: kernel.strideHeight * kernel.outputWidth, destination, addend)
                        }
                    }
                }
            }
        }
    }

    /// Output rows, each through `row` or, in a build without optimization, `scalarRow` (the same bits).
    private struct Rows: ParallelLoop {
        let kernel: TransposeConvolutionBiasKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        let scalar: Bool
        func run(_ rows: Range<Int>) {
            kernel.weights.withUnsafeBufferPointer { w in
                kernel.bias.withUnsafeBufferPointer { b in
                    for row in rows {
                        if scalar {
                            kernel.scalarRow(row, source, destination, w.baseAddress!, b.baseAddress!)
                        } else {
                            kernel.row(row, source, destination, w.baseAddress!, b.baseAddress!)
                        }
                        kernel.finish(row * kernel.outputWidth, pixels: kernel.outputWidth, destination, addend)
                    }
                }
            }
        }
    }

    /// The input row under filter row `ky` for output row `oy`, or nil when no input row is.
    @inline(__always) private func inputRow(_ oy: Int, _ ky: Int) -> Int? {
        let d = oy + padTop - ky
        guard d >= 0, d % strideHeight == 0, d / strideHeight < inputHeight else { return nil }
        return d / strideHeight
    }

    /// For the output columns first, first + stride, …: the offset from the m-th of them to the input column under
    /// filter column `kx`, or nil when `kx` never reaches them.
    @inline(__always) private func columnShift(_ first: Int, _ kx: Int) -> Int? {
        let d = first + padLeft - kx
        guard d % strideWidth == 0 else { return nil }
        return d / strideWidth
    }

    private func row(_ row: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                     _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        typealias Vector = SIMD8<Float>
        let lanes = Self.lanes
        let b = row / outputHeight, oy = row % outputHeight
        let channels = inputChannels, padded = paddedChannels, width = inputWidth
        let image = source + b * inputHeight * width * channels
        let out = destination + row * outputWidth * outputChannels
        for lane0 in stride(from: 0, to: padded, by: lanes) {
            let wholeVector = lane0 + lanes <= outputChannels
            let chunkBias = UnsafeRawPointer(bias + lane0).loadUnaligned(as: Vector.self)
            @inline(__always) func store(_ sum: Vector, _ ox: Int) {
                let value = sum + chunkBias
                let at = out + ox * outputChannels + lane0
                if wholeVector {
                    UnsafeMutableRawPointer(at).storeBytes(of: value, as: Vector.self)
                } else {
                    for lane in 0..<(outputChannels - lane0) { at[lane] = value[lane] }
                }
            }
            for first in 0..<min(strideWidth, outputWidth) {
                let count = (outputWidth - first + strideWidth - 1) / strideWidth
                // The columns m in low..<high have every tap inside the input.
                var low = 0, high = count
                for kx in 0..<filterWidth {
                    guard let shift = columnShift(first, kx) else { continue }
                    low = max(low, -shift)
                    high = min(high, width - shift)
                }
                @inline(__always) func single(_ m: Int) {
                    var sum = Vector()
                    for ky in 0..<filterHeight {
                        guard let iy = inputRow(oy, ky) else { continue }
                        for kx in 0..<filterWidth {
                            guard let shift = columnShift(first, kx), m + shift >= 0, m + shift < width else { continue }
                            let pixel = image + (iy * width + m + shift) * channels
                            var tap = weights + (ky * filterWidth + kx) * channels * padded + lane0
                            for c in 0..<channels {
                                sum.accumulate(Vector(repeating: pixel[c]), UnsafeRawPointer(tap).loadUnaligned(as: Vector.self))
                                tap += padded
                            }
                        }
                    }
                    store(sum, first + m * strideWidth)
                }
                var m = 0
                while m < count, m < low || m + 8 > high {
                    single(m)
                    m += 1
                }
                while m + 8 <= high {
                    var s0 = Vector(), s1 = Vector(), s2 = Vector(), s3 = Vector()
                    var s4 = Vector(), s5 = Vector(), s6 = Vector(), s7 = Vector()
                    for ky in 0..<filterHeight {
                        guard let iy = inputRow(oy, ky) else { continue }
                        for kx in 0..<filterWidth {
                            guard let shift = columnShift(first, kx) else { continue }
                            let p0 = image + (iy * width + m + shift) * channels
                            let p1 = p0 + channels, p2 = p1 + channels, p3 = p2 + channels
                            let p4 = p3 + channels, p5 = p4 + channels, p6 = p5 + channels, p7 = p6 + channels
                            var tap = weights + (ky * filterWidth + kx) * channels * padded + lane0
                            for c in 0..<channels {
                                let w = UnsafeRawPointer(tap).loadUnaligned(as: Vector.self)
                                s0.accumulate(Vector(repeating: p0[c]), w)
                                s1.accumulate(Vector(repeating: p1[c]), w)
                                s2.accumulate(Vector(repeating: p2[c]), w)
                                s3.accumulate(Vector(repeating: p3[c]), w)
                                s4.accumulate(Vector(repeating: p4[c]), w)
                                s5.accumulate(Vector(repeating: p5[c]), w)
                                s6.accumulate(Vector(repeating: p6[c]), w)
                                s7.accumulate(Vector(repeating: p7[c]), w)
                                tap += padded
                            }
                        }
                    }
                    let ox = first + m * strideWidth, step = strideWidth
                    store(s0, ox); store(s1, ox + step); store(s2, ox + 2 * step); store(s3, ox + 3 * step)
                    store(s4, ox + 4 * step); store(s5, ox + 5 * step); store(s6, ox + 6 * step); store(s7, ox + 7 * step)
                    m += 8
                }
                while m < count {
                    single(m)
                    m += 1
                }
            }
        }
    }

    /// Input-centric for windows that tile the output (stride = filter, no padding, the output exactly the strided
    /// input) with few output channels: selfie segmentation's 2 × 2 → 1 channel, the hair model's 2 × 2 → 2. One
    /// input pixel's whole output window — filter rows × columns × channels, in ``tileWeights``' order — is one or two
    /// vectors of ``lanes``, where per output pixel the channel vector was mostly padding. Each output still takes
    /// its one tap's channels in order, then the bias: the same arithmetic as ``row(_:_:_:_:_:)``.
    private func tileRow(_ row: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                         _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ offsets: UnsafePointer<Int>) {
        typealias Vector = SIMD8<Float>
        let lanes = Self.lanes
        let b = row / inputHeight, iy = row % inputHeight
        let channels = inputChannels, window = filterHeight * filterWidth * outputChannels, padded = tileWidth
        let line = source + row * inputWidth * channels
        let first = destination + (b * outputHeight + iy * strideHeight) * outputWidth * outputChannels
        @inline(__always) func store(_ sum: Vector, _ ix: Int, _ lane0: Int) {
            let value = sum + UnsafeRawPointer(bias + lane0).loadUnaligned(as: Vector.self)
            let corner = first + ix * strideWidth * outputChannels
            for lane in 0..<min(lanes, window - lane0) { corner[offsets[lane0 + lane]] = value[lane] }
        }
        for lane0 in stride(from: 0, to: padded, by: lanes) {
            var ix = 0
            while ix + 4 <= inputWidth {
                var s0 = Vector(), s1 = Vector(), s2 = Vector(), s3 = Vector()
                let p0 = line + ix * channels, p1 = p0 + channels, p2 = p1 + channels, p3 = p2 + channels
                var tap = weights + lane0
                for c in 0..<channels {
                    let w = UnsafeRawPointer(tap).loadUnaligned(as: Vector.self)
                    s0.accumulate(Vector(repeating: p0[c]), w)
                    s1.accumulate(Vector(repeating: p1[c]), w)
                    s2.accumulate(Vector(repeating: p2[c]), w)
                    s3.accumulate(Vector(repeating: p3[c]), w)
                    tap += padded
                }
                store(s0, ix, lane0); store(s1, ix + 1, lane0); store(s2, ix + 2, lane0); store(s3, ix + 3, lane0)
                ix += 4
            }
            while ix < inputWidth {
                var sum = Vector()
                let pixel = line + ix * channels
                var tap = weights + lane0
                for c in 0..<channels {
                    sum.accumulate(Vector(repeating: pixel[c]), UnsafeRawPointer(tap).loadUnaligned(as: Vector.self))
                    tap += padded
                }
                store(sum, ix, lane0)
                ix += 1
            }
        }
    }
}
