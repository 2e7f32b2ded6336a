import VisionTasksModelFormat

/// A float convolution (or depthwise convolution) takes as its ``Epilogue`` what follows it in a chain of single
/// readers: a residual ADD, then a standalone RELU / RELU6 / RELU_N1_TO_1 (when the ADD has no activation of its
/// own), then a per-channel PReLU, then (CONV_2D only) a TANH or a SiLU (a LOGISTIC and the MUL of its input by
/// it) — any of them, in that order — and writes the chain's last output instead.
/// The ADD's other input must exist when the convolution runs: written by an earlier node, a graph input, or
/// written by a node that only reads earlier tensors (BlazeFace's channel-padding PAD of the residual, which
/// the converter placed after the convolution), which then moves to just before the convolution. Tensors in
/// the chain must not be graph outputs. A regular convolution's ADD may also take a residual that a PAD of zero
/// channels widened, read by nothing else: the epilogue adds the PAD's input to the first channels and the PAD
/// goes (its input, like the ADD's, may move from after the convolution to before it).
///
/// Runs after ``ConstantFolding``: PReLU slopes come out of DEQUANTIZE operators that may follow the convolution.
enum EpilogueFusion {
    static func run(_ plan: inout PlanGraph) {
        let nodes = plan.nodes, graph = plan.tensors, constants = plan.constants
        let readers = plan.readers()
        var producer: [Int: Int] = [:]
        for (position, node) in nodes.enumerated() {
            for tensor in node.outputs { producer[tensor] = position }
        }
        func onlyReader(_ tensor: Int) -> Int? { plan.onlyReader(of: tensor, readers: readers) }
        /// SiLU after `tensor`: its only readers a LOGISTIC of it and a MUL of it by the LOGISTIC's output (either
        /// order: a float product is the same either way), the LOGISTIC's output read by the MUL alone, every shape
        /// `shape`, the MUL without an activation of its own.
        func swishPair(after tensor: Int, shape: [Int]) -> (positions: [Int], output: Int)? {
            guard !plan.outputs.contains(tensor), let both = readers[tensor], both.count == 2 else { return nil }
            let (first, second) = (both[0], both[1])
            guard let logistic = single(first, .logistic), logistic.input(0) == tensor, let sigmoid = logistic.output,
                  graph.shapes[sigmoid] == shape, onlyReader(sigmoid) == second, let multiply = single(second, .mul),
                  let a = multiply.input(0), let b = multiply.input(1), Set([a, b]) == Set([tensor, sigmoid]),
                  let output = multiply.output, graph.shapes[output] == shape, fusedActivation(multiply) == Activation.none
            else { return nil }
            return ([first, second], output)
        }
        /// The single operator at `position` when it runs the float kernel of `builtin`.
        func single(_ position: Int, _ builtin: BuiltinOperator) -> PlanOperator? {
            guard let op = nodes[position].single, op.runsFloat(builtin, in: graph), op.output != nil else { return nil }
            return op
        }
        /// Whether `tensor` can be read at `position`, and which later node must move before it for that.
        func available(_ tensor: Int, at position: Int, moved: Set<Int>) -> (ok: Bool, move: Int?) {
            guard let writer = producer[tensor], writer > position else { return (true, nil) }
            let node = nodes[writer]
            guard !moved.contains(writer), !isFusable(node, graph), node.outputs == [tensor],
                  node.inputs.allSatisfy({ producer[$0].map { $0 < position } ?? true }) else { return (false, nil) }
            return (true, writer)
        }
        var result = nodes
        var removed: Set<Int> = [], moved: Set<Int> = [], movedBefore: [Int: Int] = [:]
        for (position, node) in nodes.enumerated() {
            guard let convolution = node.single, isFusable(node, graph), acceptsEpilogue(convolution), let output = convolution.output else { continue }
            var tensor = output
            let shape = graph.shapes[tensor]
            var epilogue = Epilogue()
            var positions: [Int] = [], extraInputs: [Int] = [], move: Int?
            if let next = onlyReader(tensor), let add = single(next, .add), let a = add.input(0), let b = add.input(1),
               let activation = fusedActivation(add), activation != .tanh {
                let other = a == tensor ? b : a
                let availability = available(other, at: position, moved: moved)
                if convolution.runsFloat(.conv2D, in: graph), other != tensor, graph.shapes[add.outputs[0]] == shape,
                   let padPosition = producer[other], !moved.contains(padPosition), onlyReader(other) == next,
                   let pad = zeroChannelPad(nodes[padPosition], graph, constants), pad.outputShape == shape,
                   !constants.contains(pad.input), case let source = available(pad.input, at: position, moved: moved), source.ok {
                    // The residual is widened by a PAD of zero channels: add its input to the first channels instead
                    // (BlazeFace's 11 PADs copied 0.13 ms of activations per invoke).
                    epilogue.addend = pad.input
                    epilogue.addendChannels = graph.shapes[pad.input].last
                    epilogue.clamp = activation
                    (tensor, positions, extraInputs, move) = (add.outputs[0], [padPosition, next], [pad.input], source.move)
                } else if other != tensor, !constants.contains(other), graph.shapes[other] == shape, graph.shapes[add.outputs[0]] == shape,
                          availability.ok {
                    epilogue.addend = other
                    epilogue.clamp = activation
                    (tensor, positions, extraInputs, move) = (add.outputs[0], [next], [other], availability.move)
                }
            }
            if epilogue.clamp == .none, let next = onlyReader(tensor), let unary = nodes[next].single, unary.input(0) != nil,
               let output = unary.output, graph.shapes[output] == shape {
                for (builtin, clamp) in [(BuiltinOperator.relu, Activation.relu), (.relu6, .relu6), (.reluN1To1, .reluMinus1To1)]
                where unary.runsFloat(builtin, in: graph) {
                    epilogue.clamp = clamp
                    (tensor, positions) = (output, positions + [next])
                }
            }
            if let next = onlyReader(tensor), let prelu = single(next, .prelu), prelu.input(0) == tensor, let slopes = prelu.input(1),
               let channels = shape.last, graph.shapes[slopes].last == channels, graph.elementCount(slopes) == channels,
               graph.shapes[prelu.outputs[0]] == shape, let alpha = constants.floats(slopes) {
                // Zeros past the last channel: the GEMM tiles load slopes for whole panels of 16.
                let padding = (PackedGEMM.panelWidth - channels % PackedGEMM.panelWidth) % PackedGEMM.panelWidth
                epilogue.alpha = alpha + Array(repeating: 0, count: padding)
                (tensor, positions) = (prelu.outputs[0], positions + [next])
            }
            if convolution.runsFloat(.conv2D, in: graph), let next = onlyReader(tensor), let tanh = single(next, .tanh),
               tanh.input(0) == tensor, let output = tanh.output, graph.shapes[output] == shape {
                epilogue.function = .tanh
                (tensor, positions) = (output, positions + [next])
            } else if convolution.runsFloat(.conv2D, in: graph), let swish = swishPair(after: tensor, shape: shape) {
                epilogue.function = .swish
                (tensor, positions) = (swish.output, positions + swish.positions)
            }
            guard !positions.isEmpty else { continue }
            result[position] = PlanNode(fusing: [convolution] + positions.map { nodes[$0].operators[0] },
                                        as: .epilogue(epilogue, output: tensor), inputs: node.inputs + extraInputs, outputs: [tensor])
            removed.formUnion(positions)
            if let move {
                moved.insert(move)
                movedBefore[position] = move
            }
        }
        var ordered: [PlanNode] = []
        for position in result.indices where !removed.contains(position) && !moved.contains(position) {
            if let move = movedBefore[position] { ordered.append(result[move]) }
            ordered.append(result[position])
        }
        plan.nodes = ordered
    }

