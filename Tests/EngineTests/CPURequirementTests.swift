import Foundation
import VisionTasksEngine
import VisionTasksTestSupport
import XCTest

/// A binary built for a kernel tier (VISION_TASKS_CPU, as the test suite is through tools/tuned-build-env: haswell for
/// AVX2 + FMA, or skylake-avx512 / znver4 / … on a host with AVX-512) on a CPU without that tier's instructions: it
/// must say so and exit, not die of SIGILL. The older CPUs are qemu's (tools/setup installs qemu-user): its Nehalem
/// has no AVX2, its Haswell has AVX2 and FMA and runs an AVX2-tier binary normally — and, as qemu emulates no
/// AVX-512, is itself a CPU an AVX-512 tier binary must refuse.
final class CPURequirementTests: XCTestCase {
    /// The tier a target CPU name gives, by Package.swift's lists (avx512Targets, avx512VNNITargets; every other x86
    /// name run-tests uses is in its fmaTargets), and the words the start-up check names it by
    /// (CVisionTasksFloatingPoint/floating_point_mode.c).
    enum Tier: String {
        case avx2 = "built for CPUs with AVX2 and FMA"
        case avx512 = "built for the AVX-512 tier"
        case avx512VNNI = "built for the AVX-512 VNNI tier"

        init(targetCPU: String) {
            switch targetCPU {
            case "skylake-avx512": self = .avx512
            case "cascadelake", "icelake-server", "sapphirerapids", "znver4", "znver5": self = .avx512VNNI
            default: self = .avx2
            }
        }
    }

    func testTunedBinaryRefusesACPUWithoutItsTierWithAMessage() throws {
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
        guard let targetCPU = ProcessInfo.processInfo.environment["VISION_TASKS_CPU"], targetCPU != "generic" else {
            return XCTFail("run through tools/run-tests, which builds for this CPU's tier (tools/tuned-build-env)")
        }
        let tier = Tier(targetCPU: targetCPU)
        func run(cpu: String) throws -> ChildProcess.Outcome {
            try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/qemu-x86_64"), ["-cpu", cpu, binary.path, "--help"])
        }
        let old = try run(cpu: "Nehalem")
        XCTAssertEqual(old.status, 70, old.stderr)
        XCTAssertTrue(old.stderr.contains(tier.rawValue), old.stderr)
        XCTAssertTrue(old.stderr.contains("missing: avx2 fma"), old.stderr)
        let haswell = try run(cpu: "Haswell")
        if tier == .avx2 {
            XCTAssertEqual(haswell.status, 0, haswell.stderr)
            XCTAssertTrue(haswell.output.contains("USAGE: vision-tasks"), haswell.output)
        } else {
            XCTAssertEqual(haswell.status, 70, haswell.stderr)
            XCTAssertTrue(haswell.stderr.contains(tier.rawValue), haswell.stderr)
            XCTAssertTrue(haswell.stderr.contains("missing: avx512f avx512bw avx512dq avx512vl"), haswell.stderr)
        }
        #elseif arch(arm64)
        // Under tools/arm64 the tests run in an arm64 root on qemu-user, which that tool copies in: its cortex-a72 is
        // ARMv8.0 (a Raspberry Pi 4), its cortex-a76 has the dot product (a Pi 5).
        let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
        let qemu = URL(fileURLWithPath: "/usr/local/bin/qemu-aarch64")
        guard FileManager.default.isExecutableFile(atPath: qemu.path) else {
            throw XCTSkip("no qemu-aarch64 in this arm64 system (tools/arm64 puts one in its root)")
        }
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return XCTFail("\(binary.path) is not built: build every product before the tests (tools/arm64 build does)")
        }
        let dotProduct = KernelConfig.compiledTier == .neonDotProduct  // the CLI is built with the same flags
        let pi4 = try ChildProcess.run(qemu, ["-cpu", "cortex-a72", binary.path, "--help"])
        let pi5 = try ChildProcess.run(qemu, ["-cpu", "cortex-a76", binary.path, "--help"])
        XCTAssertEqual(pi5.status, 0, pi5.stderr)
        XCTAssertTrue(pi5.output.contains("USAGE: vision-tasks"), pi5.output)
        if dotProduct {
            XCTAssertEqual(pi4.status, 70, pi4.stderr)
            XCTAssertTrue(pi4.stderr.contains("built for the NEON dot-product tier"), pi4.stderr)
        } else {
            XCTAssertEqual(pi4.status, 0, pi4.stderr)
        }
        #endif
    }
}
