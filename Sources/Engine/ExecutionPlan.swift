import CVisionTasksBLAS
import VisionTasksModelFormat

/// A model prepared to run: constants loaded and folded, a kernel per remaining operator, the arena planned.
///
/// Immutable once built and `Sendable`: several ``Interpreter``s (one per thread) can share one plan and its
/// weights, each with its own arena.
public final class ExecutionPlan: Sendable {
    struct Step: Sendable {
        let operatorIndex: Int
        let name: String
        let kernel: any Kernel
        let inputs: [Int]
        let outputs: [Int]
    }

    let graph: GraphDescription
    let constants: ConstantStore
    let steps: [Step]
    /// Arena offset of every tensor that lives in the arena.
    let offsets: [Int: Int]
    let inputTensors: [Int]
    let outputTensors: [Int]
    /// Bytes of the planned arena, and what giving every activation its own buffer would take.
    public let arenaBytes: Int
    public let naiveBytes: Int
    let scratchBytes: Int
    /// Operators computed once at load because all their inputs are constant.
    public let foldedOperatorCount: Int
    /// Operators run at every invoke.
    public var runtimeOperatorCount: Int { steps.count }

    /// Largest tensor we plan: a guard against shapes that multiply into absurd sizes.
    static let maximumTensorBytes = ShapeArithmetic.maximumTensorBytes

    /// Default of the memory a plan may ask for (arena, scratch and the outputs of operators folded at load), 4 GiB:
    /// twice the per-tensor cap, so that one operator reading and writing tensors at that cap still plans, while a
    /// tiny file that declares gigabytes of inputs is refused before anything is allocated. The largest arena of the
    /// shipped models is 8.6 MB (pose landmarks, full), so real models are far below it; a caller with larger models
    /// (or less memory) passes its own budget.
    public static let defaultMemoryBudget = 4 << 30