    /// Whether the node's kernel will be a float convolution, which takes an epilogue: CONV_2D, DEPTHWISE_CONV_2D, or
    /// MediaPipe's transposed convolution (the hair model follows each of its five with a PReLU).
    private static func isFusable(_ node: PlanNode, _ graph: GraphDescription) -> Bool {
        guard let op = node.single else { return false }
        return op.runsFloat(.conv2D, in: graph) || op.runsFloat(.depthwiseConv2D, in: graph) || isTransposeConvolution(op, graph)
    }

    private static func isTransposeConvolution(_ op: PlanOperator, _ graph: GraphDescription) -> Bool {
        guard op.code.builtin == .custom, op.code.customCode == "Convolution2DTransposeBias", let first = op.inputs.first, first >= 0 else {
            return false
        }
        return graph.types[first] == .float32
    }

    /// The convolution's own tanh runs in a pass after the tiles, where the epilogue would already have run; a
    /// depthwise convolution applies it per row, before its epilogue; the transposed convolution has no activation.
    private static func acceptsEpilogue(_ op: PlanOperator) -> Bool {
        guard case let .conv2D(options) = op.options else { return op.code.builtin == .depthwiseConv2D || op.code.builtin == .custom }
        return options.activation != .tanh
    }

    /// The ADD's fused activation; nil for one no kernel takes (its kernel refuses the model).
    private static func fusedActivation(_ add: PlanOperator) -> Activation? {
        try? Activation(ElementwiseBinaryKernel.fusedActivation(add.options), operatorIndex: add.index, name: add.name)
    }

    /// A float PAD (or PADV2 of zero) that only appends zeros after the last dimension's values — a channel widening
    /// of NHWC — as ``PadKernel`` would compute it: its input and padded shape.
    private static func zeroChannelPad(_ node: PlanNode, _ graph: GraphDescription, _ constants: ConstantStore)
        -> (input: Int, outputShape: [Int])? {
        guard let op = node.single, op.runsFloat(.pad, in: graph) || op.runsFloat(.padV2, in: graph),
              let input = op.input(0), op.output != nil, let paddingTensor = op.input(1),
              let paddings = constants.integers(paddingTensor) else { return nil }
        if let value = op.input(2), constants.floats(value)?.first ?? 0 != 0 { return nil }
        let inputShape = graph.shapes[input]
        guard paddings.count == 2 * inputShape.count, paddings.allSatisfy({ $0 >= 0 }) else { return nil }
        var outputShape: [Int] = []
        for d in inputShape.indices {
            let (widened, overflow) = inputShape[d].addingReportingOverflow(paddings[2 * d])
            let (padded, overflow2) = widened.addingReportingOverflow(paddings[2 * d + 1])
            guard !overflow, !overflow2, paddings[2 * d] == 0 else { return nil }
            outputShape.append(padded)
        }
        guard let channels = inputShape.last, channels > 0, inputShape.dropLast() == outputShape.dropLast() else { return nil }
        return (input, outputShape)
    }
}
