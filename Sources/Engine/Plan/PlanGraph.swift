import VisionTasksModelFormat

/// One operator of the file as its kernel will see it: the passes rewrite its inputs (a fused PAD's consumer reads
/// the PAD's input), never its outputs or options.
struct PlanOperator {
    let index: Int
    let code: OperatorCode
    let op: Operator
    /// Tensor indices; -1 for an absent optional input.
    var inputs: [Int]
    let outputs: [Int]
    /// Zero padding of input 0 taken over from a PAD that ``PadFusion`` removed.
    var inputPadding: (top: Int, left: Int, bottom: Int, right: Int)?

    var name: String { code.name }
    var options: BuiltinOptions { op.builtinOptions }
    /// The inputs a run reads (optional absent ones left out).
    var present: [Int] { inputs.filter { $0 >= 0 } }

    /// Tensor `i` of the inputs, nil when absent: the passes look at operators no kernel has checked yet.
    func input(_ i: Int) -> Int? { i < inputs.count && inputs[i] >= 0 ? inputs[i] : nil }

    /// The only output, when there is exactly one.
    var output: Int? { outputs.count == 1 ? outputs[0] : nil }

    /// Whether ``KernelRegistry`` gives this operator the float kernel of `builtin` (it takes the quantized one when
    /// input 0 is uint8 or int8): the passes match what the kernels will be.
    func runsFloat(_ builtin: BuiltinOperator, in graph: GraphDescription) -> Bool {
        guard code.builtin == builtin, builtin != .custom, builtin != .quantize else { return false }
        guard let first = inputs.first, first >= 0 else { return true }
        return !graph.types[first].isQuantizedInteger
    }

    func context(graph: GraphDescription, constants: ConstantStore, kernels: KernelConfig = .compiled) -> OperatorContext {
        OperatorContext(index: index, name: name, op: op, inputs: inputs, outputs: outputs, graph: graph, constants: constants,
                        inputPadding: inputPadding, kernels: kernels)
    }
}

/// What the plan runs in one step: one operator, or operators a pass fused, run by one kernel built from them.
struct PlanNode {
    enum Fusion {
        case none
        /// ``EpilogueFusion``: `operators[0]`, a convolution, writes `output` through the epilogue of the rest.
        case epilogue(Epilogue, output: Int)
        /// ``TokenMixingFusion``: TRANSPOSE, CONV_2D, CONV_2D, TRANSPOSE.
        case tokenMixing
        /// ``LayerNormalizationFusion``: the converter's ten operators, normalizing `inputs[0]` over its last axis
        /// (γ's length) into `outputs[0]`.
        case layerNormalization(epsilon: Float, scale: [Float])
    }

    /// The operators, the one whose place the node takes first.
    var operators: [PlanOperator]
    var fusion: Fusion = .none
    /// Tensors the node reads and writes at run time.
    var inputs: [Int]
    var outputs: [Int]

    init(_ op: PlanOperator) {
        operators = [op]
        inputs = op.present
        outputs = op.outputs
    }

    init(fusing operators: [PlanOperator], as fusion: Fusion, inputs: [Int], outputs: [Int]) {
        (self.operators, self.fusion, self.inputs, self.outputs) = (operators, fusion, inputs, outputs)
    }

    var operatorIndex: Int { operators[0].index }
    /// The single operator of an unfused node.
    var single: PlanOperator? { operators.count == 1 ? operators[0] : nil }
    var isFused: Bool { operators.count > 1 }

    var name: String {
        if case .layerNormalization = fusion { return "LAYER_NORM" }
        return operators.map(\.name).joined(separator: "+")
    }
}

/// The operator-level form of a model that the plan's passes rewrite, in order: ``PadFusion``,
/// ``ConstantFolding``, ``EpilogueFusion``, ``TokenMixingFusion``, ``LayerNormalizationFusion``; then
/// ``KernelBuilding`` builds each remaining operator's kernel once, ``Liveness`` gives the activations' lifetimes
/// and ``MemoryPlanner`` their arena offsets.
struct PlanGraph {
    var tensors: GraphDescription
    let constants: ConstantStore
    /// In run order.
    var nodes: [PlanNode]
    let inputs: [Int]
    let outputs: [Int]
    /// Operators that no longer run on their own (a fused PAD); fused nodes' other operators join at kernel building.
    var fused: Set<Int> = []
    /// Operators computed at load.
    var foldedCount = 0

