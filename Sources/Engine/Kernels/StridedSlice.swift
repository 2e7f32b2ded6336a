import VisionTasksModelFormat

/// STRIDED_SLICE with constant begin/end/strides, following TFLite's `strided_slice_logic.h`: masked ends take
/// the whole axis, negative indices count from the end, starts and stops clamp to the axis, and shrunk axes take
/// one element and leave the output shape. Ellipsis and new-axis masks are not supported.
struct StridedSliceKernel: Kernel {
    let input: Int
    let output: Int
    let inputShape: [Int]
    let starts: [Int]
    let strides: [Int]
    let counts: [Int]
    let elementBytes: Int
    /// Element strides of the input.
    let inputStrides: [Int]

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .stridedSlice(options) = context.options else { throw context.fail("missing StridedSliceOptions") }
        guard options.ellipsisMask == 0, options.newAxisMask == 0 else {
            throw context.unsupported("ellipsis or new-axis masks")
        }
        input = try context.input(0)
        output = try context.output(0)
        inputShape = context.shape(input)
        let begin = try context.constantIntegers(1), end = try context.constantIntegers(2)
        let strideValues = context.hasInput(3) ? try context.constantIntegers(3) : Array(repeating: 1, count: begin.count)
        let rank = inputShape.count
        guard begin.count == end.count, begin.count == strideValues.count, begin.count <= rank,
              let elementBytes = context.type(input).byteSize, context.type(output) == context.type(input) else {
            throw context.fail("begin/end/strides of different lengths or types")
        }
        // begin, end and strides are the file's values, anywhere in Int64: every sum below is checked, and a stride
        // is kept within Int32 (TFLite's own type for them), so that its negation and the counts cannot overflow.
        let arithmetic = context.arithmetic
        var starts: [Int] = [], counts: [Int] = [], strides: [Int] = []
        for axis in 0..<rank {
            let size = inputShape[axis]
            guard axis < begin.count else {
                starts.append(0); counts.append(size); strides.append(1)
                continue
            }
            let stride = strideValues[axis]
            guard stride != 0, stride >= Int(Int32.min) + 1, stride <= Int(Int32.max) else {
                throw context.fail("stride \(stride) on axis \(axis)")
            }
            let bit = 1 << axis
            var start = begin[axis]
            if Int(options.beginMask) & bit != 0 {
                start = stride > 0 ? 0 : size - 1
            } else {
                if start < 0 { start = try arithmetic.add(start, size, "begin on axis \(axis)") }
                start = stride > 0 ? min(max(start, 0), size) : min(max(start, -1), size - 1)
            }
            let shrink = Int(options.shrinkAxisMask) & bit != 0
            var stop: Int
            if shrink {
                // The one element taken must exist (TFLite fails the same slice).
                guard start >= 0, start < size else { throw context.fail("shrunk axis \(axis) begins at \(begin[axis]), outside its \(size) elements") }
                stop = start + 1
            } else {
                stop = end[axis]
                if options.offset { stop = try arithmetic.add(stop, begin[axis], "end + begin on axis \(axis)") }
                if Int(options.endMask) & bit != 0 {
                    stop = stride > 0 ? size : -1
                } else {
                    if stop < 0 { stop = try arithmetic.add(stop, size, "end on axis \(axis)") }
                    stop = stride > 0 ? min(max(stop, 0), size) : min(max(stop, -1), size - 1)
                }
            }
            let count = stride > 0 ? max(0, (stop - start + stride - 1) / stride) : max(0, (start - stop - stride - 1) / -stride)
            starts.append(start); counts.append(count); strides.append(stride)
        }
        self.starts = starts
        self.counts = counts
        self.strides = strides
        self.elementBytes = elementBytes
        inputStrides = try arithmetic.strides(inputShape, "input")
        guard context.graph.elementCount(output) == (try arithmetic.product(counts, "slice")) else {
            throw context.fail("output \(context.shape(output)) but the slice has \(counts)")
        }
    }

    func run(_ memory: TensorMemory) {
        let rank = inputShape.count
        let total = counts.reduce(1, *)
        guard total > 0 else { return }
        let source = memory.raw(input), destination = memory.raw(output)
        // A last axis taken with stride 1 is one contiguous run per outer index, copied whole: element by element,
        // slicing YOLOv8's [1, 2100, 144] head into its box and class parts took 0.75 ms, a hundred times LiteRT's.
        let runLength = rank > 0 && strides[rank - 1] == 1 ? counts[rank - 1] : 1
        let counted = runLength > 1 ? rank - 1 : rank
        let runBytes = runLength * elementBytes
        // The index counter lives on the stack: invokes allocate nothing.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(rank, 1)) { index in
        index.initialize(repeating: 0)
        for o in 0..<(total / runLength) {
            var offset = 0
            for d in 0..<rank { offset += (starts[d] + index[d] * strides[d]) * inputStrides[d] }
            (destination + o * runBytes).copyMemory(from: source + offset * elementBytes, byteCount: runBytes)
            var d = counted - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < counts[d] { break }
                index[d] = 0
                d -= 1
            }
        }
        }
    }
}
