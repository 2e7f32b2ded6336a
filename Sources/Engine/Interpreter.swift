import CVisionTasksFloatingPoint
import Dispatch
import VisionTasksModelFormat
import Foundation

/// Name, shape and type of a model input or output.
public struct TensorDescription: Sendable, Equatable {
    public let name: String
    public let shape: [Int]
    public let type: TensorType
    public var elementCount: Int { shape.reduce(1, *) }
}

/// Runs one ``ExecutionPlan`` with an arena of its own.
///
/// Not thread-safe: use one interpreter per thread. Interpreters made from the same plan share its weights and
/// may run concurrently. Activations live in the arena planned at load; inputs are copied in and outputs copied
/// out. `invoke` allocates nothing: kernels split their work over the shared `WorkerPool` as values, not closures,
/// and keep index counters on the stack (EngineTests counts every malloc of an invoke).
public final class Interpreter {
    public let plan: ExecutionPlan
    private let arena: UnsafeMutableRawPointer
    private let scratch: UnsafeMutableRawPointer
    private let placeholder: UnsafeMutableRawPointer
    private let addresses: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private let tensorCount: Int
    /// Threads each operator may use (its work split in as many parts).
    public let threadCount: Int

    /// An interpreter over `plan`, which it shares with any other interpreter made from it.
    /// - Parameters:
    ///   - plan: the prepared model.
    ///   - threads: threads per operator; default all cores, as LiteRT's XNNPACK does when asked.
    public init(plan: ExecutionPlan, threads: Int? = nil) {
        self.plan = plan
        threadCount = max(1, min(threads ?? ProcessInfo.processInfo.activeProcessorCount, 64))
        ExecutionPlan.keepBLASSingleThreaded()
        arena = .allocate(byteCount: max(plan.arenaBytes, 1), alignment: MemoryPlanner.alignment)
        arena.initializeMemory(as: UInt8.self, repeating: 0, count: max(plan.arenaBytes, 1))
        scratch = .allocate(byteCount: max(plan.scratchBytes, 1), alignment: MemoryPlanner.alignment)
        placeholder = .allocate(byteCount: MemoryPlanner.alignment, alignment: MemoryPlanner.alignment)
        tensorCount = plan.graph.shapes.count
        addresses = .allocate(capacity: max(tensorCount, 1))
        addresses.initialize(repeating: placeholder, count: max(tensorCount, 1))
        for (tensor, entry) in plan.constants.entries { addresses[tensor] = entry.pointer }
        for (tensor, offset) in plan.offsets { addresses[tensor] = arena + offset }
    }

    /// Prepares `model` and an interpreter for it; `memoryBudget` caps the plan's arena, scratch and folded
    /// constants (see ``ExecutionPlan/defaultMemoryBudget``).
    public convenience init(model: TFLiteModel, threads: Int? = nil,
                            memoryBudget: Int = ExecutionPlan.defaultMemoryBudget, kernels: KernelConfig = .compiled) throws(EngineError) {
        self.init(plan: try ExecutionPlan(model: model, memoryBudget: memoryBudget, kernels: kernels), threads: threads)
    }

    /// Opens a `.tflite` file, or member `member` of a `.task` bundle.
    public convenience init(path: String, member: String? = nil, threads: Int? = nil,
                            memoryBudget: Int = ExecutionPlan.defaultMemoryBudget, kernels: KernelConfig = .compiled) throws(EngineError) {
        do {
            let bundle = try TaskBundle(path: path)
            let model: TFLiteModel
            if let member {
                model = try bundle.model(member)
            } else {
                guard bundle.members.count == 1 else {
                    throw FormatError.missingBundleMember(name: "(none given)", available: bundle.memberPaths)
                }
                model = try bundle.model(bundle.members[0].path)
            }
            try self.init(model: model, threads: threads, memoryBudget: memoryBudget, kernels: kernels)
        } catch let error as EngineError {
            throw error
        } catch let error as FormatError {
            throw .format(error)
        } catch {
            throw .invalidArgument("\(error)")
        }
    }