    /// Lowers the model's first subgraph: checks indices, shapes, quantization and sparsity, and copies the constants
    /// out. Everything after this works on checked indices and on shapes under the per-tensor cap.
    init(model: TFLiteModel) throws(EngineError) {
        guard let subgraph = model.subgraphs.first else { throw .unsupportedModel(reason: "the model has no subgraph") }
        try Self.checkIndices(model: model, subgraph: subgraph)
        let arithmetic = ShapeArithmetic(operatorIndex: nil, operatorName: nil)
        var graph = GraphDescription(shapes: [], types: [], names: [], quantization: [], sparsity: [])
        for tensor in subgraph.tensors {
            // A negative dimension is a dynamic one (-1), which we cannot plan.
            guard tensor.shape.allSatisfy({ $0 >= 0 }) else {
                throw .unsupportedModel(reason: "tensor '\(tensor.name)' has shape \(tensor.shape)")
            }
            let shape = tensor.shape.map(Int.init)
            _ = try arithmetic.tensorBytes(shape, elementBytes: tensor.type.byteSize ?? 1, "tensor '\(tensor.name)'")
            if tensor.isVariable { throw .unsupportedModel(reason: "variable tensor '\(tensor.name)'") }
            graph.shapes.append(shape)
            graph.types.append(tensor.type)
            graph.names.append(tensor.name)
            graph.quantization.append(tensor.quantization)
            graph.sparsity.append(tensor.sparsity)
        }
        try QuantizationValidation.check(graph)
        try Self.checkSparsity(model: model, subgraph: subgraph)
        let constants = ConstantStore()
        for (index, tensor) in subgraph.tensors.enumerated() {
            let data = model.data(of: tensor)
            guard !data.isEmpty else { continue }
            // A sparse constant (read only by DENSIFY, see checkSparsity) stores fewer values than its shape: DENSIFY
            // checks every stored value's place against the buffer. Every other constant must fill its shape exactly.
            if tensor.sparsity == nil, data.count != graph.byteCount(index) {
                throw .invalidGraph(operatorIndex: nil, reason: "constant '\(tensor.name)' holds \(data.count) bytes, its shape needs \(graph.byteCount(index))")
            }
            constants.store(tensor: index, type: tensor.type, bytes: data)
        }
        tensors = graph
        self.constants = constants
        nodes = subgraph.operators.enumerated().map { index, op in
            PlanNode(PlanOperator(index: index, code: model.code(of: op), op: op, inputs: op.inputs.map(Int.init),
                                  outputs: op.outputs.map(Int.init)))
        }
        inputs = subgraph.inputs.map(Int.init)
        outputs = subgraph.outputs.map(Int.init)
    }

    /// The positions of the nodes reading each tensor, once per input slot (an ADD of x and x reads x twice), or
    /// once per node when `distinct`.
    func readers(distinct: Bool = false) -> [Int: [Int]] {
        var readers: [Int: [Int]] = [:]
        for (position, node) in nodes.enumerated() {
            for tensor in distinct ? Array(Set(node.inputs)) : node.inputs { readers[tensor, default: []].append(position) }
        }
        return readers
    }

    /// The only node reading `tensor`, when it is no graph output.
    func onlyReader(of tensor: Int, readers: [Int: [Int]]) -> Int? {
        guard !outputs.contains(tensor), let reader = readers[tensor], reader.count == 1 else { return nil }
        return reader[0]
    }

    /// The parser checks every index, but a model's subgraphs are mutable values (tools and tests edit them):
    /// indices are checked again here, so that an edited model is a typed error rather than a trap.
    private static func checkIndices(model: TFLiteModel, subgraph: Subgraph) throws(EngineError) {
        let count = subgraph.tensors.count
        for (index, tensor) in subgraph.tensors.enumerated() where tensor.bufferIndex < 0 || tensor.bufferIndex >= model.buffers.count {
            throw .invalidGraph(operatorIndex: nil, reason: "tensor \(index) ('\(tensor.name)') names buffer \(tensor.bufferIndex) of \(model.buffers.count)")
        }
        for tensor in subgraph.inputs + subgraph.outputs where tensor < 0 || Int(tensor) >= count {
            throw .invalidGraph(operatorIndex: nil, reason: "graph input or output \(tensor) of \(count) tensors")
        }
        for (index, op) in subgraph.operators.enumerated() {
            guard op.opcodeIndex >= 0, op.opcodeIndex < model.operatorCodes.count else {
                throw .invalidGraph(operatorIndex: index, reason: "operator code \(op.opcodeIndex) of \(model.operatorCodes.count)")
            }
            for tensor in op.inputs + op.outputs where tensor < -1 || Int(tensor) >= count || (tensor == -1 && op.outputs.contains(tensor)) {
                throw .invalidGraph(operatorIndex: index, reason: "tensor index \(tensor) of \(count) tensors")
            }
        }
    }

    /// Sparsity parameters describe how DENSIFY reads a constant; any other operator would read the short sparse
    /// buffer as if it were dense (past its end). Refuses sparse tensors anywhere but as a constant DENSIFY input.
    private static func checkSparsity(model: TFLiteModel, subgraph: Subgraph) throws(EngineError) {
        let sparse = Set(subgraph.tensors.indices.filter { subgraph.tensors[$0].sparsity != nil })
        guard !sparse.isEmpty else { return }
        for (index, op) in subgraph.operators.enumerated() {
            let name = model.code(of: op).name
            for (position, tensor) in op.inputs.enumerated() where sparse.contains(Int(tensor)) {
                guard name == "DENSIFY", position == 0 else {
                    throw .invalidGraph(operatorIndex: index, reason: "\(name): input \(position) '\(subgraph.tensors[Int(tensor)].name)' is sparse; only DENSIFY reads sparse tensors")
                }
            }
            for tensor in op.outputs where sparse.contains(Int(tensor)) {
                throw .invalidGraph(operatorIndex: index, reason: "\(name): output '\(subgraph.tensors[Int(tensor)].name)' has sparsity parameters")
            }
        }
        for tensor in subgraph.inputs + subgraph.outputs where sparse.contains(Int(tensor)) {
            throw .invalidGraph(operatorIndex: nil, reason: "graph input or output '\(subgraph.tensors[Int(tensor)].name)' has sparsity parameters")
        }
        for tensor in sparse where model.data(of: subgraph.tensors[tensor]).isEmpty {
            throw .invalidGraph(operatorIndex: nil, reason: "sparse tensor '\(subgraph.tensors[tensor].name)' is not a constant")
        }
    }
}
