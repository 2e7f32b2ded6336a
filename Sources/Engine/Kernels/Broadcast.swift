/// Index arithmetic for NumPy-style broadcasting of two inputs to one output, up to rank 6.
///
/// Shapes are right-aligned; a dimension of 1 in an input repeats along the output. Adjacent dimensions that
/// broadcast the same way are merged so the inner loop runs as long and as contiguous as possible.
struct BroadcastPlan: Sendable {
    /// Merged output dimensions, outermost first.
    let dimensions: [Int]
    /// Per merged dimension, the element stride of each input (0 where it broadcasts).
    let strides: [(Int, Int)]
    /// Which input repeats one short contiguous run along an output the other input spans contiguously, the run's
    /// length and the tile ``forEachRun(a:b:_:)`` reads it from: an image [1, H, W, 3] less its per-channel mean [3]
    /// (Keras's Rescaling and Normalization layers in front of a converted network), 50,176 runs of three for
    /// ``forEachRun(_:)``. Nil otherwise.
    let repeatedShortRun: (input: Int, period: Int, tileLength: Int)?

    static let maximumRank = 6

    init?(output: [Int], a: [Int], b: [Int]) {
        let rank = output.count
        guard rank <= Self.maximumRank, a.count <= rank, b.count <= rank else { return nil }
        let pa = Array(repeating: 1, count: rank - a.count) + a
        let pb = Array(repeating: 1, count: rank - b.count) + b
        for d in 0..<rank {
            guard pa[d] == output[d] || pa[d] == 1, pb[d] == output[d] || pb[d] == 1 else { return nil }
        }
        // Merge runs of dimensions where each input either spans or broadcasts throughout.
        var dims: [Int] = []
        var kinds: [(Bool, Bool)] = []  // whether a / b span the dimension
        for d in 0..<rank where output[d] != 1 {
            let kind = (pa[d] != 1, pb[d] != 1)
            if let last = kinds.last, last == kind {
                dims[dims.count - 1] *= output[d]
            } else {
                dims.append(output[d])
                kinds.append(kind)
            }
        }
        if dims.isEmpty {
            dims = [1]
            kinds = [(true, true)]
        }
        var strides = Array(repeating: (0, 0), count: dims.count)
        var sa = 1, sb = 1
        for d in stride(from: dims.count - 1, through: 0, by: -1) {
            strides[d] = (kinds[d].0 ? sa : 0, kinds[d].1 ? sb : 0)
            if kinds[d].0 { sa *= dims[d] }
            if kinds[d].1 { sb *= dims[d] }
        }
        dimensions = dims
        self.strides = strides
        repeatedShortRun = Self.repeatedShortRun(dimensions: dims, strides: strides)
    }

    /// Calls `body(aOffset, bOffset, outputOffset, count, aStride, bStride)` for each innermost run.
    @inline(__always)
    func forEachRun(_ body: (Int, Int, Int, Int, Int, Int) -> Void) {
        let inner = dimensions.count - 1
        let count = dimensions[inner]
        let (innerA, innerB) = strides[inner]
        // The index counter lives on the stack: invokes allocate nothing.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(inner, 1)) { index in
        index.initialize(repeating: 0)
        var offsetA = 0, offsetB = 0, offsetOut = 0
        while true {
            body(offsetA, offsetB, offsetOut, count, innerA, innerB)
            offsetOut += count
            var d = inner - 1
            while d >= 0 {
                index[d] += 1
                offsetA += strides[d].0
                offsetB += strides[d].1
                if index[d] < dimensions[d] { break }
                offsetA -= strides[d].0 * dimensions[d]
                offsetB -= strides[d].1 * dimensions[d]
                index[d] = 0
                d -= 1
            }
            if d < 0 { return }
        }
        }
    }
}

extension BroadcastPlan {
    /// Runs shorter than this, repeated by one input along an output the other spans contiguously, go through a tile
    /// (``forEachRun(a:b:_:)``); longer ones are vectors enough as they are.
    static let tiledRunMaximum = 16

    private static func repeatedShortRun(dimensions: [Int], strides: [(Int, Int)]) -> (input: Int, period: Int, tileLength: Int)? {
        guard dimensions.count == 2, strides[1] == (1, 1) else { return nil }
        let period = dimensions[1]
        guard period < tiledRunMaximum else { return nil }
        let input: Int
        if strides[0] == (period, 0) {
            input = 1
        } else if strides[0] == (0, period) {
            input = 0
        } else {
            return nil
        }
        var whole = 16
        while whole % period != 0 { whole += 16 }  // the least common multiple of the period and 16
        // 80–240 elements: under the 1 KB withUnsafeTemporaryAllocation keeps on the stack for floats too (an invoke
        // allocates nothing).
        return (input, period, whole * max(1, 128 / whole))
    }

    /// `body(a, b, output offset, count, a stride, b stride)` for each innermost run, as ``forEachRun(_:)`` with the
    /// inputs' pointers at the run's first elements. Where one input repeats a short run (``repeatedShortRun``), that
    /// input is read from a tile of its run copied over and over (on the stack, 80–240 elements, a whole number of
    /// runs and of 16 lanes), so that the runs are a tile long and both inputs advance one element a step: the same
    /// elements paired in the same order, in runs long enough for the kernels' vectors.
    @inline(__always)
    func forEachRun<Element>(a: UnsafePointer<Element>, b: UnsafePointer<Element>,
                             _ body: (UnsafePointer<Element>, UnsafePointer<Element>, Int, Int, Int, Int) -> Void) {
        guard let (input, period, length) = repeatedShortRun else {
            forEachRun { offsetA, offsetB, offsetOut, count, strideA, strideB in
                body(a + offsetA, b + offsetB, offsetOut, count, strideA, strideB)
            }
            return
        }
        let total = dimensions[0] * period
        let run = input == 0 ? a : b
        withUnsafeTemporaryAllocation(of: Element.self, capacity: length) { tile in
            for i in 0..<length { tile.initializeElement(at: i, to: run[i % period]) }
            let repeated = UnsafePointer(tile.baseAddress!)
            var start = 0
            while start < total {
                let count = min(length, total - start)
                if input == 0 {
                    body(repeated, b + start, start, count, 1, 1)
                } else {
                    body(a + start, repeated, start, count, 1, 1)
                }
                start += count
            }
            tile.baseAddress!.deinitialize(count: length)
        }
    }
}