    /// Prepares `model`; refuses with ``EngineError/resourceLimit(what:bytes:limit:)`` a plan whose arena, scratch and
    /// folded constants together would take more than `memoryBudget` bytes.
    public init(model: TFLiteModel, memoryBudget: Int = ExecutionPlan.defaultMemoryBudget) throws(EngineError) {
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
        /// Memory charged against `memoryBudget` so far (folded constants; arena and scratch at the end).
        var charged = 0
        func charge(_ bytes: Int, _ what: @autoclosure () -> String) throws(EngineError) {
            let (total, overflow) = charged.addingReportingOverflow(bytes)
            guard !overflow, total <= memoryBudget else {
                throw .resourceLimit(what: "\(what()) (with the \(charged) bytes planned before it)",
                                     bytes: overflow ? .max : total, limit: memoryBudget)
            }
            charged = total
        }

        var steps: [Step] = []
        var folded = 0
        var scratch = 0
        let fusions = Self.padFusions(model: model, subgraph: subgraph, constants: constants)
        var fused: Set<Int> = []
        for (index, op) in subgraph.operators.enumerated() {
            let code = model.code(of: op)
            if fusions.pads[index] != nil {
                fused.insert(index)
                continue
            }
            var context = OperatorContext(
                index: index, name: code.name, op: op, inputs: op.inputs.map(Int.init), outputs: op.outputs.map(Int.init),
                graph: graph, constants: constants)
            if let fusion = fusions.consumers[index] {
                var inputs = context.inputs
                inputs[0] = fusion.source
                context = OperatorContext(index: index, name: code.name, op: op, inputs: inputs, outputs: context.outputs,
                                          graph: graph, constants: constants, inputPadding: fusion.padding)
            }
            try Self.checkTensors(of: context)
            let kernel = try KernelRegistry.make(context, code: code)
            for (tensor, shape) in kernel.outputShapes {
                guard tensor >= 0, tensor < graph.shapes.count else {
                    throw .invalidGraph(operatorIndex: index, reason: "\(code.name): output \(tensor) does not exist")
                }
                guard graph.shapes[tensor].isEmpty || graph.shapes[tensor] == shape else {
                    throw .invalidGraph(operatorIndex: index, reason: "output '\(graph.names[tensor])' is \(graph.shapes[tensor]), the operator makes \(shape)")
                }
                // Shapes a kernel computes pass through the same cap as the file's.
                _ = try context.arithmetic.tensorBytes(shape, elementBytes: graph.types[tensor].byteSize ?? 1,
                                                       "output '\(graph.names[tensor])'")
                guard !shape.contains(0) else {
                    throw .invalidGraph(operatorIndex: index, reason: "\(code.name): output '\(graph.names[tensor])' would have shape \(shape), with no elements")
                }
                graph.shapes[tensor] = shape
            }
            _ = try context.arithmetic.limited(kernel.scratchBytes, "scratch")
            let present = context.inputs.filter { $0 >= 0 }
            if !present.isEmpty, present.allSatisfy(constants.contains) {
                for output in context.outputs {
                    try charge(graph.byteCount(output), "folded constant '\(graph.names[output])' of operator \(index) (\(code.name))")
                }
                // The fold's scratch lives only while it runs: charged, then given back.
                try charge(kernel.scratchBytes, "scratch of the folded operator \(index) (\(code.name))")
                charged -= kernel.scratchBytes
                try Self.fold(kernel, context: context, constants: constants)
                folded += 1
            } else {
                scratch = max(scratch, kernel.scratchBytes)
                steps.append(Step(operatorIndex: index, name: code.name, kernel: kernel, inputs: present, outputs: context.outputs))
            }
        }

        let inputs = subgraph.inputs.map(Int.init), outputs = subgraph.outputs.map(Int.init)
        // With every constant folded (PReLU slopes come out of DEQUANTIZE operators that may follow the
        // convolution), element-wise operators can move into the convolution before them.
        let epilogues = Self.fuseEpilogues(steps, graph: graph, constants: constants, graphOutputs: Set(outputs))
        steps = epilogues.steps
        fused.formUnion(epilogues.absorbed)
        let mixing = Self.fuseTokenMixing(steps, graphOutputs: Set(outputs))
        steps = mixing.steps
        fused.formUnion(mixing.absorbed)
        let norms = Self.fuseLayerNormalizations(steps, graph: graph, constants: constants, graphOutputs: Set(outputs))
        steps = norms.steps
        fused.formUnion(norms.absorbed)
        scratch = max(scratch, steps.map(\.kernel.scratchBytes).max() ?? 0)

        // Lifetimes of the activations: graph inputs from the start, outputs to the end.
        var first: [Int: Int] = [:], last: [Int: Int] = [:]
        for tensor in inputs where !constants.contains(tensor) { first[tensor] = 0; last[tensor] = 0 }
        for (position, step) in steps.enumerated() {
            for tensor in step.inputs where !constants.contains(tensor) {
                guard first[tensor] != nil else {
                    throw .invalidGraph(operatorIndex: step.operatorIndex, reason: "reads '\(graph.names[tensor])' before anything writes it")
                }
                last[tensor] = position
            }
            for tensor in step.outputs {
                guard !constants.contains(tensor) else {
                    throw .invalidGraph(operatorIndex: step.operatorIndex, reason: "writes the constant '\(graph.names[tensor])'")
                }
                if first[tensor] == nil { first[tensor] = position }
                last[tensor] = max(last[tensor] ?? position, position)
            }
        }
        for tensor in outputs where !constants.contains(tensor) {
            guard first[tensor] != nil else {
                throw .invalidGraph(operatorIndex: nil, reason: "output '\(graph.names[tensor])' is never written")
            }
            last[tensor] = steps.count
        }
        // Inputs too, as in LiteRT: a caller may set them once and invoke again, so nothing may overwrite them.
        for tensor in inputs where !constants.contains(tensor) { last[tensor] = steps.count }
        let requests = first.keys.sorted().map { tensor in
            MemoryPlanner.Request(tensor: tensor, bytes: graph.byteCount(tensor), first: first[tensor]!, last: last[tensor]!)
        }
        let (offsets, arenaBytes) = MemoryPlanner.plan(requests)
        // Checked before any interpreter allocates (and zero-fills) the arena: a 564-byte model may declare inputs
        // of many gigabytes.
        try charge(scratch, "the scratch area")
        try charge(arenaBytes, "the arena of \(requests.count) activations")

        self.graph = graph
        self.constants = constants
        self.steps = steps
        self.offsets = offsets
        self.inputTensors = inputs
        self.outputTensors = outputs
        self.arenaBytes = arenaBytes
        self.naiveBytes = requests.reduce(0) { $0 + MemoryPlanner.align($1.bytes) }
        self.scratchBytes = scratch
        self.foldedOperatorCount = folded
        self.fusedOperators = fused
    }

