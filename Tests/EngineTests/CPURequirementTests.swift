import Foundation
import VisionTasksTestSupport
import XCTest

/// A binary built with VISION_TASKS_CPU=haswell (as the test suite is, through tools/tuned-build-env) on a CPU
/// without AVX2 and FMA: it must say so and exit, not die of SIGILL. The older CPU is qemu's Nehalem (tools/setup
/// installs qemu-user); its Haswell runs the same binary normally.
final class CPURequirementTests: XCTestCase {
    func testTunedBinaryRefusesACPUWithoutAVX2AndFMAWithAMessage() throws {
        #if arch(x86_64)
        // tools/sanitize says which sanitizer the binaries carry: qemu-user cannot give ASan or TSan the shadow memory
        // they reserve at start-up (the child dies with status 9 before our check runs), so there is nothing to test.
        if let sanitizer = ProcessInfo.processInfo.environment["VISION_TASKS_SANITIZER"] {
            throw XCTSkip("a binary built with --sanitize=\(sanitizer) does not start under qemu-user")
        }
        let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("\(binary.path) is not built: run `swift build` before `swift test` (tools/run-tests does)")
        }
        guard ProcessInfo.processInfo.environment["VISION_TASKS_CPU"] == "haswell" else {
            return XCTFail("run through tools/run-tests, which builds with VISION_TASKS_CPU=haswell")
        }
        func run(cpu: String) throws -> ChildProcess.Outcome {
            try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/qemu-x86_64"), ["-cpu", cpu, binary.path, "--help"])
        }
        let old = try run(cpu: "Nehalem")
        XCTAssertEqual(old.status, 70, old.stderr)
        XCTAssertTrue(old.stderr.contains("built for CPUs with AVX2 and FMA"), old.stderr)
        let new = try run(cpu: "Haswell")
        XCTAssertEqual(new.status, 0, new.stderr)
        XCTAssertTrue(new.output.contains("USAGE: vision-tasks"), new.output)
        #endif
    }
}
