import VisionTasksEngine

/// The engine's kernel tier: the one this build runs and the best one this CPU has.
///
/// Our kernel tiers are chosen when the package is built (XNNPACK chooses at run time): a plain
/// `swift build -c release` is the portable tier on x86-64 and the `neon` tier on arm64, and a build made with a
/// tier's flags (README, "Kernel tiers") runs that tier's micro-kernels. A dependent that builds plainly on a CPU with
/// a higher tier can tell from this; the library itself prints nothing (the `vision-tasks` command's `--help` and
/// `bench` show it). Tier names are those of the DocC article "Kernel tiers": `portable`, `avx2`, `avx512`,
/// `avx512VNNI`, `neon`, `neonDotProduct`.
public struct KernelTierStatus: Sendable, Equatable, CustomStringConvertible {
    /// The tier this build's kernels were compiled for.
    public let buildTier: String
    /// The best tier this CPU and its operating system run.
    public let bestTierForThisCPU: String
    /// The tier whose float GEMM tiles, float depthwise loops and quantized GEMM tiles this process chose at start, in C,
    /// over the build's own (a plain build on a CPU with AVX2 or AVX-512: `KernelConfig.dispatchedTier` in
    /// VisionTasksEngine); nil where it runs the build's own throughout.
    public let dispatchedTier: String?
    /// Whether the engine was compiled with optimization (a release build, or ours); a dependent's debug build is not,
    /// and runs the kernels that do not depend on the optimizer.
    public let isOptimized: Bool

    /// This process's status.
    public static let current = KernelTierStatus(
        buildTier: KernelConfig.compiledTier.rawValue, bestTierForThisCPU: KernelConfig.bestTierForThisCPU.rawValue,
        dispatchedTier: KernelConfig.dispatchedTier?.rawValue, isOptimized: !KernelConfig.compiledWithoutOptimization)

    /// Whether this build runs the best tier this CPU has.
    public var runsBestTierForThisCPU: Bool { buildTier == bestTierForThisCPU }

    public var description: String {
        var text = runsBestTierForThisCPU
            ? "kernel tier \(buildTier) (the best this CPU has)"
            : "kernel tier \(buildTier); this CPU has \(bestTierForThisCPU): a build for it runs faster kernels (README, \"Kernel tiers\")"
        if let dispatchedTier { text += "; GEMM tiles and depthwise loops of \(dispatchedTier), chosen at run time" }
        if !isOptimized { text += "; built without optimization (a debug build): `swift build -c release` is faster" }
        return text
    }
}
