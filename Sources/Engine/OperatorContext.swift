import VisionTasksModelFormat

/// Everything a kernel factory may look at while preparing one operator.
struct OperatorContext {
    let index: Int
    let name: String
    let op: Operator
    let inputs: [Int]
    let outputs: [Int]
    let graph: GraphDescription
    let constants: ConstantStore
    /// Zero padding of input 0 folded in from a PAD the plan removed: the kernel reads the unpadded tensor and
    /// treats these rows and columns as zeros.
    var inputPadding: (top: Int, left: Int, bottom: Int, right: Int)? = nil
    /// The micro-kernels to choose (the build's tier unless the plan was given another).
    var kernels: KernelConfig = .compiled

    var options: BuiltinOptions { op.builtinOptions }

    func fail(_ reason: String) -> EngineError { .invalidGraph(operatorIndex: index, reason: "\(name): \(reason)") }

    func unsupported(_ reason: String) -> EngineError {
        .unsupportedOperator(name: name, operatorIndex: index, reason: reason)
    }

    /// Tensor index of input `i`; throws when the input is missing or optional-absent.
    func input(_ i: Int) throws(EngineError) -> Int {
        guard i < inputs.count, inputs[i] >= 0 else { throw fail("input \(i) is missing") }
        return inputs[i]
    }

    func output(_ i: Int) throws(EngineError) -> Int {
        guard i < outputs.count else { throw fail("output \(i) is missing") }
        return outputs[i]
    }

    /// Whether optional input `i` is present.
    func hasInput(_ i: Int) -> Bool { i < inputs.count && inputs[i] >= 0 }

    func shape(_ tensor: Int) -> [Int] { graph.shapes[tensor] }
    func type(_ tensor: Int) -> TensorType { graph.types[tensor] }

    func requireFloat(_ tensors: [Int]) throws(EngineError) {
        for tensor in tensors where graph.types[tensor] != .float32 {
            throw unsupported("\(graph.types[tensor].name) tensor '\(graph.names[tensor])' (float32 kernels only)")
        }
    }

    /// Operators that move elements (TRANSPOSE, UNPACK, …) copy the input's element size into every output: an
    /// output of another type (a float16 output of a float32 TRANSPOSE) would be written past its end.
    func requireSameType(_ tensors: [Int], as source: Int) throws(EngineError) {
        for tensor in tensors where graph.types[tensor] != graph.types[source] {
            throw fail("'\(graph.names[tensor])' is \(graph.types[tensor].name), '\(graph.names[source])' is \(graph.types[source].name)")
        }
    }

    /// A constant input's values as Float; throws when the input is not constant.
    func constantFloats(_ i: Int) throws(EngineError) -> [Float] {
        let tensor = try input(i)
        guard let values = constants.floats(tensor) else { throw unsupported("input \(i) must be a constant float tensor") }
        return values
    }

    func constantIntegers(_ i: Int) throws(EngineError) -> [Int] {
        let tensor = try input(i)
        guard let values = constants.integers(tensor) else { throw unsupported("input \(i) must be a constant integer tensor") }
        return values
    }

    func isConstant(_ tensor: Int) -> Bool { constants.contains(tensor) }

    /// Checks that a shape the kernel computed is the one the model declares for its output.
    func expect(_ shape: [Int], forOutput i: Int) throws(EngineError) {
        let tensor = try output(i)
        let declared = graph.shapes[tensor]
        // The computed shape comes from options and constants: through the per-tensor cap before it is compared.
        let bytes = try arithmetic.tensorBytes(shape, elementBytes: graph.types[tensor].byteSize ?? 1, "output '\(graph.names[tensor])'")
        guard bytes == graph.byteCount(tensor), declared.filter({ $0 != 1 }) == shape.filter({ $0 != 1 }) else {
            throw fail("output shape \(declared) but the inputs give \(shape)")
        }
    }
}

/// Static facts about the tensors of the subgraph being planned.
struct GraphDescription: Sendable {
    var shapes: [[Int]]
    var types: [TensorType]
    var names: [String]
    var quantization: [QuantizationParameters?]
    var sparsity: [SparsityParameters?]

    /// Unchecked: the plan refuses every shape (given or computed) whose bytes exceed the per-tensor cap before it
    /// enters `shapes`, so these products cannot overflow.
    func elementCount(_ tensor: Int) -> Int { shapes[tensor].reduce(1, *) }

    func byteCount(_ tensor: Int) -> Int { elementCount(tensor) * (types[tensor].byteSize ?? 1) }
}
