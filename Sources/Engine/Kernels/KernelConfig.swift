import CVisionTasksFloatingPoint
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which micro-kernels the operators call, and the tuning thresholds that were literals inside them: the one place
/// that knows the instruction-set tier the build targets (XNNPACK keeps this in `src/configs/*-config.c`, chosen at
/// run time; ours is chosen at build time by the target CPU, see Package.swift and tools/tuned-build-env).
///
/// Operators read it once, when the plan builds their kernel, and keep the micro-kernel they chose: an invoke never
/// asks again. A plan can be built with another configuration than the build's
/// (``ExecutionPlan/init(model:memoryBudget:kernels:)``), which is how the tests run the VNNI tier's algorithm on a CPU
/// without VNNI.
public struct KernelConfig: Sendable, Equatable {
    /// Instruction-set tiers, lowest first.
    public enum Tier: String, Sendable, CaseIterable {
        /// No SIMD assumptions beyond x86-64's baseline (a dependent's plain x86-64 build).
        case portable
        /// AVX2 + FMA on x86-64 (`haswell` and later).
        case avx2
        /// AVX-512 F/BW/DQ/VL: 32 registers of 16 floats (`skylake-avx512`).
        case avx512
        /// AVX-512 with VNNI's `vpdpbusd` (`cascadelake`, `icelake-server`, `sapphirerapids`, `znver4`, `znver5`).
        case avx512VNNI
        /// arm64's baseline, NEON and FMA: 32 registers of 4 floats (every arm64 build; a Raspberry Pi 4's
        /// Cortex-A72). The AVX2 tier's micro-kernels, whose twelve SIMD8 accumulators are 24 of NEON's registers.
        case neon
        /// NEON with ARMv8.2's dot product, `sdot` (`cortex-a76`: Raspberry Pi 5; `neoverse-n1`: Graviton 2; Jetson
        /// Orin's Cortex-A78AE): quantized products in quads of depth steps, four rows × 16 columns a tile.
        case neonDotProduct
    }

    /// How float convolutions tile their packed GEMM (`PackedGEMM`).
    public enum FloatGEMMKernel: String, Sendable {
        /// 6 × 16 tiles in twelve SIMD8<Float> accumulators: AVX2's 16 registers.
        case sixBySixteen
        /// 8 × 32 tiles (two panels) in sixteen SIMD16<Float> accumulators: AVX-512's 32 registers.
        case wideTiles
        /// Every float convolution's product through OpenBLAS's `sgemm`, which is optimized whatever our build is:
        /// the choice of a build that compiled this module without optimization (``compiledWithoutOptimization``),
        /// where our micro-kernels' generic SIMD runs some 700 times slower than optimized.
        case openBLAS
    }

    /// How quantized convolutions and fully connected layers multiply.
    public enum QuantizedGEMMKernel: String, Sendable {
        /// `QuantizedGEMM`: input and filter less their zero points as int16, `vpmaddwd` on pairs of depth steps.
        case int16Pairs
        /// `QuantizedDotGEMM`: input and filter as bytes, `vpdpbusd` (x86: input unsigned) or `sdot` (arm64: both
        /// signed) on quads of depth steps, the zero points corrected through the bias and one sum per row (XNNPACK's
        /// VNNI and NEONDOT kernels' scheme).
        case int8Quads
    }

    /// How many channels a depthwise convolution's inner loops take per vector (`DepthwiseConv2DKernel`,
    /// `QuantizedDepthwiseConv2DKernel`): the channel loops of each width live in files of their own.
    public enum DepthwiseKernel: String, Sendable {
        /// SIMD8 lanes, one AVX2 register: float taps fused eight channels at a time; quantized taps in int16 pairs,
        /// sixteen channels in two `vpmaddwd` accumulators, and eight-lane int32 on border pixels.
        case eightChannels
        /// SIMD16 lanes, one AVX-512 register: float taps fused sixteen channels at a time; quantized taps in int16
        /// pairs of sixteen channels in one 16-lane accumulator (`vpmaddwd` on a zmm register, `vpdpwssd` with VNNI),
        /// and sixteen-lane int32 on border pixels. The float results are bit-identical to eight channels' (same taps
        /// in the same order, same fused multiply-adds), the quantized ones byte-identical (exact int32 sums).
        case sixteenChannels
    }

