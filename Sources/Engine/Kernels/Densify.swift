import VisionTasksModelFormat

/// DENSIFY: expands a constant sparse tensor (TFLite's TACO-style encoding) to its dense shape.
///
/// The walk follows TFLite's `FormatConverter::SparseToDense`: levels in traversal order, dense levels iterate
/// their size, compressed levels iterate the segment of indices their parent selects; block levels multiply into
/// the dimension their block map names. The destination of every stored value is computed and checked at
/// prepare time, so a hostile encoding is an error at load and the run is a plain scatter.
struct DensifyKernel: Kernel {
    let input: Int
    let output: Int
    let elementBytes: Int
    let outputBytes: Int
    /// For stored value i, its element offset in the dense output.
    let destinations: [Int]

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        guard let sparsity = context.graph.sparsity[input] else { throw context.fail("input has no sparsity parameters") }
        guard context.type(input) == context.type(output), let elementBytes = context.type(input).byteSize else {
            throw context.fail("input and output types differ")
        }
        self.elementBytes = elementBytes
        let denseShape = context.shape(output)
        outputBytes = context.graph.byteCount(output)
        let storedCount = (context.constants.entries[input]?.byteCount ?? 0) / elementBytes
        destinations = try Self.walk(sparsity, denseShape: denseShape, storedCount: storedCount, context: context)
    }

    private static func walk(
        _ sparsity: SparsityParameters, denseShape: [Int], storedCount: Int, context: OperatorContext
    ) throws(EngineError) -> [Int] {
        let rank = denseShape.count
        let order = sparsity.traversalOrder.map(Int.init)
        let blockMap = sparsity.blockMap.map(Int.init)
        let levels = order.count
        guard levels == sparsity.dimensions.count, levels >= rank, levels - rank == blockMap.count, levels <= 12,
              Set(order) == Set(0..<levels), blockMap.allSatisfy({ $0 >= 0 && $0 < rank }) else {
            throw context.fail("inconsistent sparsity parameters")
        }
        // Block sizes are the dense sizes of the block levels.
        var blockSizes = Array(repeating: 1, count: blockMap.count)
        for level in rank..<levels {
            guard case let .dense(size) = sparsity.dimensions[level], size > 0 else {
                throw context.fail("sparse block dimension")
            }
            blockSizes[order[level] - rank] = Int(size)
        }
        let strides = try context.arithmetic.strides(denseShape, "dense output")
        let denseCount = try context.arithmetic.product(denseShape, "dense output")
        var destinations: [Int] = []
        destinations.reserveCapacity(min(storedCount, denseCount))
        var indices = Array(repeating: 0, count: levels)
        var failure: EngineError?
        // A dense walk visits each dense position once per level at most; more means a hostile encoding.
        var steps = 0
        let maximumSteps = 4 * (denseCount + 1) * levels

        func place() {
            var original = Array(repeating: 0, count: rank)
            for level in 0..<rank { original[order[level]] = indices[level] }
            for level in rank..<levels {
                let block = order[level] - rank
                original[blockMap[block]] = original[blockMap[block]] * blockSizes[block] + indices[level]
            }
            var offset = 0
            for d in 0..<rank {
                guard original[d] >= 0, original[d] < denseShape[d] else {
                    failure = context.fail("sparse index \(original) outside \(denseShape)")
                    return
                }
                offset += original[d] * strides[d]
            }
            destinations.append(offset)
        }

        func visit(level: Int, parent: Int) {
            guard failure == nil else { return }
            steps += 1
            guard steps <= maximumSteps else { failure = context.fail("sparse encoding walks too far"); return }
            if level == levels {
                guard destinations.count < storedCount else {
                    failure = context.fail("more positions than the \(storedCount) stored values")
                    return
                }
                place()
                return
            }
            switch sparsity.dimensions[level] {
            case let .dense(size):
                guard size >= 0 else { failure = context.fail("negative dense size"); return }
                for i in 0..<Int(size) {
                    indices[level] = i
                    visit(level: level + 1, parent: parent * Int(size) + i)
                    if failure != nil { return }
                }
            case let .compressed(segments, positions):
                guard parent + 1 < segments.count else { failure = context.fail("segment \(parent) missing"); return }
                let from = Int(segments[parent]), to = Int(segments[parent + 1])
                guard from >= 0, from <= to, to <= positions.count else {
                    failure = context.fail("segment \(from)..<\(to) outside \(positions.count) indices")
                    return
                }
                for i in from..<to {
                    indices[level] = Int(positions[i])
                    visit(level: level + 1, parent: i)
                    if failure != nil { return }
                }
            }
        }
        visit(level: 0, parent: 0)
        if let failure { throw failure }
        guard destinations.count == storedCount else {
            throw context.fail("encoding places \(destinations.count) of \(storedCount) stored values")
        }
        return destinations
    }

    func run(_ memory: TensorMemory) {
        let source = memory.raw(input), destination = memory.raw(output)
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: outputBytes)
        for (i, offset) in destinations.enumerated() {
            (destination + offset * elementBytes).copyMemory(from: source + i * elementBytes, byteCount: elementBytes)
        }
    }
}
