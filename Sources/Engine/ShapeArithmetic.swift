/// Checked arithmetic for every size, stride and index the plan and the kernels' preparation compute from a model:
/// shapes, option values and constant tensors come from the file, so a product or a sum of them may overflow `Int`
/// or ask for absurd memory. Each function throws a typed ``EngineError`` naming the operator and the quantity
/// instead of trapping; the plan and every kernel's `init` use this rather than bare `*` and `+` on such values.
struct ShapeArithmetic: Sendable {
    /// The operator being prepared (nil for whole-graph checks), for the error.
    let operatorIndex: Int?
    let operatorName: String?

    /// Largest tensor (or scratch area) we plan: 2 GiB. The largest activation of the shipped models is a few tens
    /// of MB, so this is far above any real model and keeps every single buffer's byte count, and any product of
    /// two of its dimensions, well inside `Int`.
    static let maximumTensorBytes = 1 << 31

    func fail(_ reason: String) -> EngineError {
        .invalidGraph(operatorIndex: operatorIndex, reason: operatorName.map { "\($0): \(reason)" } ?? reason)
    }

    func add(_ a: Int, _ b: Int, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw fail("\(what()) overflows (\(a) + \(b))") }
        return sum
    }

    func subtract(_ a: Int, _ b: Int, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        guard !overflow else { throw fail("\(what()) overflows (\(a) − \(b))") }
        return difference
    }

    func multiply(_ a: Int, _ b: Int, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow else { throw fail("\(what()) overflows (\(a) × \(b))") }
        return product
    }

    /// The product of `factors`, each of which must be ≥ 0 (dimensions, counts).
    func product(_ factors: some Sequence<Int>, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        var result = 1
        for factor in factors {
            guard factor >= 0 else { throw fail("\(what()) has a negative factor \(factor)") }
            let (next, overflow) = result.multipliedReportingOverflow(by: factor)
            guard !overflow else { throw fail("\(what()) overflows") }
            result = next
        }
        return result
    }

    /// Row-major element strides of `shape`.
    func strides(_ shape: [Int], _ what: @autoclosure () -> String) throws(EngineError) -> [Int] {
        var strides = Array(repeating: 1, count: shape.count)
        var running = 1
        for d in stride(from: shape.count - 1, through: 0, by: -1) {
            strides[d] = running
            guard shape[d] >= 0 else { throw fail("\(what()) has a negative dimension \(shape[d])") }
            let (next, overflow) = running.multipliedReportingOverflow(by: shape[d])
            guard !overflow else { throw fail("strides of \(what()) \(shape) overflow") }
            running = next
        }
        return strides
    }

    /// The bytes of a tensor of `shape` and `elementBytes` per element, refused with ``EngineError/resourceLimit``
    /// above ``maximumTensorBytes`` and with ``EngineError/invalidGraph`` for a negative dimension.
    func tensorBytes(_ shape: [Int], elementBytes: Int, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        var bytes = elementBytes
        var overflowed = false
        for dimension in shape {
            guard dimension >= 0 else { throw fail("\(what()) has shape \(shape), with a negative dimension") }
            let (next, overflow) = bytes.multipliedReportingOverflow(by: dimension)
            if overflow { overflowed = true; break }
            bytes = next
        }
        // Overflowing on the way is refused even when a later dimension is zero: every other product of the shape
        // (GraphDescription's, the kernels' strides) multiplies in this order without checks (libFuzzer found
        // [0x7fff…, 0x7fff…, 0]-like shapes trapping the plan's constant check).
        return try limited(overflowed ? .max : bytes, "\(what()) of shape \(shape)")
    }

    /// `bytes` when it is within ``maximumTensorBytes`` (scratch areas, tables sized by options).
    func limited(_ bytes: Int, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        guard bytes <= Self.maximumTensorBytes else {
            throw .resourceLimit(what: operatorName.map { "\($0) (operator \(operatorIndex ?? -1)): \(what())" } ?? what(),
                                 bytes: bytes, limit: Self.maximumTensorBytes)
        }
        return bytes
    }

    /// `axis` counted from the end when negative, checked to lie in `0..<rank`.
    func axis(_ axis: Int, rank: Int, _ what: @autoclosure () -> String) throws(EngineError) -> Int {
        let normalized = axis < 0 ? axis + rank : axis
        guard normalized >= 0, normalized < rank else { throw fail("\(what()) \(axis) is out of range for rank \(rank)") }
        return normalized
    }
}

extension OperatorContext {
    /// Checked size arithmetic whose errors name this operator.
    var arithmetic: ShapeArithmetic { ShapeArithmetic(operatorIndex: index, operatorName: name) }
}
