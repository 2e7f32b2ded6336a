import VisionTasksModelFormat

/// CONCATENATION along one axis (negative axes count from the end).
struct ConcatenationKernel: Kernel {
    let inputs: [Int]
    let output: Int
    /// Per input, the contiguous chunk it contributes per outer index (its axis size × inner size).
    let chunks: [Int]
    let outer: Int
    let elementBytes: Int
    let activation: Activation

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .concatenation(axisValue, fused) = context.options else { throw context.fail("missing ConcatenationOptions") }
        output = try context.output(0)
        inputs = context.inputs
        guard !inputs.isEmpty, inputs.allSatisfy({ $0 >= 0 }) else { throw context.fail("missing inputs") }
        let outputShape = context.shape(output)
        let rank = outputShape.count
        let axis = Int(axisValue) < 0 ? Int(axisValue) + rank : Int(axisValue)
        guard axis >= 0, axis < rank else { throw context.fail("axis \(axisValue) for rank \(rank)") }
        for tensor in inputs where context.type(tensor) != context.type(output) { throw context.fail("mixed types") }
        let inner = outputShape[(axis + 1)...].reduce(1, *)
        var total = 0
        var chunks: [Int] = []
        for tensor in inputs {
            let shape = context.shape(tensor)
            guard shape.count == rank, (0..<rank).allSatisfy({ $0 == axis || shape[$0] == outputShape[$0] }) else {
                throw context.fail("input \(shape) does not fit output \(outputShape) on axis \(axis)")
            }
            total += shape[axis]
            chunks.append(shape[axis] * inner)
        }
        guard total == outputShape[axis] else { throw context.fail("axis sizes add to \(total), not \(outputShape[axis])") }
        self.chunks = chunks
        outer = outputShape[..<axis].reduce(1, *)
        elementBytes = context.type(output).byteSize ?? 4
        activation = try Activation(fused, operatorIndex: context.index, name: context.name)
        if activation != .none { try context.requireFloat([output]) }
    }

    func run(_ memory: TensorMemory) {
        let destination = memory.raw(output)
        let rowBytes = chunks.reduce(0, +) * elementBytes
        var column = 0
        for (tensor, chunk) in zip(inputs, chunks) {
            let source = memory.raw(tensor)
            for o in 0..<outer {
                (destination + o * rowBytes + column).copyMemory(from: source + o * chunk * elementBytes, byteCount: chunk * elementBytes)
            }
            column += chunk * elementBytes
        }
        if activation != .none { activation.apply(memory.floats(output), count: outer * rowBytes / 4) }
    }
}

extension Activation: Equatable {}
