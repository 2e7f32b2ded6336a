import VisionTasksModelFormat

/// TRANSPOSE by a constant permutation: output dimension d is input dimension perm[d].
struct TransposeKernel: Kernel {
    let input: Int
    let output: Int
    let outputShape: [Int]
    /// Per output dimension, the input element stride it walks.
    let sourceStrides: [Int]
    let elementBytes: Int

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        let shape = context.shape(input)
        let permutation = try context.constantIntegers(1)
        guard permutation.count == shape.count, Set(permutation) == Set(0..<shape.count),
              let elementBytes = context.type(input).byteSize else {
            throw context.fail("permutation \(permutation) for rank \(shape.count)")
        }
        var strides = Array(repeating: 1, count: shape.count)
        for d in stride(from: shape.count - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * shape[d + 1] }
        outputShape = permutation.map { shape[$0] }
        sourceStrides = permutation.map { strides[$0] }
        self.elementBytes = elementBytes
        try context.expect(outputShape, forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let rank = outputShape.count
        let total = outputShape.reduce(1, *)
        guard total > 0 else { return }
        let source = memory.raw(input), destination = memory.raw(output)
        // The index counter lives on the stack: invokes allocate nothing.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(rank, 1)) { index in
        index.initialize(repeating: 0)
        var offset = 0
        for o in 0..<total {
            (destination + o * elementBytes).copyMemory(from: source + offset * elementBytes, byteCount: elementBytes)
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                offset += sourceStrides[d]
                if index[d] < outputShape[d] { break }
                offset -= sourceStrides[d] * outputShape[d]
                index[d] = 0
                d -= 1
            }
        }
        }
    }
}
