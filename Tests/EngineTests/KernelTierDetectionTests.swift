import Foundation
import VisionTasksEngine
import XCTest

/// ``KernelConfig/bestTierForThisCPU`` against what Linux itself says the CPU has: /proc/cpuinfo's `flags` (x86-64) or
/// `Features` (arm64), which the kernel fills from CPUID and HWCAP and clears for what it does not enable (AVX-512
/// where it does not save the zmm registers).
final class KernelTierDetectionTests: XCTestCase {
    /// The first CPU's feature words in /proc/cpuinfo.
    static func cpuFeatures() throws -> Set<Substring> {
        let text = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("flags") || $0.hasPrefix("Features") },
                                 "no flags or Features line in /proc/cpuinfo")
        return Set(line.split(separator: ":", maxSplits: 1).last?.split(separator: " ") ?? [])
    }

    func testBestTierIsWhatProcCpuinfoLists() throws {
        let features = try Self.cpuFeatures()
        let expected: KernelConfig.Tier
        #if arch(arm64)
        expected = features.contains("asimddp") ? .neonDotProduct : .neon
        #else
        if !features.isSuperset(of: ["avx2", "fma"]) {
            expected = .portable
        } else if !features.isSuperset(of: ["avx512f", "avx512bw", "avx512dq", "avx512vl"]) {
            expected = .avx2
        } else {
            expected = features.contains("avx512_vnni") ? .avx512VNNI : .avx512
        }
        #endif
        XCTAssertEqual(KernelConfig.bestTierForThisCPU, expected, "/proc/cpuinfo lists \(features.sorted().joined(separator: " "))")
        // A tuned build runs only where its tier does (the start-up check), so the CPU's best is never below it.
        let order = KernelConfig.Tier.allCases
        XCTAssertGreaterThanOrEqual(order.firstIndex(of: KernelConfig.bestTierForThisCPU)!, order.firstIndex(of: KernelConfig.compiledTier)!)
        print("kernel tiers: this build \(KernelConfig.compiledTier), this CPU's best \(KernelConfig.bestTierForThisCPU)")
    }
}