    deinit {
        arena.deallocate()
        scratch.deallocate()
        placeholder.deallocate()
        addresses.deallocate()
    }

    private func describe(_ tensor: Int) -> TensorDescription {
        TensorDescription(name: plan.graph.names[tensor], shape: plan.graph.shapes[tensor], type: plan.graph.types[tensor])
    }

    public var inputs: [TensorDescription] { plan.inputTensors.map(describe) }
    public var outputs: [TensorDescription] { plan.outputTensors.map(describe) }

    private func inputTensor(_ index: Int) throws(EngineError) -> Int {
        guard index >= 0, index < plan.inputTensors.count else {
            throw .invalidArgument("input \(index) of \(plan.inputTensors.count)")
        }
        return plan.inputTensors[index]
    }

    private func outputTensor(_ index: Int) throws(EngineError) -> Int {
        guard index >= 0, index < plan.outputTensors.count else {
            throw .invalidArgument("output \(index) of \(plan.outputTensors.count)")
        }
        return plan.outputTensors[index]
    }

    /// Copies raw little-endian element bytes into input `index`; the count must match exactly.
    public func setInput(_ index: Int, bytes: [UInt8]) throws(EngineError) {
        let tensor = try inputTensor(index)
        try write(tensor, bytes: bytes)
    }

    /// Copies float values into float32 input `index`.
    public func setInput(_ index: Int, floats: [Float]) throws(EngineError) {
        let tensor = try inputTensor(index)
        guard plan.graph.types[tensor] == .float32 else {
            throw .invalidArgument("input \(index) is \(plan.graph.types[tensor].name), not float32")
        }
        try write(tensor, bytes: floats.withUnsafeBytes { Array($0) })
    }

    private func write(_ tensor: Int, bytes: [UInt8]) throws(EngineError) {
        let expected = plan.graph.byteCount(tensor)
        guard bytes.count == expected else {
            throw .invalidArgument("'\(plan.graph.names[tensor])' takes \(expected) bytes (shape \(plan.graph.shapes[tensor]), \(plan.graph.types[tensor].name)), got \(bytes.count)")
        }
        bytes.withUnsafeBytes { addresses[tensor].copyMemory(from: $0.baseAddress!, byteCount: expected) }
    }

    /// Lends the float32 input `index` in place, for pre-processing that writes pixels straight into it.
    package func withInputFloats<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws -> R {
        let tensor = try inputTensor(index)
        guard plan.graph.types[tensor] == .float32 else { throw EngineError.invalidArgument("input \(index) is not float32") }
        return try body(UnsafeMutableBufferPointer(
            start: addresses[tensor].assumingMemoryBound(to: Float.self), count: plan.graph.elementCount(tensor)))
    }

