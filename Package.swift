// swift-tools-version:6.0
import PackageDescription

// Full speed comes from one setting on the build command: `VISION_TASKS_CPU=haswell swift build -c release` (AVX2 and
// FMA, every x86 server CPU since 2013: SIMD8<Float> is one register and multiply-adds fuse). SwiftPM refuses unsafe
// flags in a package others depend on, so the manifest adds them only when that variable is set — in our own builds
// (tools/, README, CI), never in a dependent's. A plain build is portable: the kernels multiply and add where the
// target has no FMA (`accumulate` in Engine/Kernels/Kernel.swift) instead of calling `fmaf` per lane.
// The same setting optimizes kernels and pixel loops in debug builds: the test suite runs real models on real
// images, which unoptimized Swift makes some 50 times slower.
let targetCPU = Context.environment["VISION_TASKS_CPU"].flatMap { $0.isEmpty ? nil : $0 }
// x86 targets with FMA (for `accumulate`), by the names swiftc's -target-cpu takes (not the psABI levels x86-64-v3/v4,
// which Swift 6.3.1's swiftc refuses); a binary built for one refuses, with a message, to start on a CPU without
// AVX2 and FMA (CVisionTasksFloatingPoint's start-up check) instead of dying of SIGILL.
let fmaTargets: Set<String> = [
    "haswell", "broadwell", "skylake", "skylake-avx512", "cascadelake", "icelake-server", "sapphirerapids",
    "znver1", "znver2", "znver3", "znver4", "znver5",
]
let tunedForFMA = targetCPU.map { fmaTargets.contains($0) } ?? false
// Kernel tiers above AVX2 (Engine/Kernels/KernelConfig.swift): AVX-512 F/BW/DQ/VL (32 registers of 16 floats, masked
// tails), and with VNNI beside it (`vpdpbusd`, 64 int8 multiply-adds an instruction). Targets by swiftc's names.
let avx512Targets: Set<String> = ["skylake-avx512", "cascadelake", "icelake-server", "sapphirerapids", "znver4", "znver5"]
let avx512VNNITargets: Set<String> = ["cascadelake", "icelake-server", "sapphirerapids", "znver4", "znver5"]
let tunedForAVX512 = targetCPU.map { avx512Targets.contains($0) } ?? false
let tunedForAVX512VNNI = targetCPU.map { avx512VNNITargets.contains($0) } ?? false
// arm64's tiers: NEON and FMA are baseline (every arm64 build has the NEON tier; `generic`, `cortex-a72` for a Pi 4
// only optimize the kernels in debug builds); ARMv8.2's dot product (`sdot`, 16 int8 multiply-adds an instruction)
// is the NEON dot-product tier, on these cores (Pi 5's Cortex-A76, Jetson Orin's A78AE, Graviton 2's Neoverse N1,
// Graviton 3's V1, Graviton 4's V2, Ampere's cores), by swiftc's names.
let dotProductTargets: Set<String> = [
    "cortex-a55", "cortex-a75", "cortex-a76", "cortex-a77", "cortex-a78", "cortex-a78c", "cortex-x1", "cortex-a710",
    "cortex-a715", "cortex-a720", "neoverse-n1", "neoverse-n2", "neoverse-v1", "neoverse-v2", "ampere1", "ampere1a",
]
let tunedForDotProduct = targetCPU.map { dotProductTargets.contains($0) } ?? false
let optimizedInDebug: [SwiftSetting] = targetCPU.map { cpu in
    [.unsafeFlags(["-O"], .when(configuration: .debug)), .unsafeFlags(["-target-cpu", cpu])]
        + (tunedForFMA ? [.define("VISION_TASKS_FMA")] : [])
        + (tunedForAVX512 ? [.define("VISION_TASKS_AVX512")] : [])
        + (tunedForAVX512VNNI ? [.define("VISION_TASKS_AVX512VNNI")] : [])
        + (tunedForDotProduct ? [.define("VISION_TASKS_DOTPROD")] : [])
} ?? []
// The tasks' own pre- and post-processing loops (the four-channel models' RGBA stretch, softmax planes, mask resizes)
// in the tier too: at x86-64's baseline their vectorized loops were SSE2, and they took more than half the interactive
// segmenter's frame. The float arithmetic is the same (Swift never fuses a multiply and an add it did not ask for), so
// are the results.
let tunedTasks: [SwiftSetting] = targetCPU.map { [.unsafeFlags(["-target-cpu", $0])] } ?? []
// Our own debug builds (VISION_TASKS_CPU set: the test suite's build) optimize the rest of the modules the suite runs
// too — the tasks, ML Kit, the model reader, the tooling and the tests themselves: unoptimized, their per-pixel loops
// (mask projection, a mask's fill, the tests' own sums over masks) took most of a reference test's time, and the
// suite was 29 of CI's 90 minutes on a slow host. Measured on five of its longest classes (AVX2 host, same run): pose
// reference 77 → 19 s, model mutations 112 → 44 s, holistic reference 114 → 38 s, identity clips 97 → 60 s, the
// quantized goldens 155 → 143 s. No `assert` in Sources or Tests (what -O would drop); a dependent's debug build
// (no VISION_TASKS_CPU) is unoptimized as before. To step through the tasks in a debugger, build without it.
let optimizedSuite: [SwiftSetting] = targetCPU.map { _ in [.unsafeFlags(["-O"], .when(configuration: .debug))] } ?? []
let cpuCheck: [CSetting] = (tunedForFMA ? [.define("VISION_TASKS_REQUIRE_AVX2_FMA")] : [])
    + (tunedForAVX512 ? [.define("VISION_TASKS_REQUIRE_AVX512")] : [])
    + (tunedForAVX512VNNI ? [.define("VISION_TASKS_REQUIRE_AVX512VNNI")] : [])
    + (tunedForDotProduct ? [.define("VISION_TASKS_REQUIRE_DOTPROD")] : [])

