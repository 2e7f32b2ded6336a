import VisionTasksEngineSIMD

// DEPTHWISE_CONV_2D with a 1 × 1 filter and multiplier 1: a scale and a bias per channel. MediaPipe's hand re-crop
// model (the holistic graph's `hand_roi_refinement`, run twice a frame) has five, over maps of 128 × 128 × 8 down to
// 32 × 32 × 32. The border-pixel loop that used to take them (a 1 × 1 filter has no unrolled interior) paid its window
// bookkeeping per pixel for a single tap: 2.1–3.4 × LiteRT's time on each. Here every pixel whose tap lies inside the
// input takes the operations that loop gives one tap — the bias, one `accumulate`, plus the loop's second, empty
// accumulator (x + 0 is not always x: −0 becomes +0); past the last vector, one scalar multiply-add — so the bits
// are the border loop's in every build and tier (the sixteen-channel tier's loop does the same lane for lane).
extension DepthwiseConv2DKernel {
    /// Whether the filter is one tap per channel.
    var hasSingleTap: Bool { y.filter == 1 && x.filter == 1 && multiplier == 1 }

    /// Output columns `columns` of one row, each of whose taps lies inside the input row at `rowBase`.
    @inline(__always)
    func singleTap(_ columns: Range<Int>, _ rowBase: UnsafePointer<Float>, _ rowOut: UnsafeMutablePointer<Float>,
                   _ w: UnsafePointer<Float>, _ bias: UnsafePointer<Float>) {
        let channels = inputChannels, vectors = channels & ~7, step = x.stride &* channels
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        var input = rowBase + (columns.lowerBound &* x.stride &- x.padBefore) &* channels
        var out = rowOut + columns.lowerBound &* channels
        for _ in columns {
            var c = 0
            while c < vectors {
                var acc = load(bias + c)
                acc.accumulate(load(input + c), load(w + c))
                UnsafeMutableRawPointer(out + c).storeBytes(of: activation(acc + SIMD8<Float>()), as: SIMD8<Float>.self)
                c &+= 8
            }
            while c < channels {
                var acc = bias[c]
                acc += input[c] * w[c]
                out[c] = activation(acc)
                c &+= 1
            }
            input += step
            out += channels
        }
    }
}
