import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

/// A tier's quantized GEMM tiles in C (CVisionTasksMicroKernels), for a build whose own Swift tiles are of a lower
/// tier than the CPU runs, as ``FloatGEMMTiles`` for the float GEMM: a dependent's plain `swift build -c release` is
/// the portable tier, whose Swift tiles multiply-add with SSE2's `pmaddwd` on half registers, where the CPU has
/// AVX2's `vpmaddwd` or VNNI's `vpdpbusd` (micro_kernels.h says why C). ``QuantizedGEMM`` and ``QuantizedDotGEMM``
/// call these where they would call their Swift tiles and keep everything else (packing, the zero-point corrections,
/// the row sums' use, tiling, threading). The tiles requantize too: in a plain build the Swift epilogue would be SSE2
/// code over sums stored to memory and read back.
///
/// The sums are exact int32 and each tile requantizes with the instructions of the Swift tiles of a build tuned for
/// its tier: byte-identical outputs (QuantizedMicroKernelTests holds them to the Swift tiles and a scalar reference,
/// QuantizedGoldenTests to LiteRT).
struct QuantizedGEMMTiles: Sendable, Equatable {
    let tier: KernelConfig.Tier
    // The table is static constant data in C, never freed or written: safe to share between threads.
    nonisolated(unsafe) let table: UnsafePointer<vision_tasks_q_gemm_kernels>

    /// The C tiles of `tier`, or nil where this build has none. The caller asks only for a tier this CPU runs.
    init?(tier: KernelConfig.Tier) {
        guard let table = vision_tasks_q_gemm_kernels_for_tier(Int32(tier.cpuTierValue)) else { return nil }
        precondition(Int(table.pointee.tier) == tier.cpuTierValue, "CVisionTasksMicroKernels' tier values differ from floating_point_mode.h's")
        guard table.pointee.pairs_4x16 != nil, table.pointee.pairs_8x8 != nil else { return nil }
        self.tier = tier
        self.table = table
    }

    /// Whether the VNNI tier's byte-quad tiles (and their row sum) are here.
    var hasQuads: Bool {
        table.pointee.quads_12x16 != nil && table.pointee.quads_4x16 != nil && table.pointee.quads_1x16 != nil && table.pointee.row_sum != nil
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.tier == rhs.tier }
}

/// A tier's quantized depthwise interior loop in C (CVisionTasksMicroKernels): ``QuantizedDepthwiseConv2DKernel``'s
/// eight-channel paired pixels (16 channels, two taps per `vpmaddwd`), for a build whose own are of a lower tier than
/// the CPU's (as ``QuantizedGEMMTiles``). Exact int32 sums and the Swift loops' requantizing instructions: the same
/// bytes.
struct QuantizedDepthwiseLoops: Sendable, Equatable {
    let tier: KernelConfig.Tier
    // Static constant data in C (see FloatGEMMTiles).
    nonisolated(unsafe) let table: UnsafePointer<vision_tasks_q_dwconv_kernels>

    init?(tier: KernelConfig.Tier) {
        guard let table = vision_tasks_q_dwconv_kernels_for_tier(Int32(tier.cpuTierValue)) else { return nil }
        precondition(Int(table.pointee.tier) == tier.cpuTierValue, "CVisionTasksMicroKernels' tier values differ from floating_point_mode.h's")
        guard table.pointee.paired != nil else { return nil }
        self.tier = tier
        self.table = table
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.tier == rhs.tier }
}

/// The byte-table loop of a tier in C (CVisionTasksMicroKernels), which a build below that tier runs in place of its
/// own (``KernelConfig/dispatchedTier``): `vpshufb`, which a portable x86-64 build's Swift cannot emit.
struct ByteLookupLoop: Sendable, Equatable {
    let tier: KernelConfig.Tier
    let lookup: vision_tasks_x8_lut_loop

    init?(tier: KernelConfig.Tier) {
        guard let table = vision_tasks_x8_lut_kernels_for_tier(Int32(tier.cpuTierValue)) else { return nil }
        precondition(Int(table.pointee.tier) == tier.cpuTierValue, "CVisionTasksMicroKernels' tier values differ from floating_point_mode.h's")
        guard let lookup = table.pointee.lookup else { return nil }
        self.tier = tier
        self.lookup = lookup
    }

    /// `lookup`'s table applied to `count` bytes (`ByteLookup.apply(_:_:count:)`'s work, in C).
    func apply(_ lookup: ByteLookup, _ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, count: Int) {
        lookup.withTables { slices, table in self.lookup(count, input, output, slices, table) }
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.tier == rhs.tier }
}

extension ByteLookup {
    /// The table applied to `count` bytes through `loop` (the C loop of the CPU's tier) where there is one, else
    /// through its own Swift loop: what every byte-table kernel runs.
    func apply(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, count: Int, through loop: ByteLookupLoop?) {
        guard let loop else { return apply(input, output, count: count) }
        loop.apply(self, input, output, count: count)
    }
}

extension Requantization {
    /// The parameters of the C tiles' requantizing store.
    func microKernelParameters(signed: Bool) -> vision_tasks_q_requantization {
        vision_tasks_q_requantization(lower: lower, upper: upper, zero_point: zeroPoint, output_signed: signed ? 1 : 0)
    }
}
