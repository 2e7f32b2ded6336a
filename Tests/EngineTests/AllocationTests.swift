import VisionTasksAllocationCounter
import Dispatch
import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// Issue #3: after warm-up an invoke allocates nothing, on one thread or several. Every malloc of the process
/// is counted (our interposer in Tests/Support/AllocationCounter), the worker pool's threads included.
final class AllocationTests: XCTestCase {
    /// Every model member of the bundles and files we ship that the engine runs (float and quantized).
    static func runnableModels() throws -> [(name: String, model: TFLiteModel)] {
        var result: [(String, TFLiteModel)] = []
        for file in try Repository.modelFiles() {
            let bundle = try TaskBundle(path: Repository.modelPath(file))
            for member in bundle.members where member.path.hasSuffix(".tflite") || bundle.members.count == 1 {
                guard let model = try? bundle.model(member.path), (try? ExecutionPlan(model: model)) != nil else { continue }
                result.append(("\(file)#\(member.path)", model))
            }
        }
        return result
    }

    /// Deterministic values in [0, 1) for every float input and bytes for every uint8/int8 one, so that
    /// data-dependent paths (the detector's post-processing) run as on real data.
    static func fillInputs(_ interpreter: Interpreter, seed: UInt64) throws {
        var state = seed
        for (index, input) in interpreter.inputs.enumerated() where input.type == .uint8 || input.type == .int8 {
            let bytes = (0..<input.elementCount).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            try interpreter.setInput(index, bytes: bytes)
        }
        for (index, input) in interpreter.inputs.enumerated() where input.type == .float32 {
            let values = (0..<input.elementCount).map { _ -> Float in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Float(state >> 40) / Float(1 << 24)
            }
            try interpreter.setInput(index, floats: values)
        }
    }

    func testInvokeAllocatesNothingAfterWarmUp() throws {
        guard allocation_counter_is_available() != 0 else { throw XCTSkip("allocation counting needs glibc and no sanitizer") }
        let models = try Self.runnableModels()
        print("allocation check over \(models.count) models: \(models.map(\.name).joined(separator: ", "))")
        // At least the 11 float models the goldens cover (pose, face, hand, gesture, selfie) and the 4 quantized ones.
        XCTAssertGreaterThanOrEqual(models.count, 15, "\(models.map(\.name))")
        for (name, model) in models {
            for threads in [1, 2] {
                let interpreter = try Interpreter(model: model, threads: threads)
                try Self.fillInputs(interpreter, seed: 7)
                interpreter.invoke()
                interpreter.invoke()
                allocation_counter_start()
                for _ in 0..<3 { interpreter.invoke() }
                let allocations = allocation_counter_stop()
                XCTAssertEqual(allocations, 0, "\(name) at \(threads) threads: \(allocations) allocations in 3 invokes")
            }
        }
    }

    /// The counter itself counts: a test of zero would otherwise pass with a broken interposer.
    func testCounterSeesAllocations() throws {
        guard allocation_counter_is_available() != 0 else { throw XCTSkip("allocation counting needs glibc and no sanitizer") }
        allocation_counter_start()
        let array = (0..<1000).map { [$0] }
        let allocations = allocation_counter_stop()
        XCTAssertEqual(array.count, 1000)
        XCTAssertGreaterThanOrEqual(allocations, 1000)
    }
}
