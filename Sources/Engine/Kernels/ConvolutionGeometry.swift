import VisionTasksModelFormat

/// Output size and leading padding of a windowed operator (convolution, depthwise, pooling) along one axis,
/// as TFLite computes them (`ComputePaddingHeightWidth`): SAME pads so that out = ceil(in / stride), putting
/// the odd pixel of padding after; VALID does not pad.
struct WindowAxis: Sendable {
    let input: Int
    let output: Int
    let filter: Int
    let stride: Int
    let dilation: Int
    /// Padding before the first input element.
    let padBefore: Int

    init(input: Int, filter: Int, stride: Int, dilation: Int, padding: Padding) {
        let effective = (filter - 1) * dilation + 1
        let output = padding == .same ? (input + stride - 1) / stride : (input - effective + stride) / stride
        self.input = input
        self.output = output
        self.filter = filter
        self.stride = stride
        self.dilation = dilation
        padBefore = max((output - 1) * stride + effective - input, 0) / 2
    }

    /// The input coordinate under filter tap `k` for output coordinate `o` (may be outside the input).
    @inline(__always) func source(_ o: Int, _ k: Int) -> Int { o * stride - padBefore + k * dilation }

    /// The same window over an input that lost `before` leading and `after` trailing zero rows (a fused PAD):
    /// the output is unchanged, taps in the removed rows fall outside and count as zeros.
    func unpadded(before: Int, after: Int) -> WindowAxis {
        WindowAxis(input: input - before - after, output: output, filter: filter, stride: stride, dilation: dilation,
                   padBefore: padBefore + before)
    }

    private init(input: Int, output: Int, filter: Int, stride: Int, dilation: Int, padBefore: Int) {
        self.input = input
        self.output = output
        self.filter = filter
        self.stride = stride
        self.dilation = dilation
        self.padBefore = padBefore
    }

    /// The output coordinates whose whole window lies inside the input (no tap needs a bounds check).
    var interior: Range<Int> {
        guard stride > 0 else { return 0..<0 }
        // o · stride − padBefore ≥ 0  and  o · stride − padBefore + (filter − 1) · dilation ≤ input − 1.
        let first = (padBefore + stride - 1) / stride
        let lastStart = input - 1 - (filter - 1) * dilation + padBefore
        guard lastStart >= 0 else { return 0..<0 }
        let end = min(output, lastStart / stride + 1)
        return first < end ? first..<end : 0..<0
    }

    /// The filter taps that fall inside the input for some output coordinate, when they are one run (the others only
    /// ever read padding: a dilated filter wider than its map — DeepLab v3's ASPP at rate 18 over 17 × 17 reads its
    /// centre tap alone); nil when every tap does, or when no tap does.
    var liveTaps: Range<Int>? {
        var live = [Bool](repeating: false, count: filter)
        for o in 0..<output {
            for k in validTaps(o) { live[k] = true }
        }
        guard let first = live.firstIndex(of: true), let last = live.lastIndex(of: true),
              live[first...last].allSatisfy({ $0 }), last - first + 1 < filter else { return nil }
        return first..<(last + 1)
    }

    /// The same window with only the taps `taps` (``liveTaps``): the same output, each kept tap reading where it read.
    /// Nil where the window would then start past its first input element (a negative padding).
    func keeping(taps: Range<Int>) -> WindowAxis? {
        let padBefore = self.padBefore - taps.lowerBound * dilation
        guard padBefore >= 0 else { return nil }
        return WindowAxis(input: input, output: output, filter: taps.count, stride: stride, dilation: dilation, padBefore: padBefore)
    }

    /// The filter taps that fall inside the input for output coordinate `o`.
    @inline(__always) func validTaps(_ o: Int) -> Range<Int> {
        let first = padBefore - o * stride
        if dilation == 1 {
            // No division on the common path: it costs more than the taps themselves for narrow layers.
            let start = max(0, first), end = min(filter, input + first)
            return start..<max(start, end)
        }
        let start = max(0, (first + dilation - 1) / dilation)
        let end = min(filter, (input + first + dilation - 1) / dilation)
        return start..<max(start, end)
    }
}

