import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

// The AVX2 tier's depthwise channel loops (``KernelConfig/DepthwiseKernel/eightChannels``): SIMD8<Float>, one AVX2
// register, eight channels per vector. ``DepthwiseConv2DKernel`` chooses these or the sixteen-channel loops
// (DepthwiseConv2DSixteenChannels.swift) once, when it is built; the sixteen-channel loops hand their last 8–15
// channels and maps of fewer than 16 channels to these.
extension DepthwiseConv2DKernel {
    /// Output columns `columns` of one row whose windows lie inside the input; the window of column `ox` starts at
    /// `origin + ox × stride × channels`, its rows `rowStep` floats apart. One loop per filter size and stride, so
    /// that each is straight-line code with constant offsets.
    @inline(__always)
    func interior(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                  _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ span: ChannelSpan) {
        let clamp = ActivationClamp(activation)
        if x.dilation > 1 {
            // Only from the padded copy, 3 × 3 and 8 channels or more (see init): Swift in every tier.
            interior3Dilated(columns, origin, rowStep, out, w, bias, clamp, span)
            if activation == .tanh {
                for ox in columns { activation.apply(out + ox &* inputChannels, count: span.count) }
            }
            return
        }
        if let dispatchedLoops, span.count >= 8, !columns.isEmpty {
            // The same loops in C for the CPU's tier, chosen as the switch below chooses (3 × 3 at stride 1 or 2
            // through the nine-taps-in-registers loop, the rest through the four-pixel steps).
            var row = vision_tasks_f32_dwconv_row(
                origin: origin, weights: w, bias: bias, out: out, first_column: columns.lowerBound, end_column: columns.upperBound,
                taps: x.filter, stride: x.stride, row_step: rowStep, pixel_stride: span.pixelStride, channels: inputChannels,
                count: span.count, lower: clamp.lower[0], upper: clamp.upper[0])
            let loops = dispatchedLoops.table.pointee
            if x.filter == 3, x.stride <= 2 { loops.square_3x3!(&row) } else { loops.square!(&row) }
            if activation == .tanh {
                for ox in columns { activation.apply(out + ox &* inputChannels, count: span.count) }
            }
            return
        }
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
    func interior3Stride1(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior3(columns, stride: 1, origin, rowStep, out, w, bias, clamp, span)
    }

    @inline(never)
    func interior3Stride2(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior3(columns, stride: 2, origin, rowStep, out, w, bias, clamp, span)
    }

    /// Stride 1, the taps `dilation` pixels and rows apart.
    @inline(never)
    func interior3Dilated(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior3(columns, stride: 1, dilation: x.dilation, origin, rowStep, out, w, bias, clamp, span)
    }

    /// 3 × 3 windows, one channel vector at a time along the row: the vector's nine taps stay in registers, so each
    /// output vector costs nine input loads and nine multiply-adds — where the four-pixel loop, with every tap
    /// offset a separate pointer, spilled them and reloaded taps. Two accumulators per pixel (first row, other
    /// rows) halve the dependency chain; successive pixels are independent. The input rows one output row reads
    /// (3 × width × 8 floats per vector) stay in L1 from one channel vector to the next.
    @inline(__always)
    func interior3(_ columns: Range<Int>, stride: Int, dilation: Int = 1, _ origin: UnsafePointer<Float>, _ windowRowStep: Int,
                   _ out: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                   _ clamp: ActivationClamp, _ span: ChannelSpan) {
        let channels = inputChannels
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        let pixelStep = stride &* span.pixelStride
        // Between a window's taps: a pixel and a row, or `dilation` of each.
        let pixel = dilation &* span.pixelStride, rowStep = dilation &* windowRowStep
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
    func interior5Stride1(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                          _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ span: ChannelSpan) {
        interior(columns, taps: 5, stride: 1, origin, rowStep, out, w, bias, clamp, span)
    }

    @inline(never)
    func interior5Stride2(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
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
    func interior(_ columns: Range<Int>, taps: Int, stride: Int, _ origin: UnsafePointer<Float>, _ rowStep: Int,
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
    func scalarTail(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ taps: Int, _ rowStep: Int,
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

    /// One output pixel of a row, any filter, taps outside the input skipped: channels from `first` (0, or where the
    /// sixteen-channel loop stopped) to the last.
    @inline(__always)
    func borderPixel(_ ox: Int, _ ky: Range<Int>, _ rowBase: UnsafeMutablePointer<Float>, _ rowOut: UnsafeMutablePointer<Float>,
                     _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, from first: Int = 0) {
        let channels = inputChannels
        let rowStep = y.dilation &* x.input &* channels, columnStep = x.dilation &* channels, tapRowStep = x.filter &* channels
        let kx = x.validTaps(ox)
        let pixelBase = rowBase + (ox &* x.stride &- x.padBefore) &* channels
        let out = rowOut + ox &* channels
        var c = first
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
}