    /// Operators that do not run on their own: zero PADs read through by the convolution after them, and ADDs and
    /// PReLUs run as the epilogue of the convolution before them.
    let fusedOperators: Set<Int>

    /// A convolution (or depthwise convolution) takes as its ``Epilogue`` what follows it in a chain of single
    /// readers: a residual ADD, then a standalone RELU / RELU6 / RELU_N1_TO_1 (when the ADD has no activation of its
    /// own), then a per-channel PReLU — any of them, in that order — and writes the chain's last output instead.
    /// The ADD's other input must exist when the convolution runs: written by an earlier step, a graph input, or
    /// written by a step that only reads earlier tensors (BlazeFace's channel-padding PAD of the residual, which
    /// the converter placed after the convolution), which then moves to just before the convolution. Tensors in
    /// the chain must not be graph outputs. A regular convolution's ADD may also take a residual that a PAD of zero
    /// channels widened, read by nothing else: the epilogue adds the PAD's input to the first channels and the PAD
    /// goes (its input, like the ADD's, may move from after the convolution to before it).
    private static func fuseEpilogues(_ steps: [Step], graph: GraphDescription, constants: ConstantStore, graphOutputs: Set<Int>)
        -> (steps: [Step], absorbed: Set<Int>) {
        var readers: [Int: [Int]] = [:], producer: [Int: Int] = [:]
        for (position, step) in steps.enumerated() {
            for tensor in step.inputs { readers[tensor, default: []].append(position) }
            for tensor in step.outputs { producer[tensor] = position }
        }
        func onlyReader(_ tensor: Int) -> Int? {
            guard !graphOutputs.contains(tensor), let reader = readers[tensor], reader.count == 1 else { return nil }
            return reader[0]
        }
        /// Whether `tensor` can be read at `position`, and which later step must move before it for that.
        func available(_ tensor: Int, at position: Int, moved: Set<Int>) -> (ok: Bool, move: Int?) {
            guard let writer = producer[tensor], writer > position else { return (true, nil) }
            let step = steps[writer]
            guard !moved.contains(writer), !(step.kernel is any EpilogueFusable), step.outputs == [tensor],
                  step.inputs.allSatisfy({ producer[$0].map { $0 < position } ?? true }) else { return (false, nil) }
            return (true, writer)
        }
        var result = steps
        var removed: Set<Int> = [], moved: Set<Int> = [], absorbed: Set<Int> = []
        var movedBefore: [Int: Int] = [:]
        for (position, step) in steps.enumerated() {
            guard let fusable = step.kernel as? any EpilogueFusable, fusable.acceptsEpilogue, step.outputs.count == 1 else { continue }
            var tensor = step.outputs[0]
            let shape = graph.shapes[tensor]
            var epilogue = Epilogue()
            var positions: [Int] = [], extraInputs: [Int] = [], move: Int?
            if let next = onlyReader(tensor), let add = steps[next].kernel as? ElementwiseBinaryKernel, add.operation == .add,
               add.activation != .tanh {
                let other = add.a == tensor ? add.b : add.a
                let availability = available(other, at: position, moved: moved)
                if step.kernel is Conv2DKernel, other != tensor, graph.shapes[add.output] == shape,
                   let padPosition = producer[other], !moved.contains(padPosition), onlyReader(other) == next,
                   let pad = steps[padPosition].kernel as? PadKernel, pad.appendsZeroChannels, pad.outputShape == shape,
                   !constants.contains(pad.input), case let source = available(pad.input, at: position, moved: moved), source.ok {
                    // The residual is widened by a PAD of zero channels: add its input to the first channels instead
                    // (BlazeFace's 11 PADs copied 0.13 ms of activations per invoke).
                    epilogue.addend = pad.input
                    epilogue.addendChannels = pad.inputShape.last
                    epilogue.clamp = add.activation
                    (tensor, positions, extraInputs, move) = (add.output, [padPosition, next], [pad.input], source.move)
                } else if other != tensor, !constants.contains(other), graph.shapes[other] == shape, graph.shapes[add.output] == shape,
                          availability.ok {
                    epilogue.addend = other
                    epilogue.clamp = add.activation
                    (tensor, positions, extraInputs, move) = (add.output, [next], [other], availability.move)
                }
            }
            if epilogue.clamp == .none, let next = onlyReader(tensor), let unary = steps[next].kernel as? ElementwiseUnaryKernel,
               graph.shapes[unary.output] == shape {
                switch unary.function {
                case .relu: epilogue.clamp = .relu
                case .relu6: epilogue.clamp = .relu6
                case .reluMinus1To1: epilogue.clamp = .reluMinus1To1
                default: break
                }
                if epilogue.clamp != .none { (tensor, positions) = (unary.output, positions + [next]) }
            }
            if let next = onlyReader(tensor), let prelu = steps[next].kernel as? ElementwiseBinaryKernel, prelu.operation == .preluAlpha,
               prelu.a == tensor, let channels = shape.last, graph.shapes[prelu.b].last == channels, graph.elementCount(prelu.b) == channels,
               graph.shapes[prelu.output] == shape, let alpha = constants.floats(prelu.b) {
                // Zeros past the last channel: the GEMM tiles load slopes for whole panels of 16.
                let padding = (PackedGEMM.panelWidth - channels % PackedGEMM.panelWidth) % PackedGEMM.panelWidth
                epilogue.alpha = alpha + Array(repeating: 0, count: padding)
                (tensor, positions) = (prelu.output, positions + [next])
            }
            guard !positions.isEmpty else { continue }
            let name = ([step.name] + positions.map { steps[$0].name }).joined(separator: "+")
            result[position] = Step(operatorIndex: step.operatorIndex, name: name, kernel: fusable.fusing(epilogue, output: tensor),
                                    inputs: step.inputs + extraInputs, outputs: [tensor])
            removed.formUnion(positions)
            absorbed.formUnion(positions.map { steps[$0].operatorIndex })
            if let move {
                moved.insert(move)
                movedBefore[position] = move
            }
        }
        var ordered: [Step] = []
        for position in result.indices where !removed.contains(position) && !moved.contains(position) {
            if let move = movedBefore[position] { ordered.append(result[move]) }
            ordered.append(result[position])
        }
        return (ordered, absorbed)
    }

