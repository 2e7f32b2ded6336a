import VisionTasksEngineSIMD

// The AVX-512 tiers' depthwise channel loops (``KernelConfig/DepthwiseKernel/sixteenChannels``): SIMD16<Float>, one
// zmm register, sixteen channels per vector — XNNPACK's AVX-512 f32 depthwise kernels take 16 channels a step too.
// With 32 registers a 3 × 3 filter's nine tap vectors, the bias and two accumulators stay in registers as the eight-
// channel loop's do in AVX2's 16; the 5 × 5 loop's four pixels × two vectors are eight zmm accumulators.
//
// Every output is computed exactly as in the eight-channel loops (DepthwiseConv2DEightChannels.swift), lane for lane:
// the same taps in the same order, the same fused multiply-adds into the same accumulators, the same sum of the two
// accumulators and the same clamp. The results are therefore bit-identical whichever loop runs (the tests check it).
// What a sixteen-channel vector does not cover goes to the eight-channel loops, which keeps that identity for the
// channels they would have computed in scalar code: a map of fewer than 16 channels whole, and the last 8–15
// channels of a wider one; the last 1–7 of a wider one are the sixteen ending there, computed again (same bits).
// On a CPU without AVX-512 a SIMD16 is two AVX2 registers and these loops spill, which is why only the AVX-512 tiers
// choose them; they still run anywhere, and are tested on every host.
extension DepthwiseConv2DKernel {
    /// ``interior(_:_:_:_:_:_:_:)`` with the sixteen-channel loops: the channels they take (none below 16; up to the
    /// last multiple of 16 when 8–15 follow it, which then go to the eight-channel loops; all of them otherwise,
    /// the last vector overlapping the one before), then the rest.
    @inline(__always)
    func wideInterior(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                      _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ span: ChannelSpan) {
        let whole = span.count & ~15
        let wide = whole == 0 ? 0 : span.count &- whole >= 8 ? whole : span.count
        if wide > 0 {
            let clamp = ActivationClamp(activation), pixel = span.pixelStride
            switch (x.filter, x.stride) {
            case (3, 1): wideInterior3Stride1(columns, origin, rowStep, out, w, bias, clamp, pixel, wide)
            case (3, 2): wideInterior3Stride2(columns, origin, rowStep, out, w, bias, clamp, pixel, wide)
            case (3, _): wideInterior(columns, taps: 3, stride: x.stride, origin, rowStep, out, w, bias, clamp, pixel, wide)
            case (_, 1): wideInterior5Stride1(columns, origin, rowStep, out, w, bias, clamp, pixel, wide)
            case (_, 2): wideInterior5Stride2(columns, origin, rowStep, out, w, bias, clamp, pixel, wide)
            case (_, _): wideInterior(columns, taps: 5, stride: x.stride, origin, rowStep, out, w, bias, clamp, pixel, wide)
            }
            if activation == .tanh {
                for ox in columns { activation.apply(out + ox &* inputChannels, count: wide) }
            }
        }
        if wide < span.count {
            // The eight-channel loops apply tanh to their own channels.
            interior(columns, origin + wide, rowStep, out + wide, w + wide, bias + wide,
                     ChannelSpan(pixelStride: span.pixelStride, count: span.count &- wide))
        }
    }

    // One function per filter size and stride, as in the eight-channel loops (and for the same reason: inlined into
    // one body, the register allocator shuffled pointers between multiply-adds).
    @inline(never)
    private func wideInterior3Stride1(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                      _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ pixel: Int, _ count: Int) {
        wideInterior3(columns, stride: 1, origin, rowStep, out, w, bias, clamp, pixel, count)
    }

    @inline(never)
    private func wideInterior3Stride2(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                      _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ pixel: Int, _ count: Int) {
        wideInterior3(columns, stride: 2, origin, rowStep, out, w, bias, clamp, pixel, count)
    }

