/// The lifetime of every activation over the steps that run at invoke: from the step that first writes it to the
/// last that reads it, inclusive. Graph inputs live from the start and, with graph outputs, to the end (as in
/// LiteRT: a caller may set inputs once and invoke again, so nothing may overwrite them). Constants live outside
/// the arena. Refuses a step that reads a tensor nothing wrote before it, or writes a constant, and a graph output
/// nothing writes.
enum Liveness {
    struct Access {
        let operatorIndex: Int
        let inputs: [Int]
        let outputs: [Int]
    }

    static func requests(_ steps: [Access], graphInputs: [Int], graphOutputs: [Int], graph: GraphDescription,
                         isConstant: (Int) -> Bool) throws(EngineError) -> [MemoryPlanner.Request] {
        var first: [Int: Int] = [:], last: [Int: Int] = [:]
        for tensor in graphInputs where !isConstant(tensor) { first[tensor] = 0; last[tensor] = 0 }
        for (position, step) in steps.enumerated() {
            for tensor in step.inputs where !isConstant(tensor) {
                guard first[tensor] != nil else {
                    throw .invalidGraph(operatorIndex: step.operatorIndex, reason: "reads '\(graph.names[tensor])' before anything writes it")
                }
                last[tensor] = position
            }
            for tensor in step.outputs {
                guard !isConstant(tensor) else {
                    throw .invalidGraph(operatorIndex: step.operatorIndex, reason: "writes the constant '\(graph.names[tensor])'")
                }
                if first[tensor] == nil { first[tensor] = position }
                last[tensor] = max(last[tensor] ?? position, position)
            }
        }
        for tensor in graphOutputs where !isConstant(tensor) {
            guard first[tensor] != nil else {
                throw .invalidGraph(operatorIndex: nil, reason: "output '\(graph.names[tensor])' is never written")
            }
            last[tensor] = steps.count
        }
        for tensor in graphInputs where !isConstant(tensor) { last[tensor] = steps.count }
        return first.keys.sorted().map { tensor in
            MemoryPlanner.Request(tensor: tensor, bytes: graph.byteCount(tensor), first: first[tensor]!, last: last[tensor]!)
        }
    }
}