    /// TRANSPOSE → 1×1 CONV_2D → 1×1 CONV_2D → TRANSPOSE back, each the only reader of the one before and none of
    /// the tensors between them a graph output, runs as one ``TokenMixingKernel`` in the first one's place (MLP-Mixer
    /// token mixing: the transposes go, and the GEMMs get whole panels).
    private static func fuseTokenMixing(_ steps: [Step], graphOutputs: Set<Int>) -> (steps: [Step], absorbed: Set<Int>) {
        var readers: [Int: [Int]] = [:]
        for (position, step) in steps.enumerated() {
            for tensor in step.inputs { readers[tensor, default: []].append(position) }
        }
        func next(_ position: Int) -> Int? {
            guard steps[position].outputs.count == 1, let tensor = steps[position].outputs.first, !graphOutputs.contains(tensor),
                  let reader = readers[tensor], reader.count == 1 else { return nil }
            return reader[0]
        }
        var result: [Step] = [], absorbed: Set<Int> = [], removed: Set<Int> = []
        for (position, step) in steps.enumerated() where !removed.contains(position) {
            guard let transpose = step.kernel as? TransposeKernel,
                  let p1 = next(position), let expand = steps[p1].kernel as? Conv2DKernel,
                  let p2 = next(p1), let contract = steps[p2].kernel as? Conv2DKernel,
                  let p3 = next(p2), let back = steps[p3].kernel as? TransposeKernel,
                  let kernel = TokenMixingKernel(transpose: transpose, expand: expand, contract: contract, back: back) else {
                result.append(step)
                continue
            }
            let name = [step, steps[p1], steps[p2], steps[p3]].map(\.name).joined(separator: "+")
            result.append(Step(operatorIndex: step.operatorIndex, name: name, kernel: kernel, inputs: step.inputs, outputs: steps[p3].outputs))
            removed.formUnion([p1, p2, p3])
            absorbed.formUnion([p1, p2, p3].map { steps[$0].operatorIndex })
        }
        return (result, absorbed)
    }

