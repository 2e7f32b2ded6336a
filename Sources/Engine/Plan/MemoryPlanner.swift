/// Places every activation tensor in one arena so that tensors alive at the same time never overlap.
///
/// TFLite's "greedy by size" strategy (its `SimpleMemoryArena` planner does the same in spirit): take tensors
/// largest first and give each the lowest offset that does not collide with an already placed tensor whose
/// lifetime overlaps. Lifetimes are [first step that writes, last step that reads], inclusive.
struct MemoryPlanner {
    struct Request {
        let tensor: Int
        let bytes: Int
        let first: Int
        let last: Int
    }

    /// Alignment of every tensor: a cache line, and enough for any SIMD load.
    static let alignment = 64

    static func align(_ bytes: Int) -> Int { (bytes + alignment - 1) / alignment * alignment }

    /// Offsets by tensor index, and the arena size.
    static func plan(_ requests: [Request]) -> (offsets: [Int: Int], arenaBytes: Int) {
        let ordered = requests.sorted { ($0.bytes, $1.first, $1.tensor) > ($1.bytes, $0.first, $0.tensor) }
        var placed: [(offset: Int, bytes: Int, first: Int, last: Int)] = []
        var offsets: [Int: Int] = [:]
        var arena = 0
        for request in ordered {
            let size = align(request.bytes)
            let conflicts = placed
                .filter { $0.first <= request.last && request.first <= $0.last }
                .sorted { $0.offset < $1.offset }
            var offset = 0
            for other in conflicts {
                if offset + size <= other.offset { break }
                offset = max(offset, other.offset + align(other.bytes))
            }
            placed.append((offset, request.bytes, request.first, request.last))
            offsets[request.tensor] = offset
            arena = max(arena, offset + size)
        }
        return (offsets, arena)
    }
}
