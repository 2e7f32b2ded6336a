import Dispatch
import Foundation
import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// Interpreters on different threads share one worker pool: whoever finds it busy runs its parts alone. The
/// results must not depend on who ran what.
final class WorkerPoolTests: XCTestCase {
    func testConcurrentInterpretersMatchALoneRun() throws {
        let bundle = try TaskBundle(path: Repository.modelPath("pose_landmarker_lite.task"))
        let plan = try ExecutionPlan(model: try bundle.model("pose_detector.tflite"))
        let lone = Interpreter(plan: plan, threads: 2)
        try AllocationTests.fillInputs(lone, seed: 11)
        lone.invoke()
        let expected = try (0..<lone.outputs.count).map { try lone.outputFloats($0) }

        // Each interpreter is used by one thread only, as its documentation asks.
        nonisolated(unsafe) let interpreters = (0..<2).map { _ in Interpreter(plan: plan, threads: 2) }
        for interpreter in interpreters { try AllocationTests.fillInputs(interpreter, seed: 11) }
        let mismatches = Counter()
        DispatchQueue.concurrentPerform(iterations: 2) { which in
            let interpreter = interpreters[which]
            for _ in 0..<15 {
                interpreter.invoke()
                for (index, values) in expected.enumerated() where (try? interpreter.outputFloats(index)) != values {
                    mismatches.increment()
                }
            }
        }
        XCTAssertEqual(mismatches.value, 0, "outputs of concurrent runs differ from a lone run")
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
