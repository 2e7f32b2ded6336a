import CVisionTasksOnoneKernels
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// DEPTHWISE_CONV_2D: output channel `c × multiplier + m` filters input channel `c` with its own kh × kw taps.
///
/// This file plans the work (padded copies, channel blocks, rows per thread, the epilogue); the channel loops of
/// multiplier 1 are the tier's (``KernelConfig/floatDepthwise``): eight channels per vector in
/// DepthwiseConv2DEightChannels.swift, sixteen in DepthwiseConv2DSixteenChannels.swift, chosen when the kernel is
/// built. Both give the same bits; a channel multiplier above 1 takes ``genericRow`` in either, a 1 × 1 filter
/// ``singleTap`` (DepthwiseConv2DSingleTap.swift).
struct DepthwiseConv2DKernel: EpilogueFusable {
    let input: Int
    private(set) var output: Int
    let batch: Int
    let inputChannels: Int
    let multiplier: Int
    let y: WindowAxis
    let x: WindowAxis
    /// [kh, kw, outputChannels], as the model stores it.
    let weights: [Float]
    let bias: [Float]
    let activation: Activation
    /// Which channel loops run: the tier's choice, made once here.
    let channelLoops: KernelConfig.FloatDepthwiseKernel
    /// The CPU's tier's C loops the eight-channel interiors run instead of the Swift ones (a portable build on an AVX2
    /// or AVX-512 CPU: ``KernelConfig/dispatchedTier``), or nil.
    let dispatchedLoops: FloatDepthwiseLoops?
    /// The epilogue through its C twin (``KernelConfig/ononeLoops``).
    let ononeLoops: Bool

    var outputChannels: Int { inputChannels * multiplier }
    /// Output columns whose window lies inside the input, computed once.
    let interiorColumns: Range<Int>
    /// Height and width of a zero-padded copy of the input that every window lies inside, for layers where
    /// border pixels would be many (7 × 7 and 14 × 14 maps with 5 × 5 filters: half their outputs); nil when the
    /// border columns and rows go through ``borderPixel`` instead.
    let paddedSize: (height: Int, width: Int)?
    /// Channels per block of the padded copy, which is made and used one block of channels at a time so that a
    /// block's padded map stays in L1 while all its outputs are computed. Whole, the copy of 7 × 7 × 1152 is
    /// 557 KB (more than Zen 2's L2) and every 5 × 5 window of a row pulled 184 KB through L2.
    let blockChannels: Int
    var blockCount: Int { (inputChannels + blockChannels - 1) / blockChannels }
    /// Floats of one block's padded map.
    var blockFloats: Int { paddedSize.map { $0.height * $0.width * blockChannels } ?? 0 }

    var scratchBytes: Int { blockCount * blockFloats * 4 }
    /// Element-wise operators after this one that the plan folded in.
    private(set) var epilogue: Epilogue?

    /// Tanh is applied per row before ``finish(_:_:_:)``, so every activation allows one.
    var acceptsEpilogue: Bool { true }

