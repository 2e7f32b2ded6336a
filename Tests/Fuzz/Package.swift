// swift-tools-version:6.0
import PackageDescription

// The libFuzzer harnesses, in a package of their own beside the library (as Server/ is) so that a plain
// `swift build -c release` at the repository's root never builds them: two of them reach internal types with
// `@testable import`, which only compiles against modules built with `-enable-testing` — true of a debug build, not of
// a release one, and the harnesses want a release build (executions per second). tools/fuzz builds this package in
// release with `-enable-testing` and `-sanitize=fuzzer,address` for every module, ours included.
// It depends on the root package by path, so the root's VISION_TASKS_CPU flags apply here too (tools/fuzz sets them).
let package = Package(
    name: "vision-tasks-fuzz",
    products: [
        .executable(name: "vision-tasks-fuzz", targets: ["vision-tasks-fuzz"]),
    ],
    dependencies: [
        .package(name: "swift-vision-tasks", path: "../.."),
    ],
    targets: [
        // One harness per parser, one binary; VISION_TASKS_FUZZ_HARNESS picks the harness (libFuzzer owns argv).
        // The internal modules (ModelFormat, Engine, Imaging) come with the products that contain them.
        .executableTarget(
            name: "vision-tasks-fuzz",
            dependencies: [
                .product(name: "VisionTasks", package: "swift-vision-tasks"),
                .product(name: "VisionTasksEngine", package: "swift-vision-tasks"),
                .product(name: "VisionTasksTooling", package: "swift-vision-tasks"),
                "CVisionTasksFuzzDriver",
            ],
            path: "harnesses"),
        .target(name: "CVisionTasksFuzzDriver", path: "driver"),
    ]
)