    /// The float depthwise channel loops: the tiers' (``DepthwiseKernel``), or the C loops of a build without
    /// optimization.
    public enum FloatDepthwiseKernel: String, Sendable {
        /// ``DepthwiseKernel/eightChannels``.
        case eightChannels
        /// ``DepthwiseKernel/sixteenChannels``.
        case sixteenChannels
        /// Plain C loops (CVisionTasksOnoneKernels), one output row a call, for a build that compiled this module
        /// without optimization (``compiledWithoutOptimization``): C at -O0 keeps vector instructions where Swift at
        /// -Onone does not. The bias first, then the taps row by row, multiplied and added apart: not the Swift loops'
        /// order, so within float rounding of them, not bit-identical. Channel multipliers above 1 keep the Swift row.
        case ononeLoops
    }

    /// The tier this build was compiled for.
    public static let compiledTier: Tier = {
        #if VISION_TASKS_AVX512VNNI
        return .avx512VNNI
        #elseif VISION_TASKS_AVX512
        return .avx512
        #elseif arch(arm64) && VISION_TASKS_DOTPROD
        return .neonDotProduct
        #elseif arch(arm64)
        return .neon
        #elseif VISION_TASKS_FMA
        return .avx2
        #else
        return .portable
        #endif
    }()

    /// The best tier this CPU and its operating system run, whatever the build's (``compiledTier``): where it is
    /// higher, a build for this CPU runs faster kernels (XNNPACK chooses at run time; our tiers are chosen when
    /// building, KernelTiers.md).
    public static let bestTierForThisCPU: Tier = {
        switch Int(vision_tasks_best_cpu_tier()) {
        case VISION_TASKS_CPU_TIER_AVX2: return .avx2
        case VISION_TASKS_CPU_TIER_AVX512: return .avx512
        case VISION_TASKS_CPU_TIER_AVX512_VNNI: return .avx512VNNI
        case VISION_TASKS_CPU_TIER_NEON: return .neon
        case VISION_TASKS_CPU_TIER_NEON_DOT_PRODUCT: return .neonDotProduct
        default: return .portable
        }
    }()

    /// Whether this module was compiled without optimization: a dependent's debug build (`swift build`, `swift run`),
    /// where SwiftPM compiles every package at -Onone and lets no package ask for more (our own builds optimize the
    /// kernels in debug through VISION_TASKS_CPU's flags, which SwiftPM refuses in a dependency). At -Onone the
    /// Swift micro-kernels' generic SIMD goes through the runtime for every lane — a pose photo took 6.7 s instead of
    /// 14 ms — so ``compiled`` then chooses the micro-kernels that do not depend on our optimizer
    /// (``withoutOptimization(tier:)``). (`_isDebugAssertConfiguration()` is decided by the optimization level of the
    /// module that calls it, this one.)
    public static let compiledWithoutOptimization = _isDebugAssertConfiguration()

    /// What the build's tier runs best, with the float GEMM's tiles, the float depthwise interiors, the quantized
    /// GEMMs' tiles, the quantized depthwise interiors and the byte tables of the CPU's best tier where this build has
    /// them in C and its own are of a lower tier (``dispatchedTier``).
    public static let compiled: KernelConfig = {
        var config = compiledWithoutDispatch
        if let dispatchedTier {
            config.dispatchFloatGEMM(to: dispatchedTier)
            config.dispatchFloatDepthwise(to: dispatchedTier)
            config.dispatchQuantizedGEMM(to: dispatchedTier)
            // The C loop is the eight-channel one: an AVX-512 build's own sixteen-channel Swift loops (zmm
            // registers) are kept.
            if config.quantizedDepthwise == .eightChannels { config.dispatchQuantizedDepthwise(to: dispatchedTier) }
            config.dispatchByteLookup(to: dispatchedTier)
        }
        return config
    }()

    /// What the build's own Swift kernels run: ``compiled`` without the C loops of a higher tier (``dispatchedTier``).
    /// The tests compare loops of the build's own tier with it.
    public static let compiledWithoutDispatch = compiledWithoutOptimization ? withoutOptimization(tier: compiledTier) : KernelConfig(tier: compiledTier)