    /// Lends the uint8/int8 input `index` in place, for pre-processing that writes pixels straight into it.
    package func withInputBytes<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) throws -> R {
        let tensor = try inputTensor(index)
        guard plan.graph.types[tensor] == .uint8 || plan.graph.types[tensor] == .int8 else {
            throw EngineError.invalidArgument("input \(index) is not uint8 or int8")
        }
        return try body(UnsafeMutableBufferPointer(
            start: addresses[tensor].assumingMemoryBound(to: UInt8.self), count: plan.graph.elementCount(tensor)))
    }

    /// The scale and zero point of a per-tensor quantized output, or nil.
    public func outputQuantization(_ index: Int) -> (scale: Float, zeroPoint: Int32)? {
        guard index >= 0, index < plan.outputTensors.count, let q = plan.graph.quantization[plan.outputTensors[index]],
              q.scale.count == 1, q.zeroPoint.count == 1 else { return nil }
        return (q.scale[0], Int32(truncatingIfNeeded: q.zeroPoint[0]))
    }

    /// Runs every operator once.
    public func invoke() {
        withKernelFloatingPointMode { memory in
            for step in plan.steps { step.kernel.run(memory) }
        }
    }

    /// Runs `body` with denormals flushed to zero on this thread (the pool's workers always run so), restoring the
    /// caller's mode after: denormal arithmetic is many times slower on x86, and XNNPACK flushes them too.
    private func withKernelFloatingPointMode<R>(_ body: (TensorMemory) -> R) -> R {
        let mode = floating_point_flush_denormals()
        defer { floating_point_restore(mode) }
        return body(TensorMemory(addresses: UnsafePointer(addresses), scratch: scratch, parallel: Parallel(threads: threadCount)))
    }

    /// Runs every operator once, timing each: (operator name, milliseconds) in execution order. For profiling.
    public func invokeProfiled() -> [(name: String, milliseconds: Double)] {
        withKernelFloatingPointMode { memory in plan.steps.map { step in
            let start = DispatchTime.now().uptimeNanoseconds
            step.kernel.run(memory)
            return (step.name, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        } }
    }

    /// The raw bytes of output `index`.
    public func outputBytes(_ index: Int) throws(EngineError) -> [UInt8] {
        tensorBytes(try outputTensor(index))
    }

    /// Output `index` as floats (float32 outputs only).
    public func outputFloats(_ index: Int) throws(EngineError) -> [Float] {
        let tensor = try outputTensor(index)
        guard plan.graph.types[tensor] == .float32 else {
            throw .invalidArgument("output \(index) is \(plan.graph.types[tensor].name), not float32")
        }
        return Array(UnsafeBufferPointer(start: addresses[tensor].assumingMemoryBound(to: Float.self), count: plan.graph.elementCount(tensor)))
    }

    /// Output `index`'s floats in place, for `body`'s time only (float32 outputs only).
    package func withOutputFloats<R>(_ index: Int, _ body: (UnsafeBufferPointer<Float>) -> R) throws(EngineError) -> R {
        let tensor = try outputTensor(index)
        guard plan.graph.types[tensor] == .float32 else {
            throw .invalidArgument("output \(index) is \(plan.graph.types[tensor].name), not float32")
        }
        return body(UnsafeBufferPointer(start: addresses[tensor].assumingMemoryBound(to: Float.self), count: plan.graph.elementCount(tensor)))
    }

    /// The current bytes of any tensor: a constant (folded or not) or an activation. For tests and tools.
    package func tensorBytes(_ tensor: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: addresses[tensor], count: plan.graph.byteCount(tensor)))
    }

    /// Whether operator `index` was merged into the operator that reads its output (a fused PAD).
    package func isFused(_ index: Int) -> Bool { plan.fusedOperators.contains(index) }

    /// Whether `tensor` was computed at load (a constant or the output of a folded operator).
    package func isConstant(_ tensor: Int) -> Bool { plan.constants.contains(tensor) }

    /// Runs operator `operatorIndex` alone on the given input bytes (by tensor index) and returns its outputs'
    /// bytes by tensor index; nil when the operator was folded at load. For per-operator tests.
    package func runOperator(_ operatorIndex: Int, inputs: [Int: [UInt8]]) throws(EngineError) -> [Int: [UInt8]]? {
        guard let step = plan.steps.first(where: { $0.operatorIndex == operatorIndex }) else { return nil }
        for tensor in step.inputs where !plan.constants.contains(tensor) {
            guard let bytes = inputs[tensor] else {
                throw .invalidArgument("operator \(operatorIndex) needs tensor \(tensor) ('\(plan.graph.names[tensor])')")
            }
            try write(tensor, bytes: bytes)
        }
        withKernelFloatingPointMode { memory in step.kernel.run(memory) }
        var result: [Int: [UInt8]] = [:]
        for tensor in step.outputs { result[tensor] = tensorBytes(tensor) }
        return result
    }

    /// Indices of the operators that run at invoke, in order, with the tensors they read and write.
    package var runtimeOperators: [(index: Int, name: String, inputs: [Int], outputs: [Int])] {
        plan.steps.map { ($0.operatorIndex, $0.name, $0.inputs, $0.outputs) }
    }
}
