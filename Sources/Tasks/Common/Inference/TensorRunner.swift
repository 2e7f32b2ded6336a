import Dispatch
import VisionTasksEngine
import VisionTasksModelFormat

/// Where a task's time goes, accumulated over calls (for `bench`).
package struct StageTimings: Sendable {
    package var preprocessing: Double = 0
    package var inference: Double = 0
    package var postprocessing: Double = 0
    package var calls = 0

    package init() {}
}

@inline(__always) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Post-processing time of a stage that may run off the pipeline's thread (a live stream's later stages run on its
/// delivery queue): its own lock.
final class PostprocessingClock: Sendable {
    private let timings = Locked(StageTimings())

    func measure<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let start = now()
        defer {
            let elapsed = Double(now() - start) / 1e6
            timings.withLock { $0.postprocessing += elapsed; $0.calls += 1 }
        }
        return try body()
    }

    var value: StageTimings { timings.withLock { $0 } }
}

/// One model of a task: its interpreter, its metadata and the time spent on it. Tasks fill its inputs — from an
/// image through ``ImageInput``, or from other tensors (blendshapes and gestures take landmarks) — run it and read
/// its outputs.
final class TensorRunner {
    var timings = StageTimings()
    let interpreter: Interpreter
    /// The model's TFLite metadata, when it has any.
    let metadata: ModelMetadata?
    let member: String

    /// Loads `member` of `bundle`. Damaged metadata is an error, not silence: a model whose normalization or labels
    /// cannot be read would otherwise run with the wrong ones.
    /// - Parameter threads: threads per operator; nil for every core.
    init(bundle: TaskBundle, member: String, threads: Int?) throws(VisionTaskError) {
        let model: TFLiteModel
        do { model = try bundle.model(member) } catch { throw .model(error) }
        do { metadata = try model.modelMetadata() } catch { throw .model(error) }
        do { interpreter = try Interpreter(model: model, threads: threads) } catch { throw .engine(error) }
        self.member = member
        self.threads = threads
    }

    /// The task's thread limit, for its pre-processing too.
    let threads: Int?

    /// Fills float input `index` in place; `body`'s time counts as pre-processing.
    func withInputFloats<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws(VisionTaskError) -> R {
        try timedInput { try interpreter.withInputFloats(index, body) }
    }

    /// Fills uint8 input `index` in place; `body`'s time counts as pre-processing.
    func withInputBytes<R>(_ index: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) throws(VisionTaskError) -> R {
        try timedInput { try interpreter.withInputBytes(index, body) }
    }

    /// Times filling an input, with its errors as the task's.
    private func timedInput<R>(_ fill: () throws -> R) throws(VisionTaskError) -> R {
        let start = now()
        defer { timings.preprocessing += Double(now() - start) / 1e6 }
        do {
            return try fill()
        } catch let error as VisionTaskError {
            throw error
        } catch let error as ImageError {
            throw .image(error)
        } catch let error as EngineError {
            throw .engine(error)
        } catch {
            throw .wrongModel("\(member): \(error)")
        }
    }

    /// Output `index` as floats: float32 as they are, uint8/int8 dequantized as MediaPipe's
    /// TensorsDequantizationCalculator does (scale × (q − zero point), in float).
    func dequantizedOutput(_ index: Int) throws(VisionTaskError) -> [Float] {
        let description = interpreter.outputs[index]
        guard description.type == .uint8 || description.type == .int8 else { return try output(index) }
        let bytes: [UInt8]
        do { bytes = try interpreter.outputBytes(index) } catch { throw .engine(error) }
        guard let (scale, zeroPoint) = interpreter.outputQuantization(index) else {
            throw .wrongModel("\(member): output \(index) is \(description.type.name) without a scale and zero point")
        }
        let signed = description.type == .int8
        return bytes.map { scale * Float((signed ? Int32(Int8(bitPattern: $0)) : Int32($0)) - zeroPoint) }
    }

    /// ``dequantizedOutput(_:)`` into `values`, whose memory is reused when it is large enough (a segmentation
    /// model's output is megabytes a frame).
    func dequantizedOutput(_ index: Int, into values: inout [Float]) throws(VisionTaskError) {
        let description = interpreter.outputs[index]
        guard description.type == .uint8 || description.type == .int8 else {
            do {
                try interpreter.withOutputFloats(index) { floats in
                    values.removeAll(keepingCapacity: true)
                    values.append(contentsOf: floats)
                }
            } catch { throw .engine(error) }
            return
        }
        values = try dequantizedOutput(index)
    }

    func invoke() {
        let start = now()
        interpreter.invoke()
        timings.inference += Double(now() - start) / 1e6
        timings.calls += 1
    }

    func output(_ index: Int) throws(VisionTaskError) -> [Float] {
        do { return try interpreter.outputFloats(index) } catch { throw .engine(error) }
    }
}
