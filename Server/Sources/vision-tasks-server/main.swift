import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import VisionTasksServer

@main
struct VisionTasksServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-tasks-server",
        abstract: "The vision tasks as an HTTP service.",
        subcommands: [Serve.self])
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve POST /v1/{pose|face|hand|gesture|object|classify}[/video], GET /v1/models, /healthz, /readyz and /metrics.")

    @Option(help: "The folder holding the task bundles and models under their shipped names.") var models: String
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (0: any free port).") var port = 8080
    @Option(help: "Inference slots: requests running a task at once, each on its own task instance.") var slots = 2
    @Option(help: "Requests that may wait for a slot; more are refused with 503 and Retry-After.") var queue = 8
    @Option(help: "The largest image body in bytes (413 above).") var maxBody = 20 << 20
    @Option(help: "The largest video body in bytes (413 above); streamed to a temporary file.") var maxVideoBody = 512 << 20
    @Option(help: "The most pixels an image may have, read from its header before decoding (413 above).") var maxPixels = 40_000_000
    @Option(help: "Seconds from a request's arrival to its answer (504 after); for a video, to its slot.") var deadline = 30.0
    @Option(help: "A file holding the API key every /v1 request must carry (Authorization: Bearer KEY or X-API-Key).") var apiKeyFile: String?
    @Option(help: "Threads per task instance (default: the cores divided among the slots).") var threads: Int?
    @Option(help: "Seconds a connection may stay silent while its request is read, or between requests, before it is closed.") var idleTimeout = 30.0

    func run() async throws {
        var apiKey: String?
        if let apiKeyFile {
            do { apiKey = try String(contentsOfFile: apiKeyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) } catch {
                throw ValidationError("--api-key-file: cannot read \(apiKeyFile)")
            }
        }
        let configuration = ServerConfiguration(
            modelsDirectory: models, host: host, port: port, slots: slots, queue: queue, maxBody: maxBody,
            maxVideoBody: maxVideoBody, maxPixels: maxPixels, deadline: deadline, apiKey: apiKey, threadsPerSlot: threads,
            idleTimeout: idleTimeout)
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "vision-tasks-server")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(VisionTasksService.metricsFactory(registry: registry))
        let service: VisionTasksService
        do { service = try VisionTasksService(configuration: configuration, registry: registry, logger: logger) } catch {
            throw ValidationError("\(error)")
        }
        let app = service.makeApplication { port in
            // One line on standard output that scripts wait for (tools/load-test, the tests).
            FileHandle.standardOutput.write(Data("listening on \(configuration.host):\(port)\n".utf8))
        }
        try await app.runService()
    }
}
