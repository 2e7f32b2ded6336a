/// TRANSPOSE → CONV_2D → CONV_2D → TRANSPOSE back, each the only reader of the one before, none of the tensors
/// between them a graph output and neither convolution carrying an epilogue, becomes one node in the first one's
/// place (MLP-Mixer token mixing: the transposes go, and the GEMMs get whole panels). Whether the four have the
/// form ``TokenMixingKernel`` needs (1×1 convolutions, matching sizes) is the kernel's to say: when it refuses, the
/// four run as they are.
enum TokenMixingFusion {
    static func run(_ plan: inout PlanGraph) {
        let nodes = plan.nodes, readers = plan.readers()
        /// The only reader of the single output of the unfused node at `position`.
        func next(_ position: Int) -> Int? {
            guard nodes[position].single != nil, nodes[position].outputs.count == 1 else { return nil }
            return plan.onlyReader(of: nodes[position].outputs[0], readers: readers)
        }
        func isTranspose(_ position: Int) -> Bool { nodes[position].single?.code.builtin == .transpose }
        func isConvolution(_ position: Int) -> Bool { nodes[position].single?.runsFloat(.conv2D, in: plan.tensors) == true }
        var result: [PlanNode] = [], removed: Set<Int> = []
        for (position, node) in nodes.enumerated() where !removed.contains(position) {
            guard isTranspose(position), let p1 = next(position), isConvolution(p1), let p2 = next(p1), isConvolution(p2),
                  let p3 = next(p2), isTranspose(p3) else {
                result.append(node)
                continue
            }
            result.append(PlanNode(fusing: [position, p1, p2, p3].map { nodes[$0].operators[0] }, as: .tokenMixing,
                                   inputs: node.inputs, outputs: nodes[p3].outputs))
            removed.formUnion([p1, p2, p3])
        }
        plan.nodes = result
    }
}
