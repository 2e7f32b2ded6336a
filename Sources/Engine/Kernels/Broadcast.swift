/// Index arithmetic for NumPy-style broadcasting of two inputs to one output, up to rank 6.
///
/// Shapes are right-aligned; a dimension of 1 in an input repeats along the output. Adjacent dimensions that
/// broadcast the same way are merged so the inner loop runs as long and as contiguous as possible.
struct BroadcastPlan: Sendable {
    /// Merged output dimensions, outermost first.
    let dimensions: [Int]
    /// Per merged dimension, the element stride of each input (0 where it broadcasts).
    let strides: [(Int, Int)]

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
