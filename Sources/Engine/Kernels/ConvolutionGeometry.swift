import Format

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

/// Splits a shape into the 4 NHWC dimensions, padding missing leading ones with 1.
func nhwc(_ shape: [Int]) -> (n: Int, h: Int, w: Int, c: Int)? {
    guard shape.count <= 4 else { return nil }
    let padded = Array(repeating: 1, count: 4 - shape.count) + shape
    return (padded[0], padded[1], padded[2], padded[3])
}

extension OperatorContext {
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
