import VisionTasksModelFormat

/// SPLIT and SPLIT_V: the input cut along one axis into consecutive pieces, equal ones (SPLIT: `num_splits` of
/// them) or of the sizes a constant lists (SPLIT_V: one of them may be −1, the rest of the axis). A pure move, so
/// one kernel serves every element type: quantized tensors are copied byte for byte, as TFLite's reference kernel
/// does (the converter gives every output the input's quantization). YOLOv5/v8's C2f and CSP blocks split their
/// channels in two this way (PyTorch's `chunk`), and their heads split boxes from class scores.
struct SplitKernel: Kernel {
    let input: Int
    let outputs: [Int]
    /// Product of the dimensions before the axis.
    let outer: Int
    /// Bytes of one step along the axis (product of the dimensions after it × element size).
    let innerBytes: Int
    /// The axis' length in the input.
    let axisLength: Int
    /// Each output's first index and length along the axis.
    let pieces: [(start: Int, length: Int)]

    /// `variable`: SPLIT_V (inputs: value, size_splits, axis), else SPLIT (inputs: axis, value).
    init(_ context: OperatorContext, variable: Bool) throws(EngineError) {
        let count: Int32
        switch context.options {
        case let .split(value) where !variable: count = value
        case let .splitV(value) where variable: count = value
        default: throw context.fail("missing \(variable ? "SplitVOptions" : "SplitOptions")")
        }
        input = try context.input(variable ? 0 : 1)
        outputs = context.outputs
        try context.requireSameType(outputs, as: input)
        let shape = context.shape(input)
        let axes = try context.constantIntegers(variable ? 2 : 0)
        guard axes.count == 1, let elementBytes = context.type(input).byteSize else {
            throw context.fail("axis \(axes) of a \(context.type(input).name) input")
        }
        let axis = axes[0] < 0 ? axes[0] + shape.count : axes[0]
        guard axis >= 0, axis < shape.count, count >= 1, outputs.count == Int(count) else {
            throw context.fail("\(count) pieces of \(shape) along axis \(axes[0]) into \(outputs.count) outputs")
        }
        let length = shape[axis]
        var sizes: [Int]
        if variable {
            sizes = try context.constantIntegers(1)
            let unknown = sizes.indices.filter { sizes[$0] == -1 }
            guard sizes.count == outputs.count, unknown.count <= 1, sizes.allSatisfy({ $0 >= -1 }) else {
                throw context.fail("size_splits \(sizes) for \(outputs.count) outputs")
            }
            // Each known size is at most the axis length (checked one by one), so their sum cannot overflow.
            guard sizes.allSatisfy({ $0 <= length }) else { throw context.fail("size_splits \(sizes) of an axis of \(length)") }
            let known = sizes.filter { $0 >= 0 }.reduce(0, +)
            if let position = unknown.first { sizes[position] = length - known }
            guard sizes.allSatisfy({ $0 >= 0 }), sizes.reduce(0, +) == length else {
                throw context.fail("size_splits \(sizes) do not add up to the axis' \(length)")
            }
        } else {
            guard length % Int(count) == 0 else { throw context.fail("an axis of \(length) in \(count) equal pieces") }
            sizes = Array(repeating: length / Int(count), count: Int(count))
        }
        var start = 0
        var pieces: [(start: Int, length: Int)] = []
        for (k, size) in sizes.enumerated() {
            var expected = shape
            expected[axis] = size
            try context.expect(expected, forOutput: k)
            pieces.append((start, size))
            start += size
        }
        self.pieces = pieces
        axisLength = length
        // Sub-products of the input's shape, whose whole product the plan has already bounded.
        outer = shape[..<axis].reduce(1, *)
        innerBytes = shape[(axis + 1)...].reduce(1, *) * elementBytes
    }

    func run(_ memory: TensorMemory) {
        let source = UnsafeRawPointer(memory.raw(input))
        for (k, output) in outputs.enumerated() {
            let destination = memory.raw(output)
            let (start, length) = pieces[k]
            let bytes = length &* innerBytes
            guard bytes > 0 else { continue }
            for o in 0..<outer {
                (destination + o &* bytes).copyMemory(from: source + (o &* axisLength &+ start) &* innerBytes, byteCount: bytes)
            }
        }
    }
}
