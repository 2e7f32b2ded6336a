/// The memory a plan may ask for — arena, scratch and the outputs of operators folded at load — charged as the passes
/// decide it, so that a tiny file declaring gigabytes is refused before anything of that size is allocated.
struct MemoryBudget {
    let limit: Int
    private(set) var charged = 0

    init(limit: Int) { self.limit = limit }

    mutating func charge(_ bytes: Int, _ what: @autoclosure () -> String) throws(EngineError) {
        let (total, overflow) = charged.addingReportingOverflow(bytes)
        guard !overflow, total <= limit else {
            throw .resourceLimit(what: "\(what()) (with the \(charged) bytes planned before it)",
                                 bytes: overflow ? .max : total, limit: limit)
        }
        charged = total
    }

    /// Gives back what a charge took for a while (a folded operator's scratch, freed once it ran).
    mutating func refund(_ bytes: Int) { charged -= bytes }
}
