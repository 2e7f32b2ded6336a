import Foundation

/// What `vision-tasks-server serve` is started with.
public struct ServerConfiguration: Sendable {
    /// The folder holding the task bundles and models under their shipped names (``TaskKind/modelNames``).
    public var modelsDirectory: String
    public var host: String
    /// 0 picks a free port (the tests' choice); ``VisionTasksService/run(onListening:)`` reports it.
    public var port: Int
    /// Inference slots: how many requests run a task at once, each on a task instance of its own.
    public var slots: Int
    /// Requests that may wait for a slot; beyond them a request is refused at once with 503 and Retry-After.
    public var queue: Int
    /// The largest image body accepted (413 above it).
    public var maxBody: Int
    /// The largest video body accepted (413 above it); the clip is streamed to a temporary file, never held whole.
    public var maxVideoBody: Int
    /// The most pixels (width × height, from the image's header, before decoding) an image may have (413 above it).
    public var maxPixels: Int
    /// Seconds a request may take from arrival to its answer (504 after); for a video, to its first frame's slot.
    public var deadline: Double
    /// When set, every /v1 request must carry it (`Authorization: Bearer KEY` or `X-API-Key: KEY`), else 401.
    public var apiKey: String?
    /// Threads each task instance uses (nil: the cores divided among the slots). Results do not depend on it.
    public var threadsPerSlot: Int?
    /// Seconds a connection may stay silent while its request is being read, or between requests, before it is closed:
    /// a stalled or trickling upload and an idle keep-alive connection do not hold a connection (and the memory of
    /// the body read so far) for ever. Not while the request is answered: inference and a streamed video answer are
    /// bounded by ``deadline`` and the client's reading.
    public var idleTimeout: Double

    public init(modelsDirectory: String, host: String = "127.0.0.1", port: Int = 8080, slots: Int = 2, queue: Int = 8,
                maxBody: Int = 20 << 20, maxVideoBody: Int = 512 << 20, maxPixels: Int = 40_000_000, deadline: Double = 30,
                apiKey: String? = nil, threadsPerSlot: Int? = nil, idleTimeout: Double = 30) {
        self.modelsDirectory = modelsDirectory
        self.host = host
        self.port = port
        self.slots = slots
        self.queue = queue
        self.maxBody = maxBody
        self.maxVideoBody = maxVideoBody
        self.maxPixels = maxPixels
        self.deadline = deadline
        self.apiKey = apiKey
        self.threadsPerSlot = threadsPerSlot
        self.idleTimeout = idleTimeout
    }

    /// Refuses settings no service can run with, naming the flag.
    public func validate() throws(ServerError) {
        guard (1...1024).contains(slots) else { throw .configuration("--slots must be between 1 and 1024 (got \(slots))") }
        guard (0...100_000).contains(queue) else { throw .configuration("--queue must be between 0 and 100000 (got \(queue))") }
        guard maxBody > 0 else { throw .configuration("--max-body must be positive") }
        guard maxVideoBody > 0 else { throw .configuration("--max-video-body must be positive") }
        guard maxPixels > 0 else { throw .configuration("--max-pixels must be positive") }
        guard deadline.isFinite, deadline > 0, deadline <= 86_400 else {
            throw .configuration("--deadline must be a number of seconds between 0 and 86400 (got \(deadline))")
        }
        guard idleTimeout.isFinite, idleTimeout > 0, idleTimeout <= 86_400 else {
            throw .configuration("--idle-timeout must be a number of seconds between 0 and 86400 (got \(idleTimeout))")
        }
        guard (0...65_535).contains(port) else { throw .configuration("--port must be between 0 and 65535 (got \(port))") }
        if let threadsPerSlot, !(1...64).contains(threadsPerSlot) {
            throw .configuration("--threads must be between 1 and 64 (got \(threadsPerSlot))")
        }
        if let apiKey, apiKey.isEmpty { throw .configuration("the API key file is empty") }
    }

    /// Threads per task instance: the machine's cores shared among the slots, so that full slots do not oversubscribe.
    var effectiveThreads: Int {
        threadsPerSlot ?? max(1, ProcessInfo.processInfo.activeProcessorCount / slots)
    }
}

/// Why the service could not start.
public enum ServerError: Error, CustomStringConvertible, Equatable {
    case configuration(String)
    case noModels(directory: String)
    case modelFailed(name: String, message: String)

    public var description: String {
        switch self {
        case let .configuration(message): return message
        case let .noModels(directory):
            return "no task bundle or model under its shipped name in \(directory) (expected one of \(TaskKind.allCases.flatMap(\.modelNames).joined(separator: ", ")))"
        case let .modelFailed(name, message): return "\(name): \(message)"
        }
    }
}