    /// The tier whose C micro-kernels (CVisionTasksMicroKernels) this process runs in place of the build's own Swift
    /// ones, chosen once at start (as XNNPACK chooses its configs): the best tier this CPU has
    /// (``bestTierForThisCPU``), where that is above the build's (``compiledTier``: a dependent's plain build is
    /// the portable tier) and the build has C tiles for it. Nil in a build tuned for this CPU, whose Swift tiles are
    /// the reference and as fast, and in a build without optimization (OpenBLAS does its products).
    ///
    /// `VISION_TASKS_KERNEL_TIER` in the environment, a tier's name (`portable`, `avx2`, `avx512`, …), caps it: an
    /// A/B comparison of one binary, or a way around a fault in one tier's tiles. It never raises the tier above the
    /// CPU's best.
    public static let dispatchedTier: Tier? = {
        guard !compiledWithoutOptimization else { return nil }
        var tier = bestTierForThisCPU
        if let name = getenv("VISION_TASKS_KERNEL_TIER").map({ String(cString: $0) }), let cap = Tier(rawValue: name),
           cap.architectureRank != nil, tier.architectureRank != nil, cap.architectureRank! < tier.architectureRank! {
            tier = cap
        }
        guard let rank = tier.architectureRank, let compiledRank = compiledTier.architectureRank, rank > compiledRank,
              cpuRuns(tier), FloatGEMMTiles(tier: tier) != nil else { return nil }
        return tier
    }()

    /// Runs the float GEMM through `tier`'s C tiles (``floatGEMMTileTier``), with that tier's tiling (the AVX-512
    /// tiers' wide tiles where it has them), and returns true; or changes nothing and returns false where this CPU
    /// does not run `tier`, the build has no C tiles for it, or the float products go to OpenBLAS. The tests run each
    /// tier's C tiles this way in any build.
    @discardableResult
    public mutating func dispatchFloatGEMM(to tier: Tier) -> Bool {
        guard floatGEMM != .openBLAS, Self.cpuRuns(tier), let tiles = FloatGEMMTiles(tier: tier) else { return false }
        floatGEMMTiles = tiles
        floatGEMM = tiles.hasWideTile ? .wideTiles : .sixBySixteen
        return true
    }

    /// Runs the float depthwise convolutions' interior loops (channel multiplier 1, 3 × 3 and 5 × 5) through
    /// `tier`'s C loops (``floatDepthwiseLoopTier``), eight channels a vector, and returns true; or changes nothing and
    /// returns false, as ``dispatchFloatGEMM(to:)``. Border pixels and the other filters stay the build's Swift.
    @discardableResult
    public mutating func dispatchFloatDepthwise(to tier: Tier) -> Bool {
        guard floatDepthwise != .ononeLoops, Self.cpuRuns(tier), let loops = FloatDepthwiseLoops(tier: tier) else { return false }
        floatDepthwiseLoops = loops
        floatDepthwise = .eightChannels
        return true
    }

    /// Runs the quantized convolutions' and fully connected layers' GEMM through `tier`'s C tiles
    /// (``quantizedGEMMTileTier``), with that tier's GEMM (the VNNI tier's byte quads, the others' int16 pairs), and
    /// returns true; or changes nothing and returns false, as ``dispatchFloatGEMM(to:)`` (and where the products go to
    /// OpenBLAS's dgemm, ``ononeLoops``).
    @discardableResult
    public mutating func dispatchQuantizedGEMM(to tier: Tier) -> Bool {
        guard !ononeLoops, Self.cpuRuns(tier), let tiles = QuantizedGEMMTiles(tier: tier) else { return false }
        quantizedGEMMTiles = tiles
        quantizedGEMM = tiles.hasQuads ? .int8Quads : .int16Pairs
        return true
    }

    /// Runs the quantized depthwise convolutions' interior pixels (channel multiplier 1, 16 channels or more, 3 × 3
    /// and 5 × 5) through `tier`'s C loop (``quantizedDepthwiseLoopTier``), eight-channel layout, and returns true;
    /// or changes nothing and returns false, as ``dispatchQuantizedGEMM(to:)``. Border pixels stay the build's Swift.
    @discardableResult
    public mutating func dispatchQuantizedDepthwise(to tier: Tier) -> Bool {
        guard !ononeLoops, Self.cpuRuns(tier), let loops = QuantizedDepthwiseLoops(tier: tier) else { return false }
        quantizedDepthwiseLoops = loops
        quantizedDepthwise = .eightChannels
        return true
    }

    /// Runs the quantized one-input functions' byte tables (`ByteLookup`) through `tier`'s C loop
    /// (``byteLookupLoopTier``) and returns true; or changes nothing and returns false, as ``dispatchQuantizedGEMM(to:)``.
    @discardableResult
    public mutating func dispatchByteLookup(to tier: Tier) -> Bool {
        guard Self.cpuRuns(tier), let loop = ByteLookupLoop(tier: tier) else { return false }
        byteLookupLoop = loop
        return true
    }