    func fusing(_ epilogue: Epilogue, output: Int) -> any Kernel {
        var fused = self
        fused.epilogue = epilogue
        fused.output = output
        return fused
    }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .depthwiseConv2D(options) = context.options else { throw context.fail("missing DepthwiseConv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        try context.requireFloat([input, output, filter])
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input or filter is not 4-D")
        }
        let f = context.shape(filter)
        guard f[0] == 1, i.c > 0, f[3] % i.c == 0 else { throw context.fail("filter \(f) for \(i.c) input channels") }
        batch = i.n
        inputChannels = i.c
        multiplier = f[3] / i.c
        let padded = context.paddedSpatialSize(i)
        (y, x) = context.unpadding(
            try context.windowAxis(input: padded.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding),
            try context.windowAxis(input: padded.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding))
        weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: f[3])
        guard weights.count == f[1] * f[2] * f[3], bias.count == f[3] else { throw context.fail("weights/bias sizes") }
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        channelLoops = context.kernels.floatDepthwise
        dispatchedLoops = context.kernels.floatDepthwiseLoops
        ononeLoops = context.kernels.ononeLoops
        try context.expect([batch, y.output, x.output, f[3]], forOutput: 0)
        interiorColumns = x.interior
        let fastFilter = multiplier == 1 && f[1] == f[2] && (f[1] == 3 || f[1] == 5) && y.dilation == 1 && x.dilation == 1
        // Dilated 3 × 3 filters (DeepLab v3's backbone at output stride 16: 17 × 17 maps of 384–960 channels at rate
        // 2, where the border is 4 of every 17 rows and columns) always go through the padded copy and the 3 × 3
        // loop with its taps `dilation` pixels apart: through the border pixel loop they ran 6–9 × XNNPACK's time.
        // (Dilations within the input: the copy's sides then stay within three times the input's.)
        let dilatedFilter = multiplier == 1 && f[1] == 3 && f[2] == 3 && y.dilation == x.dilation && x.dilation > 1 && i.c >= 8
            && y.dilation <= y.input && x.dilation <= x.input
        let interiorPixels = y.interior.count * x.interior.count, pixels = y.output * x.output
        // A copy costs one read and one write per input value, against filter² multiply-adds per output value; the
        // per-tap checks of border pixels cost more than that once a tenth of the outputs are border pixels. Not at
        // stride 2, where the input is four times the output: copying it cost more than the borders (56 × 56 × 144
        // → 28 × 28, 5 × 5: 0.155 → 0.24 ms).
        // The C loops of a build without optimization skip border taps themselves, one row a call: no padded copy.
        if fastFilter || dilatedFilter, channelLoops != .ononeLoops, y.stride == 1, x.stride == 1,
           (pixels - interiorPixels) * 10 > pixels || dilatedFilter {
            let size = (height: max(y.input + y.padBefore, (y.output - 1) * y.stride + (y.filter - 1) * y.dilation + 1),
                        width: max(x.input + x.padBefore, (x.output - 1) * x.stride + (x.filter - 1) * x.dilation + 1))
            paddedSize = size
            // Blocks where the maps are small and a row's windows large: 7 × 7 and 14 × 14 maps of 480–1152
            // channels. Blocks of as many channels as keep a block's map within 64 KB, an eighth of L2 (24 KB, within
            // L1, made the 16-channel blocks of 14 × 14 maps slower than none), in whole vectors. On 28 × 28 maps the
            // short channel loops of 8–16-channel blocks cost what the blocks save, and at two threads (blocks are
            // split between threads, rows otherwise) each thread read half its input from the other core's cache:
            // 28 × 28 × 96 3 × 3 went from 0.024 to 0.033 ms.
            let window = y.filter * size.width * i.c * 4
            // Dilated filters on maps of any size (DeepLab's 17 × 17 × 960 at rate 2: a 21 × 21 copy of 1.7 MB, made
            // whole, ran from L3 at twice XNNPACK's time), but only over whole vectors of channels: a last block of
            // fewer than 8 would need a scalar tail with the taps apart.
            let blocks = dilatedFilter ? i.c % 8 == 0 : pixels <= 14 * 14
            blockChannels = blocks && window > 64 << 10
                ? min((i.c + 7) & ~7, max(8, (64 << 10) / (size.height * size.width * 4) & ~7)) : i.c
        } else {
            paddedSize = nil
            blockChannels = i.c
        }
    }

    func run(_ memory: TensorMemory) {
        for b in 0..<batch {
            let source = memory.floats(input) + b * y.input * x.input * inputChannels
            let destination = memory.floats(output) + b * y.output * x.output * outputChannels
            let addend = epilogue?.addend(in: memory, offset: b * y.output * x.output * outputChannels)
            if let paddedSize {
                let padded = memory.scratch.assumingMemoryBound(to: Float.self)
                if blockCount > 1 {
                    memory.parallel.forEach(blockCount, PaddedBlocks(kernel: self, source: source, padded: padded, destination: destination, addend: addend))
                } else {
                    memory.parallel.forEach(paddedSize.height, minimumPerThread: KernelConfig.paddedRowsMinimumPerThread, PadRows(kernel: self, source: source, padded: padded))
                    memory.parallel.forEach(y.output, minimumPerThread: minimumRowsPerThread,
                                            PaddedRows(kernel: self, padded: padded, destination: destination, addend: addend))
                }
            } else {
                memory.parallel.forEach(y.output, minimumPerThread: minimumRowsPerThread, Rows(kernel: self, source: source, destination: destination, addend: addend))
            }
        }
    }

    /// Rows worth handing to another thread: some 64 K multiply-adds (5 µs) at least. Below that the split cost
    /// more than it saved — the other core first pulls the input from this core's cache, where the operator before
    /// wrote it (BlazePose's 16 × 16 × 288 → 7 × 7 layers: 0.010 ms on one thread, 0.015 on two).
    private var minimumRowsPerThread: Int {
        max(2, (1 << 16) / max(1, x.output * outputChannels * y.filter * x.filter))
    }

    private struct Rows: ParallelLoop {
        let kernel: DepthwiseConv2DKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        func run(_ rows: Range<Int>) { kernel.rows(rows, source, destination, addend) }
    }

    private struct PaddedBlocks: ParallelLoop {
        let kernel: DepthwiseConv2DKernel
        let source: UnsafeMutablePointer<Float>
        let padded: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        func run(_ blocks: Range<Int>) {
            for block in blocks {
                let map = padded + block &* kernel.blockFloats
                kernel.pad(block: block, rows: 0..<(kernel.paddedSize?.height ?? 0), source, map)
                kernel.paddedRows(0..<kernel.y.output, block: block, map, destination, addend)
            }
        }
    }

    private struct PadRows: ParallelLoop {
        let kernel: DepthwiseConv2DKernel
        let source: UnsafeMutablePointer<Float>
        let padded: UnsafeMutablePointer<Float>
        func run(_ rows: Range<Int>) { kernel.pad(block: 0, rows: rows, source, padded) }
    }

    private struct PaddedRows: ParallelLoop {
        let kernel: DepthwiseConv2DKernel
        let padded: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        func run(_ rows: Range<Int>) { kernel.paddedRows(rows, block: 0, padded, destination, addend) }
    }

    /// Rows `rows` of channel block `block`'s zero-padded copy `map`: the input at (padBefore, padBefore), zeros
    /// around it.
    private func pad(block: Int, rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ map: UnsafeMutablePointer<Float>) {
        guard let paddedSize else { return }
        let channels = inputChannels, first = block &* blockChannels, count = min(blockChannels, channels &- first)
        // Vector by vector: a memmove call per pixel cost more than the copy itself (28 × 28 × 240: 30,000 calls).
        let vectors = count & ~7
        var target = map + rows.lowerBound &* paddedSize.width &* blockChannels
        for r in rows {
            let iy = r &- y.padBefore
            for column in 0..<paddedSize.width {
                let ix = column &- x.padBefore
                let out = UnsafeMutableRawPointer(target)
                if iy < 0 || iy >= y.input || ix < 0 || ix >= x.input {
                    var c = 0
                    while c < vectors { out.storeBytes(of: SIMD8<Float>(), toByteOffset: c &* 4, as: SIMD8<Float>.self); c &+= 8 }
                    while c < count { target[c] = 0; c &+= 1 }
                } else {
                    let from = source + ((iy &* x.input &+ ix) &* channels &+ first)
                    var c = 0
                    while c < vectors {
                        out.storeBytes(of: UnsafeRawPointer(from + c).loadUnaligned(as: SIMD8<Float>.self), toByteOffset: c &* 4, as: SIMD8<Float>.self)
                        c &+= 8
                    }
                    while c < count { target[c] = from[c]; c &+= 1 }
                }
                target += blockChannels
            }
        }
    }

    /// Output rows `rows` of channel block `block` over its padded copy `map`, where every window lies inside.
    private func paddedRows(_ rows: Range<Int>, block: Int, _ map: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                            _ addend: UnsafePointer<Float>?) {
        guard let paddedSize else { return }
        let channels = inputChannels, first = block &* blockChannels, count = min(blockChannels, channels &- first)
        let rowStep = paddedSize.width &* blockChannels, span = ChannelSpan(pixelStride: blockChannels, count: count)
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { bias in
                for oy in rows {
                    let origin = UnsafePointer(map + oy &* y.stride &* rowStep), out = destination + (oy &* x.output &* channels &+ first)
                    switch channelLoops {
                    // (.ononeLoops never has a padded copy: see init.) Dilated filters only have the eight-channel
                    // 3 × 3 loop.
                    case _ where x.dilation > 1, .eightChannels, .ononeLoops:
                        interior(0..<x.output, origin, rowStep, out, w.baseAddress! + first, bias.baseAddress! + first, span)
                    case .sixteenChannels: wideInterior(0..<x.output, origin, rowStep, out, w.baseAddress! + first, bias.baseAddress! + first, span)
                    }
                    finish(oy, destination, addend, channels: first..<first &+ count)
                }
            }
        }
    }

    /// One output row, multiplier 1, through the chosen channel loops: the columns whose window lies wholly inside
    /// the input go through an unrolled 3 × 3 or 5 × 5 loop with no per-tap checks; the border columns (and other
    /// filter sizes) through the border pixel loop, which skips the taps outside the input, so borders need no
    /// padding copy.
    @inline(__always)
    private func row(_ oy: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                     _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, loops: KernelConfig.FloatDepthwiseKernel) {
        let channels = inputChannels
        let ky = y.validTaps(oy)
        let rowBase = source + (oy &* y.stride &- y.padBefore) &* x.input &* channels
        let out = destination + oy &* x.output &* channels
        var inner = 0..<0
        if ky.count == y.filter, y.filter == x.filter, x.filter == 3 || x.filter == 5 || hasSingleTap, x.dilation == 1, y.dilation == 1 {
            inner = interiorColumns
        }
        @inline(__always) func border(_ ox: Int) {
            switch loops {
            case .eightChannels, .ononeLoops: borderPixel(ox, ky, rowBase, out, w, bias)
            case .sixteenChannels: wideBorderPixel(ox, ky, rowBase, out, w, bias)
            }
        }
        for ox in 0..<inner.lowerBound { border(ox) }
        if !inner.isEmpty, hasSingleTap {
            singleTap(inner, rowBase, out, w, bias)
        } else if !inner.isEmpty {
            let origin = UnsafePointer(rowBase - x.padBefore &* channels), span = ChannelSpan(pixelStride: channels, count: channels)
            switch loops {
            case .eightChannels, .ononeLoops: interior(inner, origin, x.input &* channels, out, w, bias, span)
            case .sixteenChannels: wideInterior(inner, origin, x.input &* channels, out, w, bias, span)
            }
        }
        for ox in (inner.isEmpty ? 0 : inner.upperBound)..<x.output { border(ox) }
    }

    private func rows(_ rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                      _ addend: UnsafePointer<Float>?) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { bias in
                for oy in rows {
                    if multiplier == 1, channelLoops == .ononeLoops {
                        ononeRow(oy, source, destination, w.baseAddress!, bias.baseAddress!)
                    } else if multiplier == 1 {
                        row(oy, source, destination, w.baseAddress!, bias.baseAddress!, loops: channelLoops)
                    } else {
                        genericRow(oy, source, destination, w.baseAddress!, bias.baseAddress!)
                    }
                    finish(oy, destination, addend)
                }
            }
        }
    }

    /// One output row, multiplier 1, through the C loops of a build without optimization
    /// (``KernelConfig/FloatDepthwiseKernel/ononeLoops``): every column in one call, border taps skipped there.
    private func ononeRow(_ oy: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = inputChannels, taps = y.validTaps(oy), clamp = ActivationClamp(activation)
        let tapRowStep = y.dilation &* x.input &* channels
        let out = destination + oy &* x.output &* channels
        vt_onone_depthwise_row(source + (oy &* y.stride &- y.padBefore) &* x.input &* channels, tapRowStep,
                               Int32(taps.lowerBound), Int32(taps.upperBound), Int32(x.output), Int32(x.input),
                               Int32(channels), Int32(y.filter), Int32(x.filter), Int32(x.stride), Int32(x.dilation), Int32(x.padBefore),
                               w, bias, clamp.lower[0], clamp.upper[0], out)
        if activation == .tanh { activation.apply(out, count: x.output &* channels) }
    }

    /// Runs the fused epilogue, if any, over output row `oy` while it is still in L1.
    @inline(__always)
    private func finish(_ oy: Int, _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?, channels: Range<Int>? = nil) {
        guard let epilogue else { return }
        let offset = oy &* x.output &* outputChannels
        epilogue.apply(output: destination + offset, addend: addend.map { $0 + offset }, rows: x.output,
                       rowStride: outputChannels, channels: channels ?? 0..<outputChannels, ononeLoop: ononeLoops)
    }

    /// Which channels a run of interior pixels computes, and how far apart its input pixels lie: all of them in the
    /// input's own layout, or one block of the blocked padded copy.
    struct ChannelSpan {
        let pixelStride: Int
        let count: Int
    }

    private func genericRow(_ oy: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                            _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = outputChannels
        for ox in 0..<x.output {
            let out = destination + (oy * x.output + ox) * channels
            out.update(from: bias, count: channels)
            for ky in y.validTaps(oy) {
                for kx in x.validTaps(ox) {
                    let input = source + (y.source(oy, ky) * x.input + x.source(ox, kx)) * inputChannels
                    let taps = w + (ky * x.filter + kx) * channels
                    for c in 0..<channels { out[c] += input[c / multiplier] * taps[c] }
                }
            }
            activation.apply(out, count: channels)
        }
    }
}
