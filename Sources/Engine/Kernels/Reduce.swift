import Format

/// MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD over constant axes (negative axes count from the end,
/// repeats ignored); `keep_dims` changes only the output shape.
struct ReduceKernel: Kernel {
    enum Operation: Sendable { case mean, sum, maximum, minimum, product }

    let input: Int
    let output: Int
    let inputShape: [Int]
    /// Per input dimension, the output stride (0 for reduced dimensions).
    let outputStrides: [Int]
    let outputCount: Int
    let reducedCount: Int
    let operation: Operation

    init(_ context: OperatorContext, operation: Operation) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        inputShape = context.shape(input)
        let rank = inputShape.count
        var reduced = Set<Int>()
        for axis in try context.constantIntegers(1) {
            let normalized = axis < 0 ? axis + rank : axis
            guard normalized >= 0, normalized < max(rank, 1) else { throw context.fail("axis \(axis) for rank \(rank)") }
            reduced.insert(normalized)
        }
        var strides = Array(repeating: 0, count: rank)
        var running = 1
        for d in stride(from: rank - 1, through: 0, by: -1) where !reduced.contains(d) {
            strides[d] = running
            running *= inputShape[d]
        }
        outputStrides = strides
        outputCount = running
        let shape = inputShape
        reducedCount = reduced.reduce(1) { $0 * shape[$1] }
        self.operation = operation
        guard context.graph.elementCount(output) == outputCount else {
            throw context.fail("output has \(context.graph.elementCount(output)) values, the reduction gives \(outputCount)")
        }
    }

    func run(_ memory: TensorMemory) {
        let x = memory.floats(input), y = memory.floats(output)
        let initial: Float
        switch operation {
        case .mean, .sum: initial = 0
        case .maximum: initial = -.infinity
        case .minimum: initial = .infinity
        case .product: initial = 1
        }
        y.update(repeating: initial, count: outputCount)
        let rank = inputShape.count
        let total = inputShape.reduce(1, *)
        guard total > 0 else { return }
        // The index counter lives on the stack: invokes allocate nothing.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(rank, 1)) { index in
        index.initialize(repeating: 0)
        var target = 0
        for i in 0..<total {
            switch operation {
            case .mean, .sum: y[target] += x[i]
            case .maximum: y[target] = max(y[target], x[i])
            case .minimum: y[target] = min(y[target], x[i])
            case .product: y[target] *= x[i]
            }
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                target += outputStrides[d]
                if index[d] < inputShape[d] { break }
                target -= outputStrides[d] * inputShape[d]
                index[d] = 0
                d -= 1
            }
        }
        }
        if operation == .mean {
            let scale = 1 / Float(max(reducedCount, 1))
            for i in 0..<outputCount { y[i] *= scale }
        }
    }
}