    /// The tiers this CPU runs whose C tiles this build has, lowest first.
    public static var dispatchableTiers: [Tier] {
        Tier.allCases.filter { cpuRuns($0) && FloatGEMMTiles(tier: $0) != nil }
    }

    /// Whether `tier` is of this architecture and at most the best this CPU has.
    static func cpuRuns(_ tier: Tier) -> Bool {
        guard let rank = tier.architectureRank, let best = bestTierForThisCPU.architectureRank else { return false }
        return rank <= best
    }

    /// What a build that compiled this module without optimization runs (``compiledWithoutOptimization``): OpenBLAS's
    /// sgemm for every float product, its dgemm for quantized convolutions' and fully connected layers' (exact on
    /// integers held in doubles), and the C loops of CVisionTasksOnoneKernels for float depthwise convolutions and
    /// every other pass that has one (``ononeLoops``); the rest as the tier has it. The tests run it in any build.
    public static func withoutOptimization(tier: Tier) -> KernelConfig {
        var config = KernelConfig(tier: tier)
        config.floatGEMM = .openBLAS
        config.floatDepthwise = .ononeLoops
        config.ononeLoops = true
        return config
    }

    public var tier: Tier
    public var floatGEMM: FloatGEMMKernel
    public var quantizedGEMM: QuantizedGEMMKernel
    public var floatDepthwise: FloatDepthwiseKernel
    public var quantizedDepthwise: DepthwiseKernel
    /// Whether the passes that have a C twin in CVisionTasksOnoneKernels run there: a float convolution's bias,
    /// activation and fused epilogue and its im2col, max pooling, bilinear resizing; quantized depthwise rows, ADD and
    /// SUB, and quantized convolutions and fully connected layers through OpenBLAS's exact dgemm
    /// (`QuantizedOnoneProduct`). The float depthwise rows are ``floatDepthwise``'s choice. The twins compute the
    /// same values (quantized: the same bytes); they are chosen where this module was compiled without optimization
    /// (``compiledWithoutOptimization``), where the Swift loops' generic SIMD, array accesses and checked arithmetic
    /// are calls into the runtime.
    public var ononeLoops = false
    /// The C tiles the float GEMM calls instead of its Swift ones (``dispatchedTier``), or nil for the Swift tiles.
    var floatGEMMTiles: FloatGEMMTiles?
    /// The tier of the C tiles the float GEMM runs, or nil where it runs the Swift tiles of the build's own tier.
    public var floatGEMMTileTier: Tier? { floatGEMMTiles?.tier }
    /// The C loops float depthwise interiors run instead of the Swift ones, or nil.
    var floatDepthwiseLoops: FloatDepthwiseLoops?
    /// The tier of the C loops float depthwise interiors run, or nil.
    public var floatDepthwiseLoopTier: Tier? { floatDepthwiseLoops?.tier }
    /// The C tiles the quantized GEMMs call instead of their Swift ones, or nil.
    var quantizedGEMMTiles: QuantizedGEMMTiles?
    /// The tier of the C tiles the quantized GEMMs run, or nil where they run the Swift tiles of the build's own tier.
    public var quantizedGEMMTileTier: Tier? { quantizedGEMMTiles?.tier }
    /// The C loop quantized depthwise interiors run instead of the Swift one, or nil.
    var quantizedDepthwiseLoops: QuantizedDepthwiseLoops?
    /// The tier of the C loop quantized depthwise interiors run, or nil.
    public var quantizedDepthwiseLoopTier: Tier? { quantizedDepthwiseLoops?.tier }
    /// The C loop byte tables are applied by instead of the Swift one, or nil.
    var byteLookupLoop: ByteLookupLoop?
    /// The tier of the C loop byte tables are applied by, or nil.
    public var byteLookupLoopTier: Tier? { byteLookupLoop?.tier }

