import CBLAS
import Format

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
    static let maximumTensorBytes = 1 << 31

    public init(model: TFLiteModel) throws(EngineError) {
        guard let subgraph = model.subgraphs.first else { throw .unsupportedModel(reason: "the model has no subgraph") }
        var graph = GraphDescription(shapes: [], types: [], names: [], quantization: [], sparsity: [])
        for tensor in subgraph.tensors {
            guard let count = tensor.elementCount,
                  count.multipliedReportingOverflow(by: tensor.type.byteSize ?? 1).partialValue <= Self.maximumTensorBytes,
                  count <= Self.maximumTensorBytes else {
                throw .unsupportedModel(reason: "tensor '\(tensor.name)' has shape \(tensor.shape)")
            }
            if tensor.isVariable { throw .unsupportedModel(reason: "variable tensor '\(tensor.name)'") }
            graph.shapes.append(tensor.shape.map(Int.init))
            graph.types.append(tensor.type)
            graph.names.append(tensor.name)
            graph.quantization.append(tensor.quantization)
            graph.sparsity.append(tensor.sparsity)
        }
        let constants = ConstantStore()
        for (index, tensor) in subgraph.tensors.enumerated() {
            let data = model.data(of: tensor)
            guard !data.isEmpty else { continue }
            if tensor.sparsity == nil, data.count != graph.byteCount(index) {
                throw .invalidGraph(operatorIndex: nil, reason: "constant '\(tensor.name)' holds \(data.count) bytes, its shape needs \(graph.byteCount(index))")
            }
            constants.store(tensor: index, type: tensor.type, bytes: data)
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
            let kernel = try KernelRegistry.make(context, code: code)
            let present = context.inputs.filter { $0 >= 0 }
            if !present.isEmpty, present.allSatisfy(constants.contains) {
                try Self.fold(kernel, context: context, constants: constants)
                folded += 1
            } else {
                scratch = max(scratch, kernel.scratchBytes)
                steps.append(Step(operatorIndex: index, name: code.name, kernel: kernel, inputs: present, outputs: context.outputs))
            }
        }

        // Lifetimes of the activations: graph inputs from the start, outputs to the end.
        let inputs = subgraph.inputs.map(Int.init), outputs = subgraph.outputs.map(Int.init)
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

    /// Operators merged into the operator after them (zero PADs read through by a convolution).
    let fusedOperators: Set<Int>

    struct PadFusion {
        let source: Int
        let padding: (top: Int, left: Int, bottom: Int, right: Int)
    }

    /// Zero PADs of height and width whose only reader is a convolution or depthwise convolution: the consumer
    /// reads the unpadded tensor and treats the padding as zeros, as its own SAME padding already does. Saves a copy
    /// of the whole activation per PAD (XNNPACK does the same).
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
                  subgraph.tensors[source].type == .float32, subgraph.tensors[source].shape.count == 4,
                  let paddings = constants.integers(Int(op.inputs[1])), paddings.count == 8,
                  paddings[0] == 0, paddings[1] == 0, paddings[6] == 0, paddings[7] == 0, paddings.allSatisfy({ $0 >= 0 }),
                  let reader = readers[padded], reader.count == 1, reader[0] > index else { continue }
            let consumer = subgraph.operators[reader[0]]
            guard ["CONV_2D", "DEPTHWISE_CONV_2D"].contains(model.code(of: consumer).name),
                  consumer.inputs.first == Int32(padded), !consumer.inputs.dropFirst().contains(Int32(padded)) else { continue }
            let fusion = PadFusion(source: source, padding: (paddings[2], paddings[4], paddings[3], paddings[5]))
            pads[index] = fusion
            consumers[reader[0]] = fusion
        }
        return (pads, consumers)
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