// Layers, lowest first: ModelFormat (model files) and EngineSIMD → Engine; Imaging (images alone, beside them) →
// Tasks → MLKit; Tooling (the executables' and tests' own: drawing, PNG output, video, .npy) → surfaces (CLI, bench).
// A target may depend only on layers below it, never beside it: tools/check-layers holds the allow-lists and checks
// this manifest and every import against them. Every module name carries the package's prefix: SwiftPM refuses two
// modules of one name in a dependency graph, and `Vision` is Apple's.
let package = Package(
    name: "swift-vision-tasks",
    products: [
        // One import for task users: VisionTasks re-exports the image types (MPImage) it takes.
        .library(name: "VisionTasks", targets: ["VisionTasks"]),
        // ML Kit's object detection and tracking API, in a module of its own: its names (`ObjectDetector`,
        // `ObjectDetectorOptions`) are MediaPipe's too. `import VisionTasksMLKit` alone serves ML Kit's guide.
        .library(name: "VisionTasksMLKit", targets: ["VisionTasksMLKit"]),
        // The bare engine, for running a .tflite model without a task around it.
        .library(name: "VisionTasksEngine", targets: ["VisionTasksEngine"]),
        // Task results as MediaPipe's reference JSON, exactly as the CLI writes them: for the service (Server/), a
        // separate package that depends on this one, so that its answers are the CLI's bytes.
        .library(name: "VisionTasksResultJSON", targets: ["VisionTasksResultJSON"]),
        // Our executables' tooling (video frames through ffmpeg, among others), for the service's video endpoint.
        .library(name: "VisionTasksTooling", targets: ["VisionTasksTooling"]),
        .executable(name: "vision-tasks", targets: ["VisionTasksCLI"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: the DocC catalogs of VisionTasks and VisionTasksMLKit
        // (Sources/*/*.docc) with the API reference, built and checked for warnings by tools/check-docs. A command
        // plugin: it adds nothing to any target, and a dependent never builds it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries from Debian; `providers` names the package that supplies each.
        .systemLibrary(
            name: "CVisionTasksBLAS", path: "Sources/CVisionTasksBLAS", pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(
            name: "CVisionTasksPNG", path: "Sources/CVisionTasksPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CVisionTasksJPEG", path: "Sources/CVisionTasksJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        // The photo formats beyond PNG and JPEG that MediaPipe's stb_image does not read: TIFF, WebP, HEIF/HEIC/AVIF.
        .systemLibrary(
            name: "CVisionTasksTIFF", path: "Sources/CVisionTasksTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(
            name: "CVisionTasksWebP", path: "Sources/CVisionTasksWebP", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(
            name: "CVisionTasksHEIF", path: "Sources/CVisionTasksHEIF", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]),
        // zlib inflates deflated zip members (bundles we ship are stored, but users' may not be).
        // zlib1g-dev comes with libpng-dev.
        .systemLibrary(
            name: "CVisionTasksZlib", path: "Sources/CVisionTasksZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),

        // libcrypto (OpenSSL) for SHA-256: ML Kit's model downloads and caches (ModelFormat's SHA256).
        .systemLibrary(
            name: "CVisionTasksCrypto", path: "Sources/CVisionTasksCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),

        .target(name: "VisionTasksModelFormat", dependencies: ["CVisionTasksZlib", "CVisionTasksCrypto"], path: "Sources/ModelFormat", swiftSettings: optimizedSuite),
        // Flush-to-zero for the duration of an invoke (see floating_point_mode.c).
        .target(name: "CVisionTasksFloatingPoint", path: "Sources/CVisionTasksFloatingPoint", cSettings: cpuCheck),
        // The float GEMM's innermost tiles for every x86 tier in one build, chosen at run time from the CPU (see
        // micro_kernels.h): per-function target attributes, no flags, so a dependent's plain build carries them.
        .target(name: "CVisionTasksMicroKernels", path: "Sources/CVisionTasksMicroKernels"),
        // `accumulate`, the kernels' multiply-add (fused where the target has FMA), inlinable across modules.
        .target(name: "VisionTasksEngineSIMD", path: "Sources/EngineSIMD", swiftSettings: optimizedInDebug),
        .target(
            name: "VisionTasksEngine",
            dependencies: [
                "VisionTasksModelFormat", "VisionTasksEngineSIMD", "CVisionTasksBLAS", "CVisionTasksFloatingPoint", "CVisionTasksOnoneKernels",
                "CVisionTasksMicroKernels",
            ],
            path: "Sources/Engine",
            swiftSettings: optimizedInDebug),
        // libjpeg's error exits longjmp; this C shim keeps the jump inside C (see jpeg_decoder.c).
        .target(name: "CVisionTasksJPEGDecoder", dependencies: ["CVisionTasksJPEG"], path: "Sources/CVisionTasksJPEGDecoder"),
        // libpng's low-level API (its longjmp kept inside C), libtiff's per-file error handlers, libwebp, libheif:
        // thin shims giving one result type (see image_decoders.h).
        .target(
            name: "CVisionTasksImageDecoders",
            dependencies: ["CVisionTasksPNG", "CVisionTasksTIFF", "CVisionTasksWebP", "CVisionTasksHEIF"],
            path: "Sources/CVisionTasksImageDecoders",
            // The module maps' `link` lines reach the linker only through a Swift import of the module, and
            // libwebpdemux.pc names libwebp as Requires.private from Debian 13 on (12 has it in Requires), so
            // there a program linking these shims missed libwebp; named here for every linker.
            linkerSettings: [.linkedLibrary("webpdemux"), .linkedLibrary("webp"), .linkedLibrary("tiff"), .linkedLibrary("heif")]),
        // The hot loops of a build that compiles our Swift without optimization — a dependent's debug build — in C,
        // which keeps its vector instructions at -O0 (see onone_kernels.h).
        .target(name: "CVisionTasksOnoneKernels", path: "Sources/CVisionTasksOnoneKernels"),
        // A cache prefetch hint for the crop (see prefetch.h).
        .target(name: "CVisionTasksPrefetch", path: "Sources/CVisionTasksPrefetch"),
        .target(
            name: "VisionTasksImaging",
            dependencies: ["CVisionTasksPNG", "CVisionTasksJPEGDecoder", "CVisionTasksImageDecoders", "CVisionTasksPrefetch", "CVisionTasksOnoneKernels"],
            path: "Sources/Imaging", swiftSettings: optimizedInDebug),
        // The tasks, with MediaPipe Tasks' API names (`import VisionTasks` where Apple code imports MediaPipeTasksVision).
        .target(name: "VisionTasks", dependencies: ["VisionTasksModelFormat", "VisionTasksEngine", "VisionTasksEngineSIMD", "VisionTasksImaging"], path: "Sources/Tasks",
                swiftSettings: tunedTasks + optimizedSuite),
        // What our own executables and tests need beside the library and users do not: drawing results (Canvas), PNG
        // output, video frames through ffmpeg, NumPy's `.npy`. Above the library, never a dependency of it, so that
        // `import VisionTasks` shows MediaPipe's names and not our tooling's.
        .target(
            name: "VisionTasksTooling",
            dependencies: ["VisionTasksModelFormat", "VisionTasksImaging", "CVisionTasksPNG"],
            path: "Sources/Tooling", swiftSettings: optimizedSuite),

        .target(
            name: "VisionTasksMLKit",
            dependencies: ["VisionTasks", "VisionTasksImaging", "VisionTasksModelFormat"],
            path: "Sources/MLKit", swiftSettings: optimizedSuite),

        // The task registry (every task of both task modules, as the surfaces take them) and the results' reference
        // JSON (the CLI's --json/--jsonl and the service's answers), above ML Kit: the surfaces' own, never the library's.
        .target(name: "VisionTasksResultJSON", dependencies: ["VisionTasks", "VisionTasksMLKit"], path: "Sources/ResultJSON"),

        .executableTarget(
            name: "VisionTasksCLI",
            dependencies: [
                "VisionTasksModelFormat", "VisionTasksEngine", "VisionTasksImaging", "VisionTasks",
                "VisionTasksTooling", "VisionTasksResultJSON", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/VisionTasksCLI"),
        .executableTarget(
            name: "bench",
            dependencies: ["VisionTasksModelFormat", "VisionTasksEngine", "VisionTasksImaging", "VisionTasks", "VisionTasksTooling",
                           "VisionTasksResultJSON", "CVisionTasksBLAS"],
            path: "Benchmarks/bench"),

        // The guides' Swift snippets (../shared/seeds, and MediaPipe's published iOS guides of the later tasks) with only
        // the import and the image's source changed, built in both language modes from the same files (the Swift 5
        // folder links to the Swift 6 one); SeedSnippetTests runs both.
        .executableTarget(name: "seed-snippets", dependencies: ["VisionTasks"], path: "Examples/SeedSnippets"),
        .executableTarget(
            name: "seed-snippets-swift5", dependencies: ["VisionTasks"], path: "Examples/SeedSnippetsSwift5",
            swiftSettings: [.swiftLanguageMode(.v5)]),

        // Code written from MediaPipe's iOS headers the way apps use them (MediaPipe's samples, bridges), with only the
        // import changed and UIKit's UIImage shimmed as a client would; built in both language modes from the same files
        // (the Swift 5 folder links to the Swift 6 one). HeaderAPITests runs both against MediaPipe's references.
        .executableTarget(name: "header-api", dependencies: ["VisionTasks"], path: "Examples/HeaderAPI"),
        .executableTarget(
            name: "header-api-swift5", dependencies: ["VisionTasks"], path: "Examples/HeaderAPISwift5",
            swiftSettings: [.swiftLanguageMode(.v5)]),

        .executableTarget(name: "mlkit-seed-snippets", dependencies: ["VisionTasksMLKit"], path: "Examples/MLKitSeedSnippets"),
        .executableTarget(
            name: "mlkit-seed-snippets-swift5", dependencies: ["VisionTasksMLKit"], path: "Examples/MLKitSeedSnippetsSwift5",
            swiftSettings: [.swiftLanguageMode(.v5)]),

        // Test support: the mutation engine shared by the tests and the long-running fuzzer.
        .target(name: "VisionTasksModelMutation", dependencies: ["VisionTasksModelFormat"], path: "Tests/Support/ModelMutation", swiftSettings: optimizedSuite),
        .target(name: "VisionTasksTestSupport", dependencies: ["VisionTasksModelFormat"], path: "Tests/Support/TestSupport", swiftSettings: optimizedSuite),
        // Counts mallocs process-wide (it replaces the allocator's entry points): for "zero allocations per invoke".
        .target(name: "VisionTasksAllocationCounter", path: "Tests/Support/AllocationCounter"),
        // The libFuzzer harnesses are a package of their own (Tests/Fuzz/Package.swift, built by tools/fuzz), out of
        // this package's plain builds.
        .executableTarget(name: "format-fuzz", dependencies: ["VisionTasksModelFormat", "VisionTasksModelMutation"], path: "Tests/Fuzz/format-fuzz"),

        .testTarget(name: "ModelFormatTests", dependencies: ["VisionTasksModelFormat", "VisionTasksTooling", "VisionTasksModelMutation", "VisionTasksTestSupport"], path: "Tests/ModelFormatTests", swiftSettings: optimizedSuite),
        .testTarget(name: "TasksTests", dependencies: ["VisionTasks", "VisionTasksMLKit", "VisionTasksResultJSON", "VisionTasksImaging", "VisionTasksModelFormat", "VisionTasksTooling", "VisionTasksModelMutation", "VisionTasksTestSupport"], path: "Tests/TasksTests", swiftSettings: optimizedSuite),
        .testTarget(name: "ImagingTests", dependencies: ["VisionTasksImaging", "VisionTasksModelFormat", "VisionTasksTooling", "CVisionTasksZlib", "VisionTasksTestSupport", "VisionTasksModelMutation"], path: "Tests/ImagingTests", swiftSettings: optimizedSuite),
        .testTarget(name: "EngineTests", dependencies: ["VisionTasksEngine", "VisionTasksEngineSIMD", "VisionTasksModelFormat", "VisionTasksTooling", "VisionTasksTestSupport", "VisionTasksAllocationCounter", "VisionTasksModelMutation"], path: "Tests/EngineTests", swiftSettings: optimizedSuite),
        .testTarget(
            name: "MLKitTests",
            dependencies: ["VisionTasksMLKit", "VisionTasksModelFormat", "VisionTasksTooling", "VisionTasksTestSupport"],
            path: "Tests/MLKitTests", swiftSettings: optimizedSuite),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CVisionTasksBLAS", "CVisionTasksPNG", "CVisionTasksJPEG", "CVisionTasksZlib", "CVisionTasksTIFF", "CVisionTasksWebP", "CVisionTasksHEIF"],
            path: "Tests/SystemLibraryTests"),
    ]
)
