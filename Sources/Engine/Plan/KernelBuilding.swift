/// Builds the kernel of every operator still in the plan, once each, in the file's order (so that a broken model
/// fails at its first broken operator), then turns each node into one step: a fused node's kernel is made of its
/// operators' kernels. A fusion whose kernels turn out not to take it (a portable x86-64 build keeps token mixing
/// as four operators) runs its operators as separate steps instead, which the passes' order makes valid.
enum KernelBuilding {
    struct Result {
        var steps: [ExecutionPlan.Step]
        /// The largest scratch any built kernel asks for.
        var scratchBytes: Int
        /// Operators that do not run on their own.
        var fused: Set<Int>
    }

    static func run(_ plan: inout PlanGraph, kernels config: KernelConfig = .compiled) throws(EngineError) -> Result {
        var kernels: [Int: any Kernel] = [:]
        var scratch = 0
        for op in plan.nodes.flatMap(\.operators).sorted(by: { $0.index < $1.index }) {
            let kernel = try make(op, graph: &plan.tensors, constants: plan.constants, kernels: config).kernel
            kernels[op.index] = kernel
            scratch = max(scratch, kernel.scratchBytes)
        }
        var result = Result(steps: [], scratchBytes: scratch, fused: plan.fused)
        for node in plan.nodes {
            let parts = node.operators.map { kernels[$0.index]! }
            guard let kernel = fuse(node, parts, plan.tensors) else {
                for (op, kernel) in zip(node.operators, parts) {
                    result.steps.append(.init(operatorIndex: op.index, name: op.name, kernel: kernel, inputs: op.present, outputs: op.outputs))
                }
                continue
            }
            result.steps.append(.init(operatorIndex: node.operatorIndex, name: node.name, kernel: kernel, inputs: node.inputs, outputs: node.outputs))
            result.fused.formUnion(node.operators.dropFirst().map(\.index))
            result.scratchBytes = max(result.scratchBytes, kernel.scratchBytes)
        }
        return result
    }

    /// The one kernel of `node` from its operators' `kernels`; nil when they do not make one.
    private static func fuse(_ node: PlanNode, _ kernels: [any Kernel], _ graph: GraphDescription) -> (any Kernel)? {
        switch node.fusion {
        case .none:
            return kernels.count == 1 ? kernels[0] : nil
        case let .epilogue(epilogue, output):
            guard let convolution = kernels[0] as? any EpilogueFusable, convolution.acceptsEpilogue else { return nil }
            return convolution.fusing(epilogue, output: output)
        case .tokenMixing:
            guard kernels.count == 4, let transpose = kernels[0] as? TransposeKernel, let expand = kernels[1] as? Conv2DKernel,
                  let contract = kernels[2] as? Conv2DKernel, let back = kernels[3] as? TransposeKernel else { return nil }
            return TokenMixingKernel(transpose: transpose, expand: expand, contract: contract, back: back)
        case let .layerNormalization(epsilon, scale):
            let (input, output) = (node.inputs[0], node.outputs[0])
            return LayerNormalizationKernel(input: input, output: output, rows: graph.elementCount(input) / scale.count,
                                            channels: scale.count, epsilon: epsilon, scale: scale)
        }
    }

    /// Builds and checks the kernel of `op`, and gives its outputs the shapes it computed.
    static func make(_ op: PlanOperator, graph: inout GraphDescription, constants: ConstantStore, kernels: KernelConfig = .compiled)
        throws(EngineError) -> (kernel: any Kernel, context: OperatorContext) {
        let context = op.context(graph: graph, constants: constants, kernels: kernels)
        try checkTensors(of: context)
        let kernel = try KernelRegistry.make(context, code: op.code)
        for (tensor, shape) in kernel.outputShapes {
            guard tensor >= 0, tensor < graph.shapes.count else {
                throw .invalidGraph(operatorIndex: op.index, reason: "\(op.name): output \(tensor) does not exist")
            }
            guard graph.shapes[tensor].isEmpty || graph.shapes[tensor] == shape else {
                throw .invalidGraph(operatorIndex: op.index, reason: "output '\(graph.names[tensor])' is \(graph.shapes[tensor]), the operator makes \(shape)")
            }
            // Shapes a kernel computes pass through the same cap as the file's.
            _ = try context.arithmetic.tensorBytes(shape, elementBytes: graph.types[tensor].byteSize ?? 1,
                                                   "output '\(graph.names[tensor])'")
            guard !shape.contains(0) else {
                throw .invalidGraph(operatorIndex: op.index, reason: "\(op.name): output '\(graph.names[tensor])' would have shape \(shape), with no elements")
            }
            graph.shapes[tensor] = shape
        }
        _ = try context.arithmetic.limited(kernel.scratchBytes, "scratch")
        return (kernel, context)
    }

    /// No kernel reads or writes a tensor without elements: such a shape is refused here, once for every operator,
    /// rather than in each kernel (a zero-sized input made RESIZE_BILINEAR read before its buffer). No shipped
    /// model has one.
    private static func checkTensors(of context: OperatorContext) throws(EngineError) {
        for tensor in context.inputs + context.outputs where tensor >= 0 {
            guard tensor < context.graph.shapes.count else { throw context.fail("tensor \(tensor) does not exist") }
            if context.graph.shapes[tensor].contains(0) {
                throw context.fail("tensor '\(context.graph.names[tensor])' has shape \(context.graph.shapes[tensor]), with no elements")
            }
        }
    }
}
