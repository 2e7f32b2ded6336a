import CVisionTasksFloatingPoint
import CVisionTasksMicroKernels

/// A tier's float GEMM tiles in C (CVisionTasksMicroKernels), for a build whose own Swift tiles are of a lower tier
/// than the CPU runs: a dependent's plain `swift build -c release` is the portable tier, and SwiftPM lets no
/// dependency ask for a target CPU; C's per-function target attributes carry every x86 tier in that one build
/// (micro_kernels.h says why C). Chosen once, at start, from the CPU (``KernelConfig/compiled``); `PackedGEMM` calls
/// these where it would call its Swift tiles and keeps everything else (packing, tiling, epilogues, threading).
///
/// Each tile fuses each output's products in depth order from the bias, as the Swift tiles of a build tuned for that
/// tier do: the same bits (FloatMicroKernelTests holds them to a scalar fused reference and to the Swift tiles).
struct FloatGEMMTiles: Sendable, Equatable {
    /// The tier whose tiles these are.
    let tier: KernelConfig.Tier
    // The table is static constant data in C, never freed or written: safe to share between threads.
    nonisolated(unsafe) let table: UnsafePointer<vision_tasks_f32_gemm_kernels>

    /// The C tiles of `tier`, or nil where this build has none (the portable tier; another architecture's tier).
    /// The caller asks only for a tier this CPU runs: the tiles use its instructions unconditionally.
    init?(tier: KernelConfig.Tier) {
        guard let table = vision_tasks_f32_gemm_kernels_for_tier(Int32(tier.cpuTierValue)) else { return nil }
        // The C table names tiers by floating_point_mode.h's values, which it cannot include (a layer-1 target beside
        // it): a table of another tier would be a mismatch of the two lists.
        precondition(Int(table.pointee.tier) == tier.cpuTierValue, "CVisionTasksMicroKernels' tier values differ from floating_point_mode.h's")
        guard table.pointee.tile_6x16 != nil, table.pointee.tile_12x8 != nil, table.pointee.tile_6x8 != nil,
              table.pointee.row_1x64 != nil else { return nil }
        self.tier = tier
        self.table = table
    }

    /// Whether the AVX-512 tiers' 8 × 32 tile is here.
    var hasWideTile: Bool { table.pointee.tile_8x32 != nil }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.tier == rhs.tier }
}

/// A tier's float depthwise loops in C (CVisionTasksMicroKernels): the eight-channel interior loops of
/// DepthwiseConv2DEightChannels.swift, every multiply-add fused in the Swift loops' order, for a build whose own are of
/// a lower tier than the CPU's (as ``FloatGEMMTiles``).
struct FloatDepthwiseLoops: Sendable, Equatable {
    let tier: KernelConfig.Tier
    // Static constant data in C (see FloatGEMMTiles).
    nonisolated(unsafe) let table: UnsafePointer<vision_tasks_f32_dwconv_kernels>

    init?(tier: KernelConfig.Tier) {
        guard let table = vision_tasks_f32_dwconv_kernels_for_tier(Int32(tier.cpuTierValue)) else { return nil }
        precondition(Int(table.pointee.tier) == tier.cpuTierValue, "CVisionTasksMicroKernels' tier values differ from floating_point_mode.h's")
        guard table.pointee.square_3x3 != nil, table.pointee.square != nil else { return nil }
        self.tier = tier
        self.table = table
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.tier == rhs.tier }
}

extension KernelConfig.Tier {
    /// The tier's place among this architecture's tiers, lowest 0; nil for another architecture's tier.
    var architectureRank: Int? {
        #if arch(x86_64)
        switch self {
        case .portable: return 0
        case .avx2: return 1
        case .avx512: return 2
        case .avx512VNNI: return 3
        case .neon, .neonDotProduct: return nil
        }
        #elseif arch(arm64)
        switch self {
        case .neon: return 0
        case .neonDotProduct: return 1
        case .portable, .avx2, .avx512, .avx512VNNI: return nil
        }
        #else
        return self == .portable ? 0 : nil
        #endif
    }

    /// floating_point_mode.h's VISION_TASKS_CPU_TIER_* value of this tier.
    var cpuTierValue: Int {
        switch self {
        case .portable: return Int(VISION_TASKS_CPU_TIER_PORTABLE)
        case .avx2: return Int(VISION_TASKS_CPU_TIER_AVX2)
        case .avx512: return Int(VISION_TASKS_CPU_TIER_AVX512)
        case .avx512VNNI: return Int(VISION_TASKS_CPU_TIER_AVX512_VNNI)
        case .neon: return Int(VISION_TASKS_CPU_TIER_NEON)
        case .neonDotProduct: return Int(VISION_TASKS_CPU_TIER_NEON_DOT_PRODUCT)
        }
    }
}
