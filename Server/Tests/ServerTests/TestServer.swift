import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
@testable import VisionTasksServer
import XCTest

/// Paths of the checkout and the shared data beside it.
enum Paths {
    /// The repository's root (this file is Server/Tests/ServerTests/TestServer.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let models = root.appendingPathComponent("Models").path
    static let shared = root.deletingLastPathComponent().appendingPathComponent("shared")
    static func image(_ name: String) -> String { shared.appendingPathComponent("images/\(name)").path }
    static func video(_ name: String) -> String { shared.appendingPathComponent("videos/\(name)").path }
    static func model(_ name: String) -> String { (models as NSString).appendingPathComponent(name) }

    /// The `vision-tasks` CLI the root package builds (tools/run-tests builds it before this package's tests): the
    /// truth the service's answers are compared with.
    static func cli() throws -> String {
        for configuration in ["debug", "release"] {
            let path = root.appendingPathComponent(".build/\(configuration)/vision-tasks").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        XCTFail("no vision-tasks binary under \(root.path)/.build: build the root package first (swift build)")
        throw XCTSkip("no CLI")
    }

    /// This package's own server executable (built with the tests).
    static func serverBinary() -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/vision-tasks-server"
    }
}

/// A service started in this process on a free loopback port, stopped by ``stop()``.
final class TestServer: @unchecked Sendable {
    /// swift-metrics takes one backend per process: every test server reports into this registry.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(VisionTasksService.metricsFactory(registry: registry))
        return registry
    }()

    let service: VisionTasksService
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        var configuration = ServerConfiguration(modelsDirectory: Paths.models, host: "127.0.0.1", port: 0, slots: 2, queue: 4,
                                                deadline: 600)
        configure(&configuration)
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        service = try VisionTasksService(configuration: configuration, registry: Self.registry, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = service.makeApplication { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw LoopbackHTTP.Failure(description: "the server did not start") }
        self.port = port
        // Ready: every model loaded (the first request would otherwise race the loading).
        for _ in 0..<1200 {
            if try LoopbackHTTP.request(port: port, path: "/readyz").status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LoopbackHTTP.Failure(description: "the server never became ready")
    }

    /// A graceful shutdown, as SIGTERM gives the executable: requests in flight finish first.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    func post(_ path: String, file: String, type: String, headers: [String: String] = [:]) throws -> HTTPAnswer {
        try post(path, body: Data(contentsOf: URL(fileURLWithPath: file)), type: type, headers: headers)
    }

    func post(_ path: String, body: Data, type: String, headers: [String: String] = [:]) throws -> HTTPAnswer {
        var headers = headers
        headers["Content-Type"] = type
        return try LoopbackHTTP.request(port: port, method: "POST", path: path, headers: headers, body: body)
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPAnswer {
        try LoopbackHTTP.request(port: port, path: path, headers: headers)
    }
}

/// Runs a program to its end: its status and standard output (standard error into a file, read after).
func runProgram(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    nonisolated(unsafe) var errorData = Data()
    let drained = DispatchSemaphore(value: 0)
    Thread { errorData = errors.fileHandleForReading.readDataToEndOfFile(); drained.signal() }.start()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    drained.wait()
    return (process.terminationStatus, data, String(decoding: errorData, as: UTF8.self))
}

/// `vision-tasks TASK MODEL INPUT … --json FILE` for one image: the bytes of its one entry in `results`, as the CLI
/// wrote them (cut out of the document, never parsed and re-encoded: a round trip through JSONSerialization can
/// change how a number is spelled, 1.29e-06 against 0.00000129).
func cliEntry(_ arguments: [String]) throws -> Data {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("server-tests-\(UUID().uuidString).json").path
    defer { try? FileManager.default.removeItem(atPath: out) }
    let outcome = try runProgram(try Paths.cli(), arguments + ["--json", out, "--quiet"])
    XCTAssertEqual(outcome.status, 0, outcome.errors)
    let document = try Data(contentsOf: URL(fileURLWithPath: out))
    let parsed = try JSONSerialization.jsonObject(with: document) as? [String: Any]
    XCTAssertEqual((parsed?["results"] as? [Any])?.count, 1, "one image, one entry")
    // Keys are sorted: the document is {"mediapipeVersion":…,"model":…,"results":[ENTRY],"runningMode":…,"task":…}.
    let start = try XCTUnwrap(document.range(of: Data("\"results\":[".utf8)))
    let end = try XCTUnwrap(document.range(of: Data("],\"runningMode\":".utf8), options: .backwards))
    return document[start.upperBound..<end.lowerBound]
}