    /// 3 × 3 windows, one sixteen-channel vector at a time along the row, its nine taps in registers (see
    /// ``interior3(_:stride:_:_:_:_:_:_:_:)``, whose arithmetic this repeats lane for lane): channels 0..<`count`,
    /// `count` ≥ 16, input pixels `pixel` floats apart.
    @inline(__always)
    private func wideInterior3(_ columns: Range<Int>, stride: Int, _ origin: UnsafePointer<Float>, _ rowStep: Int,
                               _ out: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                               _ clamp: ActivationClamp, _ pixel: Int, _ count: Int) {
        let channels = inputChannels
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }
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
                UnsafeMutableRawPointer(o).storeBytes(of: clamp(a0 + a1), as: SIMD16<Float>.self)
                p += pixelStep
                o += channels
            }
        }
        var c = 0
        while c &+ 16 <= count {
            vector(c)
            c &+= 16
        }
        // The last 1–7 channels: the sixteen ending there, again (same arithmetic, same bits, before any epilogue).
        if c < count { vector(count &- 16) }
    }

    @inline(never)
    private func wideInterior5Stride1(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                      _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ pixel: Int, _ count: Int) {
        wideInterior(columns, taps: 5, stride: 1, origin, rowStep, out, w, bias, clamp, pixel, count)
    }

    @inline(never)
    private func wideInterior5Stride2(_ columns: Range<Int>, _ origin: UnsafePointer<Float>, _ rowStep: Int, _ out: UnsafeMutablePointer<Float>,
                                      _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, _ clamp: ActivationClamp, _ pixel: Int, _ count: Int) {
        wideInterior(columns, taps: 5, stride: 2, origin, rowStep, out, w, bias, clamp, pixel, count)
    }

    /// Output columns `columns` of a row whose `taps` × `taps` windows lie inside the input, channels 0..<`count`
    /// (`count` ≥ 16): thirty-two channels (two vectors) of up to four output pixels a step, eight independent chains
    /// of fused multiply-adds, each from the bias through the taps in row order, as
    /// ``interior(_:taps:stride:_:_:_:_:_:_:_:)`` does eight channels at a time.
    @inline(__always)
    private func wideInterior(_ columns: Range<Int>, taps: Int, stride: Int, _ origin: UnsafePointer<Float>, _ rowStep: Int,
                              _ out: UnsafeMutablePointer<Float>, _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                              _ clamp: ActivationClamp, _ pixel: Int, _ count: Int) {
        let channels = inputChannels
        let tapRowStep = taps &* channels
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }
        // `pixels` (1–4) output pixels from column `ox`, channels c..<c + 16 × vectors; both are constants where
        // called, so the unused accumulators fold away.
        @inline(__always) func step(_ ox: Int, _ c: Int, pixels: Int, vectors: Int) {
            let input = origin + (ox &* stride &* pixel &+ c), output = out + (ox &* channels &+ c)
            let b = load(bias + c), d = vectors > 1 ? load(bias + (c &+ 16)) : SIMD16<Float>()
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
                        let u = load(tapRow + (tx &* channels &+ 16))
                        e0.accumulate(load(i0 + 16), u)
                        if pixels > 1 { e1.accumulate(load(i1 + 16), u) }
                        if pixels > 2 { e2.accumulate(load(i2 + 16), u) }
                        if pixels > 3 { e3.accumulate(load(i3 + 16), u) }
                    }
                }
            }
            // Stored without a local helper: in a znver4 build the optimizer kept a `store` closure out of line
            // here, and the accumulators went through the stack to reach it.
            let o = UnsafeMutableRawPointer(output), pixelBytes = channels &* 4
            o.storeBytes(of: clamp(a0), as: SIMD16<Float>.self)
            if pixels > 1 { o.storeBytes(of: clamp(a1), toByteOffset: pixelBytes, as: SIMD16<Float>.self) }
            if pixels > 2 { o.storeBytes(of: clamp(a2), toByteOffset: 2 &* pixelBytes, as: SIMD16<Float>.self) }
            if pixels > 3 { o.storeBytes(of: clamp(a3), toByteOffset: 3 &* pixelBytes, as: SIMD16<Float>.self) }
            if vectors > 1 {
                o.storeBytes(of: clamp(e0), toByteOffset: 64, as: SIMD16<Float>.self)
                if pixels > 1 { o.storeBytes(of: clamp(e1), toByteOffset: pixelBytes &+ 64, as: SIMD16<Float>.self) }
                if pixels > 2 { o.storeBytes(of: clamp(e2), toByteOffset: 2 &* pixelBytes &+ 64, as: SIMD16<Float>.self) }
                if pixels > 3 { o.storeBytes(of: clamp(e3), toByteOffset: 3 &* pixelBytes &+ 64, as: SIMD16<Float>.self) }
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
        while c &+ 32 <= count {
            row(c, vectors: 2)
            c &+= 32
        }
        if c &+ 16 <= count {
            row(c, vectors: 1)
            c &+= 16
        }
        // The last 1–7 channels as the sixteen ending there (see ``wideInterior3``).
        if c < count { row(count &- 16, vectors: 1) }
    }

    /// ``borderPixel(_:_:_:_:_:_:from:)`` sixteen channels at a time; the channels past the last multiple of 16 go to
    /// it (eight more as one vector, the last 1–7 in scalar code, as it computes them for every map).
    @inline(__always)
    func wideBorderPixel(_ ox: Int, _ ky: Range<Int>, _ rowBase: UnsafeMutablePointer<Float>, _ rowOut: UnsafeMutablePointer<Float>,
                         _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = inputChannels
        let rowStep = y.dilation &* x.input &* channels, columnStep = x.dilation &* channels, tapRowStep = x.filter &* channels
        let kx = x.validTaps(ox)
        let pixelBase = rowBase + (ox &* x.stride &- x.padBefore) &* channels
        let out = rowOut + ox &* channels
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self) }
        var c = 0
        while c &+ 16 <= channels {
            var acc0 = load(bias + c)
            var acc1 = SIMD16<Float>()
            var ty = ky.lowerBound
            while ty < ky.upperBound {
                let inputRow = pixelBase + (ty &* rowStep &+ c)
                let tapRow = w + (ty &* tapRowStep &+ c)
                var tx = kx.lowerBound
                while tx &+ 1 < kx.upperBound {
                    acc0.accumulate(load(inputRow + tx &* columnStep), load(tapRow + tx &* channels))
                    acc1.accumulate(load(inputRow + (tx &+ 1) &* columnStep), load(tapRow + (tx &+ 1) &* channels))
                    tx &+= 2
                }
                if tx < kx.upperBound {
                    acc0.accumulate(load(inputRow + tx &* columnStep), load(tapRow + tx &* channels))
                }
                ty &+= 1
            }
            UnsafeMutableRawPointer(out + c).storeBytes(of: activation(acc0 + acc1), as: SIMD16<Float>.self)
            c &+= 16
        }
        if c < channels { borderPixel(ox, ky, rowBase, rowOut, w, bias, from: c) }
    }
}