/// A float filter ([out, kh, kw, in]) without the taps that read padding for every output (``WindowAxis/liveTaps``),
/// and its windows: each dropped product was 0 · w, which adds nothing to a sum where every dropped weight is finite
/// (0 · ∞ would have made it NaN; such a filter is kept whole) — through our tiles, which sum each output in depth
/// order, the same bits — and the work shrinks with the filter: DeepLab v3's ASPP at rate 18 over 17 × 17 × 320, a
/// 3 × 3 filter of 2.9 MB that went through OpenBLAS (6.7–7.0 ms at one thread, XNNPACK 4.7), becomes a 1 × 1 one
/// through our tiles (its rounding then ours instead of OpenBLAS's, within LiteRT's spread). Nil when nothing is
/// dropped.
func droppingDeadTaps(_ weights: [Float], outputChannels: Int, inputChannels: Int, y: WindowAxis, x: WindowAxis)
    -> (weights: [Float], y: WindowAxis, x: WindowAxis)? {
    let liveRows = y.liveTaps, liveColumns = x.liveTaps
    guard liveRows != nil || liveColumns != nil else { return nil }
    let rows = liveRows ?? 0..<y.filter, columns = liveColumns ?? 0..<x.filter
    guard let keptY = y.keeping(taps: rows), let keptX = x.keeping(taps: columns) else { return nil }
    var trimmed: [Float] = []
    trimmed.reserveCapacity(outputChannels * rows.count * columns.count * inputChannels)
    for o in 0..<outputChannels {
        for ky in 0..<y.filter {
            for kx in 0..<x.filter {
                let tap = weights[((o * y.filter + ky) * x.filter + kx) * inputChannels..<((o * y.filter + ky) * x.filter + kx + 1) * inputChannels]
                if rows.contains(ky) && columns.contains(kx) {
                    trimmed += tap
                } else if !tap.allSatisfy(\.isFinite) {
                    return nil
                }
            }
        }
    }
    return (trimmed, keptY, keptX)
}

/// Splits a shape into the 4 NHWC dimensions, padding missing leading ones with 1.
func nhwc(_ shape: [Int]) -> (n: Int, h: Int, w: Int, c: Int)? {
    guard shape.count <= 4 else { return nil }
    let padded = Array(repeating: 1, count: 4 - shape.count) + shape
    return (padded[0], padded[1], padded[2], padded[3])
}

extension OperatorContext {
    /// Input 0's height and width as the operator sees them: with a fused PAD's rows and columns added back.
    func paddedSpatialSize(_ i: (n: Int, h: Int, w: Int, c: Int)) -> (h: Int, w: Int) {
        guard let p = inputPadding else { return (i.h, i.w) }
        return (i.h + p.top + p.bottom, i.w + p.left + p.right)
    }

    /// Removes a fused PAD's rows and columns from a window computed over the padded size.
    func unpadding(_ y: WindowAxis, _ x: WindowAxis) -> (WindowAxis, WindowAxis) {
        guard let p = inputPadding else { return (y, x) }
        return (y.unpadded(before: p.top, after: p.bottom), x.unpadded(before: p.left, after: p.right))
    }

    /// Validates stride/dilation/filter values read from the model before they size any loop.
    func windowAxis(input: Int, filter: Int, stride: Int32, dilation: Int32, padding: Padding) throws(EngineError) -> WindowAxis {
        guard stride >= 1, dilation >= 1, filter >= 1 else {
            throw fail("stride \(stride), dilation \(dilation), filter \(filter)")
        }
        let axis = WindowAxis(input: input, filter: filter, stride: Int(stride), dilation: Int(dilation), padding: padding)
        guard axis.output >= 1 else { throw fail("window larger than its input (\(input))") }
        return axis
    }
}
