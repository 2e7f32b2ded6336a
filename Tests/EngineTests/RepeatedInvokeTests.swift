import Engine
import Format
import XCTest

/// Inputs set once stay valid for any number of invokes (LiteRT keeps graph inputs out of the arena's reuse;
/// an early plan of ours let later activations overwrite them).
final class RepeatedInvokeTests: XCTestCase {
    func testRepeatedInvokesGiveTheSameOutputs() throws {
        for (name, model) in try AllocationTests.runnableModels() {
            let interpreter = try Interpreter(model: model, threads: 2)
            try AllocationTests.fillInputs(interpreter, seed: 3)
            interpreter.invoke()
            let first = try (0..<interpreter.outputs.count).map { try interpreter.outputFloats($0) }
            interpreter.invoke()
            let second = try (0..<interpreter.outputs.count).map { try interpreter.outputFloats($0) }
            XCTAssertEqual(first, second, name)
        }
    }
}