    /// The micro-kernels a tier runs best. Only the AVX-512 tiers take the wide float tiles, whose sixteen SIMD16
    /// accumulators spill on AVX2 (and NEON), and the sixteen-channel depthwise loops, whose nine 3 × 3 taps alone take
    /// 18 of AVX2's 16 registers as SIMD16; only the VNNI and NEON dot-product tiers multiply quads, which without
    /// `vpdpbusd` or `sdot` is emulated and slower than pairs. Every choice computes the same numbers on any CPU of an
    /// architecture (arm64's quantized ones follow LiteRT's arm64 arithmetic: `Requantization`), so any property may
    /// be set to the other value (the tests run the AVX-512 tiers' choices on an AVX2 host that way).
    public init(tier: Tier) {
        self.tier = tier
        let avx512 = tier == .avx512 || tier == .avx512VNNI
        floatGEMM = avx512 ? .wideTiles : .sixBySixteen
        quantizedGEMM = tier == .avx512VNNI || tier == .neonDotProduct ? .int8Quads : .int16Pairs
        floatDepthwise = avx512 ? .sixteenChannels : .eightChannels
        quantizedDepthwise = avx512 ? .sixteenChannels : .eightChannels
    }

    // Tuning thresholds, by the kernel that uses them.

    /// `PackedGEMM`: filters up to this size are kept cached whole (a quarter of Zen 2's 512 KB L2 per core).
    static let residentWeightBytes = 128 << 10
    /// `PackedGEMM`: rows of A per chunk when the filter is resident: half of a 32 KB L1 data cache.
    static let chunkBytes = 16 << 10
    /// `QuantizedGEMM`: rows per full tile (4 × 16 in eight SIMD8<Int32> accumulators; AVX2 has 16 registers).
    static let quantizedPairTileRows = 4
    /// `QuantizedDotGEMM`: rows per tile. One 16-lane accumulator per row; twelve independent `vpdpbusd` chains
    /// cover its latency of 5 cycles at two a cycle (Zen 4, Ice Lake), and twelve accumulators, the weights and the
    /// broadcasts fit AVX-512's 32 registers with room to spare. On arm64 a row's accumulator is four 128-bit
    /// registers, so four rows (16 registers, four of weights, the row broadcasts): XNNPACK's `4x16c4__neondot`
    /// tile, sixteen independent `sdot` chains for a latency of 2–3 cycles at two a cycle (Cortex-A76, Neoverse N1).
    static let quantizedQuadTileRows: Int = {
        #if arch(arm64)
        return 4
        #else
        return 12
        #endif
    }()
    /// `Conv2DKernel`: filters of up to this many weights (1 MB) go through `PackedGEMM`; larger ones to OpenBLAS.
    static let packedFilterMaximumWeights = 1 << 18
    /// `Conv2DKernel`: outputs of this many pixels or fewer are matrix-vector products, which the packed panels
    /// stream best whatever the filter's size (face landmarks' 2 × 2 × 128 → 1434 head).
    static let matrixVectorMaximumPixels = 64
    /// Float convolutions: output pixels per thread, direct (depth-first) and through the GEMM, and stem rows.
    static let directConvolutionMinimumPixelsPerThread = 256
    static let convolutionMinimumPixelsPerThread = 64
    /// Output rows narrower than this keep their gathered im2col rows (``Conv2DKernel``): the windows read in place go
    /// six pixels of one row at a time, and each row's ends and its last few interior pixels take a tile of their own,
    /// which narrow rows pay more for than the copy saves. One 3 × 3 layer alone, AVX2 host, windows / gathered:
    /// 20² × 128 → 128 with SiLU 1.11, 40² × 64 → 64 1.00, 80² × 16 → 16 0.85; ESPCN's 224-pixel rows 0.9–0.97 whole.
    static let windowsMinimumRowPixels = 64
    static let stemRowsMinimumPerThread = 2
    /// Elementwise operators, unary and binary: elements per thread (below it a thread's wake-up costs more than the work).
    static let elementwiseMinimumPerThread = 1 << 13
    /// Rows per thread: pooling, bilinear resizing, a depthwise convolution's padded copy.
    static let poolingRowsMinimumPerThread = 4
    static let resizeRowsMinimumPerThread = 8
    /// Scratch a quantized bilinear resize may take for its input rows interpolated horizontally (int32 values, one
    /// row of the output's width per input row read): DeepLab v3's 17 rows × 257 × 21 take 367 KB, a 512² × 32
    /// upsampling 16 MB; beyond this it interpolates pixel by pixel.
    static let resizeRowsMaximumScratchBytes = 8 << 20
    static let paddedRowsMinimumPerThread = 4
    /// Quantized convolutions: output pixels per thread below which a band is not split further.
    static let quantizedConvolutionMinimumPixelsPerThread = 16
    /// Quantized fully connected layers: 16-column panels per thread below which the units are not split further.
    static let quantizedFullyConnectedMinimumPanelsPerThread = 4
}
