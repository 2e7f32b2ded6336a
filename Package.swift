// swift-tools-version:6.0
import PackageDescription

// Kernels and pixel loops are optimized in debug builds too: the test suite runs real models on real images,
// which unoptimized Swift makes some 50 times slower. On x86-64 they target Haswell (AVX2 + FMA, every x86
// server CPU since 2013): SIMD8<Float> is then one register and multiply-adds fuse.
#if arch(x86_64)
let cpuFlags = ["-target-cpu", "haswell"]
#else
let cpuFlags: [String] = []
#endif
let optimizedInDebug: [SwiftSetting] = [
    .unsafeFlags(["-O"], .when(configuration: .debug)),
    .unsafeFlags(cpuFlags),
]

// Layers, lowest first: Format (model files) → Engine → Vision → Tasks → surfaces (CLI, bench).
// A target may depend only on layers below it.
let package = Package(
    name: "swift-vision-tasks",
    products: [
        .library(name: "Format", targets: ["Format"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "Vision", targets: ["Vision"]),
        .library(name: "VisionTasks", targets: ["VisionTasks"]),
        .executable(name: "vision-tasks", targets: ["VisionTasksCLI"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries from Debian; `providers` names the package that supplies each.
        .systemLibrary(
            name: "CBLAS", path: "Sources/CBLAS", pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]),
        // zlib inflates deflated zip members (bundles we ship are stored, but users' may not be).
        // zlib1g-dev comes with libpng-dev.
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),

        .target(name: "Format", dependencies: ["CZlib"], path: "Sources/Format"),
        // Flush-to-zero for the duration of an invoke (see floating_point_mode.c).
        .target(name: "CFloatingPoint", path: "Sources/CFloatingPoint"),
        .target(
            name: "Engine", dependencies: ["Format", "CBLAS", "CFloatingPoint"], path: "Sources/Engine",
            swiftSettings: optimizedInDebug),
        // libjpeg's error exits longjmp; this C shim keeps the jump inside C (see jpeg_decoder.c).
        .target(name: "CJPEGDecoder", dependencies: ["CJPEG"], path: "Sources/CJPEGDecoder"),
        .target(name: "Vision", dependencies: ["CPNG", "CJPEGDecoder"], path: "Sources/Vision", swiftSettings: optimizedInDebug),
        // The tasks, with MediaPipe Tasks' API names (`import VisionTasks` where Apple code imports MediaPipeTasksVision).
        .target(name: "VisionTasks", dependencies: ["Format", "Engine", "Vision"], path: "Sources/Tasks"),

        .executableTarget(
            name: "VisionTasksCLI",
            dependencies: [
                "Format", "Engine", "Vision", "VisionTasks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/VisionTasksCLI"),
        .executableTarget(
            name: "bench",
            dependencies: ["Format", "Engine", "Vision", "VisionTasks", "CBLAS", "AllocationCounter"],
            path: "Benchmarks/bench"),

        // Test support: the mutation engine shared by the tests and the long-running fuzzer.
        .target(name: "ModelMutation", dependencies: ["Format"], path: "Tests/Support/ModelMutation"),
        .target(name: "TestSupport", path: "Tests/Support/TestSupport"),
        // Counts mallocs process-wide (it replaces the allocator's entry points): for "zero allocations per invoke".
        .target(name: "AllocationCounter", path: "Tests/Support/AllocationCounter"),
        .executableTarget(name: "format-fuzz", dependencies: ["Format", "ModelMutation"], path: "Tests/Fuzz/format-fuzz"),

        .testTarget(name: "FormatTests", dependencies: ["Format", "ModelMutation", "TestSupport"], path: "Tests/FormatTests"),
        .testTarget(name: "TasksTests", dependencies: ["VisionTasks", "Vision", "TestSupport"], path: "Tests/TasksTests"),
        .testTarget(name: "VisionTests", dependencies: ["Vision", "Format", "CZlib", "TestSupport"], path: "Tests/VisionTests"),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "Format", "TestSupport", "AllocationCounter"], path: "Tests/EngineTests"),
        .testTarget(
            name: "SystemLibraryTests", dependencies: ["CBLAS", "CPNG", "CJPEG", "CZlib"],
            path: "Tests/SystemLibraryTests"),
    ]
)
