/// Operators whose inputs are all constants — the file's, or the outputs of operators folded before them — run
/// once at load, and their outputs become constants (DEQUANTIZE of float16 weights, the shape arithmetic of
/// reshapes). Each fold's output and scratch are charged to the budget before they are allocated.
///
/// Runs before the fusion passes: the epilogue fusion needs PReLU slopes that DEQUANTIZE operators compute.
enum ConstantFolding {
    static func run(_ plan: inout PlanGraph, budget: inout MemoryBudget) throws(EngineError) {
        var remaining: [PlanNode] = []
        for node in plan.nodes {
            guard let op = node.single, !node.inputs.isEmpty, node.inputs.allSatisfy(plan.constants.contains) else {
                remaining.append(node)
                continue
            }
            let (kernel, context) = try KernelBuilding.make(op, graph: &plan.tensors, constants: plan.constants)
            for output in op.outputs {
                try budget.charge(plan.tensors.byteCount(output), "folded constant '\(plan.tensors.names[output])' of operator \(op.index) (\(op.name))")
            }
            // The fold's scratch lives only while it runs: charged, then given back.
            try budget.charge(kernel.scratchBytes, "scratch of the folded operator \(op.index) (\(op.name))")
            budget.refund(kernel.scratchBytes)
            fold(kernel, outputs: context.outputs, graph: plan.tensors, constants: plan.constants)
            plan.foldedCount += 1
        }
        plan.nodes = remaining
    }

    /// Runs `kernel` once over constant inputs and keeps its outputs as constants, sized by the shapes the kernel
    /// gave them (a custom operator's outputs may have none in the file).
    private static func fold(_ kernel: any Kernel, outputs: [Int], graph: GraphDescription, constants: ConstantStore) {
        for output in outputs {
            constants.allocate(tensor: output, type: graph.types[output], byteCount: graph.byteCount(output))
        }
        let count = graph.shapes.count
        let placeholder = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64)
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: max(kernel.scratchBytes, 1), alignment: 64)
        defer { placeholder.deallocate(); scratch.deallocate() }
        var addresses = Array(repeating: placeholder, count: count)
        for (tensor, entry) in constants.entries { addresses[tensor] = entry.pointer }
        addresses.withUnsafeBufferPointer { buffer in
            kernel.run(TensorMemory(addresses: buffer.baseAddress!, scratch: scratch, parallel: Parallel(threads: 1)))
        }
    }
}
