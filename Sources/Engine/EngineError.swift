import VisionTasksModelFormat

/// Why a model cannot be prepared or run.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The model file itself is damaged.
    case format(FormatError)
    /// The model uses an operator (or a variant of one) we do not implement; names it and where.
    case unsupportedOperator(name: String, operatorIndex: Int, reason: String)
    /// The graph is inconsistent: shapes that do not fit the operator, missing tensors, cycles.
    case invalidGraph(operatorIndex: Int?, reason: String)
    /// The model has no subgraph, or a tensor with a dynamic shape we cannot plan.
    case unsupportedModel(reason: String)
    /// A quantized tensor's scales or zero points cannot be right: a scale that is zero, negative or not finite, a
    /// zero point outside its type, per-channel parameters that do not fit the axis they name.
    case invalidQuantization(tensor: String, reason: String)
    /// A caller handed an input of the wrong size or type, or an index that does not exist.
    case invalidArgument(String)
    /// Preparing or running the model would take more memory than allowed: `what` names the tensor, scratch area
    /// or arena, `bytes` is what it needs (`Int.max` when the size does not even fit in an `Int`), `limit` the cap.
    case resourceLimit(what: String, bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case let .format(error): return "\(error)"
        case let .unsupportedOperator(name, index, reason): return "unsupported operator \(name) (operator \(index)): \(reason)"
        case let .invalidGraph(index, reason):
            return index.map { "invalid graph at operator \($0): \(reason)" } ?? "invalid graph: \(reason)"
        case let .unsupportedModel(reason): return "unsupported model: \(reason)"
        case let .invalidQuantization(tensor, reason): return "invalid quantization of tensor '\(tensor)': \(reason)"
        case let .invalidArgument(reason): return "invalid argument: \(reason)"
        case let .resourceLimit(what, bytes, limit):
            let size = bytes == .max ? "more bytes than an Int can count" : "\(bytes) bytes"
            return "resource limit: \(what) needs \(size), more than the limit of \(limit) bytes"
        }
    }
}
