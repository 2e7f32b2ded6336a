import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// DEPTHWISE_CONV_2D: output channel `c × multiplier + m` filters input channel `c` with its own kh × kw taps.
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
        try context.expect([batch, y.output, x.output, f[3]], forOutput: 0)
        interiorColumns = x.interior
        let fastFilter = multiplier == 1 && f[1] == f[2] && (f[1] == 3 || f[1] == 5) && y.dilation == 1 && x.dilation == 1
        let interiorPixels = y.interior.count * x.interior.count, pixels = y.output * x.output
        // A copy costs one read and one write per input value, against filter² multiply-adds per output value; the
        // per-tap checks of border pixels cost more than that once a tenth of the outputs are border pixels. Not at
        // stride 2, where the input is four times the output: copying it cost more than the borders (56 × 56 × 144
        // → 28 × 28, 5 × 5: 0.155 → 0.24 ms).
        if fastFilter, y.stride == 1, x.stride == 1, (pixels - interiorPixels) * 10 > pixels {
            let size = (height: max(y.input + y.padBefore, (y.output - 1) * y.stride + y.filter),
                        width: max(x.input + x.padBefore, (x.output - 1) * x.stride + x.filter))
            paddedSize = size
            // Blocks where the maps are small and a row's windows large: 7 × 7 and 14 × 14 maps of 480–1152
            // channels. Blocks of as many channels as keep a block's map within 64 KB, an eighth of L2 (24 KB, within
            // L1, made the 16-channel blocks of 14 × 14 maps slower than none), in whole vectors. On 28 × 28 maps the
            // short channel loops of 8–16-channel blocks cost what the blocks save, and at two threads (blocks are
            // split between threads, rows otherwise) each thread read half its input from the other core's cache:
            // 28 × 28 × 96 3 × 3 went from 0.024 to 0.033 ms.
            let window = y.filter * size.width * i.c * 4
            blockChannels = pixels <= 14 * 14 && window > 64 << 10
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
                    interior(0..<x.output, UnsafePointer(map + oy &* y.stride &* rowStep), rowStep,
                             destination + (oy &* x.output &* channels &+ first), w.baseAddress! + first, bias.baseAddress! + first, span)
                    finish(oy, destination, addend, channels: first..<first &+ count)
                }
            }
        }
    }

    private func rows(_ rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                      _ addend: UnsafePointer<Float>?) {
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { bias in
                for oy in rows {
                    if multiplier == 1 {
                        row(oy, source, destination, w.baseAddress!, bias.baseAddress!)
                    } else {
                        genericRow(oy, source, destination, w.baseAddress!, bias.baseAddress!)
                    }
                    finish(oy, destination, addend)
                }
            }
        }
    }

    /// Runs the fused epilogue, if any, over output row `oy` while it is still in L1.
    @inline(__always)
    private func finish(_ oy: Int, _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?, channels: Range<Int>? = nil) {
        guard let epilogue else { return }
        let offset = oy &* x.output &* outputChannels
        epilogue.apply(output: destination + offset, addend: addend.map { $0 + offset }, rows: x.output,
                       rowStride: outputChannels, channels: channels ?? 0..<outputChannels)
    }

    /// Which channels a run of interior pixels computes, and how far apart its input pixels lie: all of them in the
    /// input's own layout, or one block of the blocked padded copy.
    struct ChannelSpan {
        let pixelStride: Int
        let count: Int
    }

    /// One output row, multiplier 1: the columns whose window lies wholly inside the input go through an unrolled
    /// 3 × 3 or 5 × 5 loop with no per-tap checks; the border columns (and other filter sizes) through
    /// ``borderPixel``, which skips the taps outside the input, so borders need no padding copy.
    @inline(__always)
    private func row(_ oy: Int, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                     _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = inputChannels
        let ky = y.validTaps(oy)
        let rowBase = source + (oy &* y.stride &- y.padBefore) &* x.input &* channels
        let out = destination + oy &* x.output &* channels
        var inner = 0..<0
        if ky.count == y.filter, y.filter == x.filter, x.filter == 3 || x.filter == 5, x.dilation == 1, y.dilation == 1 {
            inner = interiorColumns
        }
        for ox in 0..<inner.lowerBound { borderPixel(ox, ky, rowBase, out, w, bias) }
        if !inner.isEmpty {
            interior(inner, UnsafePointer(rowBase - x.padBefore &* channels), x.input &* channels, out, w, bias,
                     ChannelSpan(pixelStride: channels, count: channels))
        }
        for ox in (inner.isEmpty ? 0 : inner.upperBound)..<x.output { borderPixel(ox, ky, rowBase, out, w, bias) }
    }

    /// Output columns `columns` of one row whose windows lie inside the input; the window of column `ox` starts at
    /// `origin + ox × stride × channels`, its rows `rowStep` floats apart. One loop per filter size and stride, so
    /// that each is straight-line code with constant offsets.
    @inline(__always)
    private func interior(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ span: ChannelSpan) {
        let clamp = ActivationClamp(activation)
        switch (x.filter, x.stride) {
        case (3, 1): interior3Stride1(columns, origin, rowStep, out, w, bias, clamp, span)
        case (3, 2): interior3Stride2(columns, origin, rowStep, out, w, bias, clamp, span)
        case (3, _): interior(columns, taps: 3, stride: x.stride, origin, rowStep, out, w, bias, clamp, span)
        case (_, 1): interior5Stride1(columns, origin, rowStep, out, w, bias, clamp, span)
        case (_, 2): interior5Stride2(columns, origin, rowStep, out, w, bias, clamp, span)
        case (_, _): interior(columns, taps: 5, stride: x.stride, origin, rowStep, out, w, bias, clamp, span)
        }
        if activation == .tanh {
            for ox in columns { activation.apply(out + ox &* inputChannels, count: span.count) }
        }
    }

    // Each specialisation is a function of its own: inlined together into one body, they left the register
    // allocator shuffling pointers between every multiply-add.
    @inline(never)
    private func interior3Stride1(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                  _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior3(columns, stride: 1, origin, rowStep, out, w, bias, clamp, span)
    }

    @inline(never)
    private func interior3Stride2(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                  _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior3(columns, stride: 2, origin, rowStep, out, w, bias, clamp, span)
    }

    /// 3 × 3 windows, one channel vector at a time along the row: the vector's nine taps stay in registers, so each
    /// output vector costs nine input loads and nine multiply-adds — where the four-pixel loop, with every tap
    /// offset a separate pointer, spilled them and reloaded taps. Two accumulators per pixel (first row, other
    /// rows) halve the dependency chain; successive pixels are independent. The input rows one output row reads
    /// (3 × width × 8 floats per vector) stay in L1 from one channel vector to the next.
    @inline(__always)
    private func interior3(_ columns: Range<Int>, stride: Int, _ origin: UnsafePointer<Float>, _ rowStep: Int,
                           _ out: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                           _ clamp: ActivationClamp, _ span: ChannelSpan) {
        let channels = inputChannels, pixel = span.pixelStride
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        let pixelStep = stride &* pixel
        @inline(__always) func vector(_ c: Int) {
            let t = w + c
            let w0 = load(t), w1 = load(t + channels), w2 = load(t + 2 &* channels)
            let w3 = load(t + 3 &* channels), w4 = load(t + 4 &* channels), w5 = load(t + 5 &* channels)
            let w6 = load(t + 6 &* channels), w7 = load(t + 7 &* channels), w8 = load(t + 8 &* channels)
            let b = load(bias + c)
            var p = origin + (columns.lowerBound &* pixelStep &+ c)
            var o = out + (columns.lowerBound &* channels &+ c)
            for _ in columns {
                let r1 = p + rowStep, r2 = p + 2 &* rowStep
                var a0 = b, a1 = load(r1) * w3
                a0.accumulate(load(p), w0)
                a1.accumulate(load(r1 + pixel), w4)
                a0.accumulate(load(p + pixel), w1)
                a1.accumulate(load(r1 + 2 &* pixel), w5)
                a0.accumulate(load(p + 2 &* pixel), w2)
                a1.accumulate(load(r2), w6)
                a0.accumulate(load(r2 + pixel), w7)
                a1.accumulate(load(r2 + 2 &* pixel), w8)
                UnsafeMutableRawPointer(o).storeBytes(of: clamp(a0 + a1), as: SIMD8<Float>.self)
                p += pixelStep
                o += channels
            }
        }
        var c = 0
        while c &+ 8 <= span.count {
            vector(c)
            c &+= 8
        }
        if c < span.count, span.count >= 8 {
            // The last 1–7 channels: the eight ending there, again. The overlap is recomputed with the same
            // arithmetic (same bits) before any epilogue runs; the per-channel scalar loop took twice as long as a
            // vector (BlazeFace's 28-, 36- and 42-channel layers).
            vector(span.count &- 8)
        } else if c < span.count {
            var input = origin + columns.lowerBound &* pixelStep, output = out + columns.lowerBound &* channels
            for _ in columns {
                scalarTail(input, output, 3, rowStep, 3 &* channels, w, bias, span)
                input += pixelStep
                output += channels
            }
        }
    }

    @inline(never)
    private func interior5Stride1(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                  _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior(columns, taps: 5, stride: 1, origin, rowStep, out, w, bias, clamp, span)
    }

    @inline(never)
    private func interior5Stride2(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                  _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior(columns, taps: 5, stride: 2, origin, rowStep, out, w, bias, clamp, span)
    }

    /// Output columns `columns` of a row whose `taps` × `taps` windows lie inside the input (dilation 1).
    ///
    /// Sixteen channels (one cache line of each input pixel) at a time along the whole row, up to four output pixels
    /// per step: the window rows a step reads (taps × (taps + 3 × stride) pixels × 64 bytes) stay in L1 for the next
    /// step, which shares most of them. Walking all channels of four pixels before moving on, as this loop first
    /// did, put 5 × 8 pixels × 240 channels (38 KB) between reuses and left every load to come from L2. Eight
    /// accumulators (four pixels × two channel vectors) keep eight independent FMA chains, 25 long, in flight; four
    /// were latency-bound. The last one to three pixels of a row take a step of their own width (7 × 7 maps: 4 + 3),
    /// not one pixel at a time.
    @inline(__always)
    private func interior(_ columns: Range<Int>, taps: Int, stride: Int, _ origin: UnsafePointer<Float>, _ rowStep: Int,
                          _ out: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                          _ clamp: ActivationClamp, _ span: ChannelSpan) {
        let channels = inputChannels, pixel = span.pixelStride
        let tapRowStep = taps &* channels
        let vectorChannels = span.count & ~7
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        @inline(__always) func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
            UnsafeMutableRawPointer(p).storeBytes(of: clamp(v), as: SIMD8<Float>.self)
        }
        // `pixels` (1–4) output pixels from column `ox`, channels c..<c + 8 × vectors; both are constants where
        // called, so the unused accumulators fold away.
        @inline(__always) func step(_ ox: Int, _ c: Int, pixels: Int, vectors: Int) {
            let input = origin + (ox &* stride &* pixel &+ c), output = out + (ox &* channels &+ c)
            let b = load(bias + c), d = vectors > 1 ? load(bias + (c &+ 8)) : SIMD8<Float>()
            var a0 = b, a1 = b, a2 = b, a3 = b, e0 = d, e1 = d, e2 = d, e3 = d
            for ty in 0..<taps {
                let inputRow = input + ty &* rowStep, tapRow = w + (ty &* tapRowStep &+ c)
                for tx in 0..<taps {
                    let t = load(tapRow + tx &* channels)
                    let i0 = inputRow + tx &* pixel, i1 = inputRow + (stride &+ tx) &* pixel
                    let i2 = inputRow + (2 &* stride &+ tx) &* pixel, i3 = inputRow + (3 &* stride &+ tx) &* pixel
                    a0.accumulate(load(i0), t)
                    if pixels > 1 { a1.accumulate(load(i1), t) }
                    if pixels > 2 { a2.accumulate(load(i2), t) }
                    if pixels > 3 { a3.accumulate(load(i3), t) }
                    if vectors > 1 {
                        let u = load(tapRow + (tx &* channels &+ 8))
                        e0.accumulate(load(i0 + 8), u)
                        if pixels > 1 { e1.accumulate(load(i1 + 8), u) }
                        if pixels > 2 { e2.accumulate(load(i2 + 8), u) }
                        if pixels > 3 { e3.accumulate(load(i3 + 8), u) }
                    }
                }
            }
            store(a0, output)
            if pixels > 1 { store(a1, output + channels) }
            if pixels > 2 { store(a2, output + 2 &* channels) }
            if pixels > 3 { store(a3, output + 3 &* channels) }
            if vectors > 1 {
                store(e0, output + 8)
                if pixels > 1 { store(e1, output + (channels &+ 8)) }
                if pixels > 2 { store(e2, output + (2 &* channels &+ 8)) }
                if pixels > 3 { store(e3, output + (3 &* channels &+ 8)) }
            }
        }
        @inline(__always) func row(_ c: Int, vectors: Int) {
            var ox = columns.lowerBound
            while ox &+ 4 <= columns.upperBound {
                step(ox, c, pixels: 4, vectors: vectors)
                ox &+= 4
            }
            switch columns.upperBound &- ox {
            case 3: step(ox, c, pixels: 3, vectors: vectors)
            case 2: step(ox, c, pixels: 2, vectors: vectors)
            case 1: step(ox, c, pixels: 1, vectors: vectors)
            default: break
            }
        }
        var c = 0
        while c &+ 16 <= vectorChannels {
            row(c, vectors: 2)
            c &+= 16
        }
        if c < vectorChannels { row(c, vectors: 1) }
        if vectorChannels < span.count, span.count >= 8 {
            // The last 1–7 channels as the vector ending there (see ``interior3``).
            row(span.count &- 8, vectors: 1)
        } else if vectorChannels < span.count {
            for ox in columns {
                scalarTail(origin + ox &* stride &* pixel, out + ox &* channels, taps, rowStep, tapRowStep, w, bias, span)
            }
        }
    }

    /// The channels past the last multiple of 8 of one interior pixel.
    @inline(__always)
    private func scalarTail(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ taps: Int, _ rowStep: Int,
                            _ tapRowStep: Int, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ span: ChannelSpan) {
        let channels = inputChannels, pixel = span.pixelStride
        var c = span.count & ~7
        while c < span.count {
            var acc = bias[c]
            for ty in 0..<taps {
                for tx in 0..<taps { acc += input[ty &* rowStep &+ tx &* pixel &+ c] * w[ty &* tapRowStep &+ tx &* channels &+ c] }
            }
            output[c] = activation == .tanh ? acc : activation(acc)
            c &+= 1
        }
    }

    /// One output pixel of a row, any filter, taps outside the input skipped.
    @inline(__always)
    private func borderPixel(_ ox: Int, _ ky: Range<Int>, _ rowBase: UnsafeMutablePointer<Float>, _ rowOut: UnsafeMutablePointer<Float>,
                             _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = inputChannels
        let rowStep = y.dilation &* x.input &* channels, columnStep = x.dilation &* channels, tapRowStep = x.filter &* channels
        let kx = x.validTaps(ox)
        let pixelBase = rowBase + (ox &* x.stride &- x.padBefore) &* channels
        let out = rowOut + ox &* channels
        var c = 0
        while c &+ 8 <= channels {
            var acc0 = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Float>.self)
            var acc1 = SIMD8<Float>()
            var ty = ky.lowerBound
            while ty < ky.upperBound {
                let inputRow = pixelBase + (ty &* rowStep &+ c)
                let tapRow = w + (ty &* tapRowStep &+ c)
                var tx = kx.lowerBound
                while tx &+ 1 < kx.upperBound {
                    acc0.accumulate(UnsafeRawPointer(inputRow + tx &* columnStep).loadUnaligned(as: SIMD8<Float>.self),
                                    UnsafeRawPointer(tapRow + tx &* channels).loadUnaligned(as: SIMD8<Float>.self))
                    acc1.accumulate(UnsafeRawPointer(inputRow + (tx &+ 1) &* columnStep).loadUnaligned(as: SIMD8<Float>.self),
                                    UnsafeRawPointer(tapRow + (tx &+ 1) &* channels).loadUnaligned(as: SIMD8<Float>.self))
                    tx &+= 2
                }
                if tx < kx.upperBound {
                    acc0.accumulate(UnsafeRawPointer(inputRow + tx &* columnStep).loadUnaligned(as: SIMD8<Float>.self),
                                    UnsafeRawPointer(tapRow + tx &* channels).loadUnaligned(as: SIMD8<Float>.self))
                }
                ty &+= 1
            }
            UnsafeMutableRawPointer(out + c).storeBytes(of: activation(acc0 + acc1), as: SIMD8<Float>.self)
            c &+= 8
        }
        while c < channels {
            var acc = bias[c]
            for ty in ky {
                for tx in kx {
                    acc += pixelBase[ty &* rowStep &+ tx &* columnStep &+ c] * w[ty &* tapRowStep &+ tx &* channels &+ c]
                }
            }
            out[c] = activation(acc)
            c &+= 1
        }
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
