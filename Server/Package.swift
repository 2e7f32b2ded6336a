// swift-tools-version:6.0
import PackageDescription

// The service (`vision-tasks-server serve`): an HTTP API over the tasks, in a package of its own so that library
// users never resolve Hummingbird, SwiftNIO or Prometheus — as swift-nio keeps its benchmarks apart. It depends on
// the repository's package by path and answers with that package's reference JSON (VisionTasksResultJSON), the bytes
// the CLI's --json and --jsonl write.
//
// Build it tuned as the CLI is built (the results are compared byte for byte with the CLI's): the root package's
// VISION_TASKS_CPU flags are its manifest's, which SwiftPM applies to a package depended on by path as to a root one.
// tools/run-tests builds and tests it after the root package.
let package = Package(
    name: "vision-tasks-server",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vision-tasks-server", targets: ["vision-tasks-server"]),
    ],
    dependencies: [
        .package(name: "swift-vision-tasks", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Hummingbird's own dependencies, named for the types the service uses directly.
        .package(url: "https://github.com/apple/swift-nio", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        // The service itself, a library so the tests start it in-process on a loopback port.
        .target(
            name: "VisionTasksServer",
            dependencies: [
                .product(name: "VisionTasks", package: "swift-vision-tasks"),
                .product(name: "VisionTasksResultJSON", package: "swift-vision-tasks"),
                .product(name: "VisionTasksTooling", package: "swift-vision-tasks"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/VisionTasksServer"),
        .executableTarget(
            name: "vision-tasks-server",
            dependencies: [
                "VisionTasksServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/vision-tasks-server"),
        // Functional tests over real loopback sockets, against the CLI's own output (the root package's built
        // vision-tasks) and the server executable.
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "VisionTasksServer",
                .product(name: "VisionTasks", package: "swift-vision-tasks"),
                .product(name: "VisionTasksResultJSON", package: "swift-vision-tasks"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/ServerTests"),
    ]
)