    /// The converter's ten-operator layer normalization (see ``LayerNormalizationKernel``) runs as one kernel in
    /// the first MEAN's place: every intermediate tensor must be read only inside the pattern and be no graph output,
    /// ε a constant scalar, γ a constant per channel, and no operator may have a fused activation.
    private static func fuseLayerNormalizations(_ steps: [Step], graph: GraphDescription, constants: ConstantStore,
                                                graphOutputs: Set<Int>) -> (steps: [Step], absorbed: Set<Int>) {
        var readers: [Int: [Int]] = [:]
        for (position, step) in steps.enumerated() {
            for tensor in Set(step.inputs) { readers[tensor, default: []].append(position) }
        }
        /// The steps reading `tensor`, when it is an intermediate one (not a graph output).
        func consumers(_ tensor: Int) -> [Int] { graphOutputs.contains(tensor) ? [] : readers[tensor] ?? [] }
        func binary(_ position: Int, _ operation: ElementwiseBinaryKernel.Operation) -> ElementwiseBinaryKernel? {
            guard let kernel = steps[position].kernel as? ElementwiseBinaryKernel, kernel.operation == operation,
                  kernel.activation == .none else { return nil }
            return kernel
        }
        func unary(_ position: Int, _ function: ElementwiseUnaryKernel.Function) -> ElementwiseUnaryKernel? {
            guard let kernel = steps[position].kernel as? ElementwiseUnaryKernel, kernel.function == function else { return nil }
            return kernel
        }
        /// The other operand of a binary kernel that reads `tensor`.
        func other(_ kernel: ElementwiseBinaryKernel, _ tensor: Int) -> Int? {
            kernel.a == tensor ? kernel.b : kernel.b == tensor ? kernel.a : nil
        }
        func match(_ position: Int) -> (kernel: LayerNormalizationKernel, positions: [Int])? {
            guard let mean = steps[position].kernel as? ReduceKernel, mean.operation == .mean,
                  let channels = mean.inputShape.last, channels > 0, mean.contiguousReduced == channels,
                  case let x = mean.input, !constants.contains(x), case let m = mean.output else { return nil }
            let rows = graph.elementCount(x) / channels
            // m → NEG (n) and SQUARED_DIFFERENCE(x, m) (d)
            let mReaders = consumers(m)
            guard mReaders.count == 2,
                  let negPosition = mReaders.first(where: { unary($0, .negate) != nil }), let neg = unary(negPosition, .negate),
                  let differencePosition = mReaders.first(where: { $0 != negPosition }),
                  let difference = binary(differencePosition, .squaredDifference), other(difference, m) == x,
                  // d → MEAN (v) → ADD ε (ve) → RSQRT (r) → MUL γ (g)
                  case let dReaders = consumers(difference.output), dReaders.count == 1,
                  let variance = steps[dReaders[0]].kernel as? ReduceKernel, variance.operation == .mean,
                  variance.inputShape == mean.inputShape, variance.contiguousReduced == channels,
                  case let vReaders = consumers(variance.output), vReaders.count == 1, let add = binary(vReaders[0], .add),
                  let epsilonTensor = other(add, variance.output), let epsilon = constants.floats(epsilonTensor), epsilon.count == 1,
                  case let eReaders = consumers(add.output), eReaders.count == 1, let rsqrt = unary(eReaders[0], .reciprocalSquareRoot),
                  case let rReaders = consumers(rsqrt.output), rReaders.count == 1, let scaling = binary(rReaders[0], .multiply),
                  let gammaTensor = other(scaling, rsqrt.output), let gamma = constants.floats(gammaTensor), gamma.count == channels,
                  // g → MUL(x, g) (a) and MUL(n, g) (b) → ADD(a, b) (y)
                  case let gReaders = consumers(scaling.output), gReaders.count == 2,
                  let scaledPosition = gReaders.first(where: { binary($0, .multiply).flatMap { other($0, scaling.output) } == x }),
                  let shiftPosition = gReaders.first(where: { $0 != scaledPosition }),
                  let scaled = binary(scaledPosition, .multiply), let shift = binary(shiftPosition, .multiply),
                  other(shift, scaling.output) == neg.output, consumers(neg.output) == [shiftPosition],
                  case let aReaders = consumers(scaled.output), aReaders.count == 1, consumers(shift.output) == aReaders,
                  let sum = binary(aReaders[0], .add), Set([sum.a, sum.b]) == Set([scaled.output, shift.output]),
                  graph.shapes[sum.output] == graph.shapes[x] else { return nil }
            let kernel = LayerNormalizationKernel(input: x, output: sum.output, rows: rows, channels: channels, epsilon: epsilon[0], scale: gamma)
            return (kernel, [negPosition, differencePosition, dReaders[0], vReaders[0], eReaders[0], rReaders[0],
                             scaledPosition, shiftPosition, aReaders[0]])
        }
        var result: [Step] = [], absorbed: Set<Int> = [], removed: Set<Int> = []
        for (position, step) in steps.enumerated() where !removed.contains(position) {
            guard let (kernel, positions) = match(position), positions.allSatisfy({ $0 > position && !removed.contains($0) }) else {
                result.append(step)
                continue
            }
            result.append(Step(operatorIndex: step.operatorIndex, name: "LAYER_NORM", kernel: kernel, inputs: [kernel.input], outputs: [kernel.output]))
            removed.formUnion(positions)
            absorbed.formUnion(positions.map { steps[$0].operatorIndex })
        }
        return (result, absorbed)
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

    struct PadFusion {
        let source: Int
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
    }

    /// Zero PADs of height and width whose readers are all convolutions or depthwise convolutions: each reads the
    /// unpadded tensor and treats the padding as zeros, as its own SAME padding already does. Saves a copy
    /// of the whole activation per PAD (XNNPACK does the same). On uint8/int8 tensors "zero" is the zero point, which
    /// is what the quantized convolutions' out-of-input taps stand for — so a quantized PAD fuses when it keeps its
    /// input's scale and zero point (TFLite requires it to).
    private static func padFusions(model: TFLiteModel, subgraph: Subgraph, constants: ConstantStore)
        -> (pads: [Int: PadFusion], consumers: [Int: PadFusion]) {
        var readers: [Int: [Int]] = [:]
        for (index, op) in subgraph.operators.enumerated() {
            for tensor in op.inputs where tensor >= 0 { readers[Int(tensor), default: []].append(index) }
        }
        let graphOutputs = Set(subgraph.outputs.map(Int.init))
        var pads: [Int: PadFusion] = [:], consumers: [Int: PadFusion] = [:]
        for (index, op) in subgraph.operators.enumerated() where model.code(of: op).name == "PAD" {
            guard op.inputs.count == 2, op.outputs.count == 1, op.inputs[0] >= 0, op.inputs[1] >= 0 else { continue }
            let source = Int(op.inputs[0]), padded = Int(op.outputs[0])
            guard !constants.contains(source), !graphOutputs.contains(padded),
                  Self.padsWithZero(subgraph.tensors[source], subgraph.tensors[padded]), subgraph.tensors[source].shape.count == 4,
                  let paddings = constants.integers(Int(op.inputs[1])), paddings.count == 8,
                  paddings[0] == 0, paddings[1] == 0, paddings[6] == 0, paddings[7] == 0, paddings.allSatisfy({ $0 >= 0 }),
                  // The fused PAD never runs its own checks: its declared output must be exactly the padded input
                  // (which also bounds the paddings by the size cap the plan applied to that shape).
                  Self.isPadded(subgraph.tensors[padded].shape, from: subgraph.tensors[source].shape, by: paddings),
                  let reader = readers[padded], !reader.isEmpty, reader.allSatisfy({ $0 > index }) else { continue }
            // Every reader must take it (BlazePose's detector pads once for two depthwise convolutions).
            guard reader.allSatisfy({ position in
                let consumer = subgraph.operators[position]
                return ["CONV_2D", "DEPTHWISE_CONV_2D"].contains(model.code(of: consumer).name) && consumers[position] == nil
                    && consumer.inputs.first == Int32(padded) && !consumer.inputs.dropFirst().contains(Int32(padded))
            }) else { continue }
            let fusion = PadFusion(source: source, padding: (paddings[2], paddings[4], paddings[3], paddings[5]))
            pads[index] = fusion
            for position in reader { consumers[position] = fusion }
        }
        return (pads, consumers)
    }

    private static func isPadded(_ padded: [Int32], from source: [Int32], by paddings: [Int]) -> Bool {
        guard padded.count == source.count, paddings.count == 2 * source.count else { return false }
        return source.indices.allSatisfy { d in
            let (sum, overflow) = Int(source[d]).addingReportingOverflow(paddings[2 * d])
            let (total, overflow2) = sum.addingReportingOverflow(paddings[2 * d + 1])
            return !overflow && !overflow2 && total == Int(padded[d])
        }
    }

    private static func padsWithZero(_ source: Tensor, _ padded: Tensor) -> Bool {
        switch source.type {
        case .float32: return padded.type == .float32
        case .uint8, .int8:
            guard padded.type == source.type, let q = source.quantization, let p = padded.quantization else { return false }
            return q.scale.count == 1 && q.zeroPoint.count == 1 && q.scale == p.scale && q.zeroPoint == p.zeroPoint
        default: return false
        }
    }

    /// The static shape of tensor `index` of the main subgraph.
    public func shape(of index: Int) -> [Int] { index >= 0 && index < graph.shapes.count ? graph.shapes[index] : [] }

    /// Our kernels split work over threads themselves; OpenBLAS threading on top would oversubscribe the cores.
    static func keepBLASSingleThreaded() {
        _ = blasConfigured
    }

    private static let blasConfigured: Bool = {
        openblas_set_num_threads(1)
        return true
    }()

    /// Runs `kernel` once over constant inputs and keeps its outputs as constants.
    private static func fold(_ kernel: any Kernel, context: OperatorContext, constants: ConstantStore) throws(EngineError) {
        for output in context.outputs {
            constants.allocate(tensor: output, type: context.type(output), byteCount: context.graph.byteCount(output))
        }
        let count = context.graph.shapes.count
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
