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
        try context.requireSameType([output], as: input)
        let shape = context.shape(input)
        let permutation = try context.constantIntegers(1)
        guard permutation.count == shape.count, Set(permutation) == Set(0..<shape.count),
              let elementBytes = context.type(input).byteSize else {
            throw context.fail("permutation \(permutation) for rank \(shape.count)")
        }
        let strides = try context.arithmetic.strides(shape, "input")
        outputShape = permutation.map { shape[$0] }
        sourceStrides = permutation.map { strides[$0] }
        self.elementBytes = elementBytes
        try context.expect(outputShape, forOutput: 0)
        matrix = Self.matrixView(shape: shape, permutation: permutation)
    }

    /// The transpose as `batches` row-major [rows × columns] matrices each written as [columns × rows], when it is
    /// one once size-1 dimensions are dropped and dimensions that stay neighbours are merged (MLP-Mixer's
    /// [1, 1, 97, 64] → [1, 1, 64, 97]); nil for other permutations.
    let matrix: (batches: Int, rows: Int, columns: Int)?

    private static func matrixView(shape: [Int], permutation: [Int]) -> (batches: Int, rows: Int, columns: Int)? {
        // Input dimensions of size > 1 in output order; one that follows its predecessor in the input too (only
        // size-1 dimensions between them) merges into it.
        var merged: [(first: Int, last: Int, size: Int)] = []
        for d in permutation where shape[d] != 1 {
            let size = shape[d]
            // d continues the previous group when every input dimension between them has size 1.
            if let previous = merged.last, d > previous.last, (previous.last + 1..<d).allSatisfy({ shape[$0] == 1 }) {
                merged[merged.count - 1] = (previous.first, d, previous.size * size)
            } else {
                merged.append((d, d, size))
            }
        }
        switch merged.count {
        case 2 where merged[0].first > merged[1].first:
            return (1, merged[1].size, merged[0].size)
        case 3 where merged[0].first < merged[1].first && merged[1].first > merged[2].first && merged[0].first < merged[2].first:
            return (merged[0].size, merged[2].size, merged[1].size)
        default:
            return nil
        }
    }

    private static func transpose<Element>(_ matrix: (batches: Int, rows: Int, columns: Int), _ source: UnsafeMutableRawPointer,
                                           _ destination: UnsafeMutableRawPointer, as _: Element.Type) {
        let x = source.assumingMemoryBound(to: Element.self), y = destination.assumingMemoryBound(to: Element.self)
        let (rows, columns) = (matrix.rows, matrix.columns)
        for b in 0..<matrix.batches {
            let from = x + b &* rows &* columns, to = y + b &* rows &* columns
            var r0 = 0
            while r0 < rows {
                let r1 = min(rows, r0 &+ 8)
                for c in 0..<columns {
                    for r in r0..<r1 { to[c &* rows &+ r] = from[r &* columns &+ c] }
                }
                r0 = r1
            }
        }
    }

    func run(_ memory: TensorMemory) {
        let rank = outputShape.count
        let total = outputShape.reduce(1, *)
        guard total > 0 else { return }
        let source = memory.raw(input), destination = memory.raw(output)
        if let matrix, [1, 2, 4].contains(elementBytes) {
            // A matrix transpose: the generic walk below copies one element per carried index update and memcpy
            // call (22 µs for 97 × 64 floats; 0.63 ms for YOLOv8's int8 [1, 2100, 84] head); here a plain strided
            // loop per band of 8 source rows, which keeps the 8 source rows' cache lines in use while the
            // destination is written row by row.
            switch elementBytes {
            case 4: Self.transpose(matrix, source, destination, as: UInt32.self)
            case 2: Self.transpose(matrix, source, destination, as: UInt16.self)
            default: Self.transpose(matrix, source, destination, as: UInt8.self)
            }
            return
        }
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
