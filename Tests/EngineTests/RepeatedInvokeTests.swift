import VisionTasksEngine
import VisionTasksModelFormat
import XCTest

/// Inputs set once stay valid for any number of invokes (LiteRT keeps graph inputs out of the arena's reuse;
/// an early plan of ours let later activations overwrite them).
final class RepeatedInvokeTests: XCTestCase {
    func testRepeatedInvokesGiveTheSameOutputs() throws {
        for (name, model) in try AllocationTests.runnableModels() {
            let interpreter = try Interpreter(model: model, threads: 2)
            try AllocationTests.fillInputs(interpreter, seed: 3)
            interpreter.invoke()
            let first = try (0..<interpreter.outputs.count).map { try interpreter.outputBytes($0) }
            interpreter.invoke()
            let second = try (0..<interpreter.outputs.count).map { try interpreter.outputBytes($0) }
            XCTAssertEqual(first, second, name)
        }
    }
}

/// Two threads split every operator differently from one (slices of rows, panels or channel blocks), but each
/// output value is computed the same way wherever it runs, so the outputs must be identical, bit for bit. A race,
/// or a slice computed twice or never, shows up here.
final class ThreadCountTests: XCTestCase {
    func testTwoThreadsGiveTheOutputsOfOne() throws {
        for (name, model) in try AllocationTests.runnableModels() {
            var outputs: [[[UInt8]]] = []
            for threads in [1, 2] {
                let interpreter = try Interpreter(model: model, threads: threads)
                try AllocationTests.fillInputs(interpreter, seed: 5)
                for _ in 0..<3 { interpreter.invoke() }
                outputs.append(try (0..<interpreter.outputs.count).map { try interpreter.outputBytes($0) })
            }
            XCTAssertEqual(outputs[0], outputs[1], name)
        }
    }

    /// The same for the kernels of a build without optimization (a dependent's debug build: every float
    /// convolution's product through OpenBLAS, whose sums depend on how many rows a call gets) and of the portable
    /// tier (a plain build on a CPU without AVX2, or `VISION_TASKS_KERNEL_TIER=portable`; OpenBLAS too where that
    /// build's own tiles are slow): at one and two threads they differed on every float model with a 3 × 3
    /// convolution until each sgemm call got the same rows at any thread count.
    func testTwoThreadsGiveTheOutputsOfOneWithoutOptimizationAndInThePortableTier() throws {
        // The portable tier's Swift tiles only where this module is optimized (every build but a plain debug one,
        // where generic SIMD runs hundreds of times slower: KernelConfig.compiledWithoutOptimization).
        let configs = [KernelConfig.withoutOptimization(tier: KernelConfig.compiledTier)]
            + (KernelConfig.compiledWithoutOptimization ? [] : [KernelConfig(tier: .portable)])
        for (name, model) in try AllocationTests.runnableModels() {
            for kernels in configs {
                var outputs: [[[UInt8]]] = []
                for threads in [1, 2] {
                    let interpreter = try Interpreter(plan: try ExecutionPlan(model: model, kernels: kernels), threads: threads)
                    try AllocationTests.fillInputs(interpreter, seed: 5)
                    interpreter.invoke()
                    outputs.append(try (0..<interpreter.outputs.count).map { try interpreter.outputBytes($0) })
                }
                XCTAssertEqual(outputs[0], outputs[1], "\(name) (\(kernels.floatGEMM), \(kernels.tier))")
            }
        }
    }
}
