import Foundation
import Hummingbird
import HTTPTypes
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import VisionTasks
import VisionTasksResultJSON
import VisionTasksTooling

/// The HTTP service: the routes, the slots and queue (``InferencePool``) and the models (``ModelCatalog``).
///
/// `POST /v1/{task}` answers an image with exactly the object the CLI's `--json` writes in `results[0]`;
/// `POST /v1/{task}/video` answers a clip with the CLI's `--jsonl` lines, one per frame as it is computed.
public final class VisionTasksService: Sendable {
    public let configuration: ServerConfiguration
    let catalog: ModelCatalog
    let pool: InferencePool
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    private let readiness = ReadyFlag()
    private let metrics = ServiceMetrics()

    /// Finds the models (hashing them) and checks the configuration; the models are loaded by ``loadModels()``.
    public init(configuration: ServerConfiguration, registry: PrometheusCollectorRegistry, logger: Logger) throws(ServerError) {
        try configuration.validate()
        self.configuration = configuration
        catalog = try ModelCatalog(directory: configuration.modelsDirectory)
        pool = InferencePool(slots: configuration.slots, queueLimit: configuration.queue)
        self.registry = registry
        self.logger = logger
    }

    /// Loads every model once with its default options (checking it, timing it for `vision_tasks_model_load_seconds`)
    /// and keeps the instances for the first requests; `/readyz` answers 200 from then on.
    public func loadModels() async throws {
        for model in catalog.models {
            let setup = try TaskSetup(kind: model.task, query: [("model", model.name)], catalog: catalog)
            let threads = configuration.effectiveThreads
            let start = ContinuousClock.now
            let instance: TaskInstance
            do {
                instance = try await runBlocking({ try setup.makeInstance(mode: .image, threads: threads) }, finished: { _ in })
            } catch {
                throw ServerError.modelFailed(name: model.name, message: "\(error)")
            }
            metrics.modelLoad(model.name, seconds: start.duration(to: .now))
            await pool.checkIn(setup, instance)
            logger.info("loaded \(model.name)", metadata: ["task": "\(model.task.rawValue)", "sha256": "\(model.sha256)"])
        }
        readiness.set(true)
    }

    /// The application serving the routes on the configured address. `onListening` gets the bound port (the
    /// configured one, or the one picked for port 0). `loadsModels` adds a service that loads them as it starts.
    public func makeApplication(loadsModels: Bool = true, onListening: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.get("healthz") { _, _ in Self.json(["status": "ok"]) }
        router.get("readyz") { [readiness] _, _ in
            readiness.isSet ? Self.json(["status": "ready"]) : Self.json(["status": "loading models"], status: .serviceUnavailable)
        }
        router.get("metrics") { [registry] _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let v1 = router.group("v1")
        if let key = configuration.apiKey { v1.add(middleware: APIKeyMiddleware(key: key)) }
        v1.get("models") { [catalog] _, _ in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = try encoder.encode(["models": catalog.models])
            return Self.response(body, contentType: "application/json")
        }
        v1.post(":task") { request, context in try await self.answerImage(request, context: context) }
        v1.post(":task/video") { request, context in try await self.answerVideo(request, context: context) }

        var services: [any Service] = []
        if loadsModels { services.append(ModelLoader(service: self)) }
        let host = configuration.host, port = configuration.port
        // Hummingbird's idle timeout counts from the last byte read while a request is read or awaited, and not while
        // one is answered: it is what closes a stalled upload (slowloris) and a silent keep-alive connection.
        let idle = TimeAmount.nanoseconds(Int64(configuration.idleTimeout * 1e9))
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: idle)),
            configuration: .init(address: .hostname(host, port: port), serverName: "vision-tasks-server"),
            services: services,
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    // MARK: - Images

    private func answerImage(_ request: Request, context: some RequestContext) async throws -> Response {
        let deadline = ContinuousClock.now.advanced(by: .seconds(configuration.deadline))
        let kind = try Self.task(context)
        try Self.checkMediaType(request, accepted: Self.imageMediaTypes,
                                what: "an image (JPEG, PNG, BMP, GIF, PNM, TIFF, WebP, HEIC/HEIF or AVIF)")
        try checkLength(request, limit: configuration.maxBody)
        let query = Self.query(request)
        let setup = try TaskSetup(kind: kind, query: query, catalog: catalog)
        let label = query.last { $0.key == "name" }?.value ?? "image"
        let orientation = try Self.orientation(query)
        let limit = configuration.maxBody, maxPixels = configuration.maxPixels
        // Hummingbird's inbound-close handler cancels the operation when the client closes its side, so that a
        // request still waiting for a slot leaves the queue. The body is read inside it and always to its end (past
        // the limit it is read and dropped): the handler's stream must see the body's end before the operation ends.
        let answer = try await Self.mappingCancellation {
            try await request.body.consumeWithCancellationOnInboundClose { body in
                var bytes: [UInt8] = []
                var total = 0
                for try await buffer in body {
                    total += buffer.readableBytes
                    if total <= limit { bytes += buffer.readableBytesView }
                }
                guard total <= limit else { throw RequestError.tooLarge("the body (\(total) bytes) is over the \(limit)-byte limit") }
                // In Double: a PNG header may claim 2^32 − 1 on each side, whose product overflows Int.
                if let size = ImageHeader.size(of: bytes), Double(size.width) * Double(size.height) > Double(maxPixels) {
                    throw RequestError.tooLarge("the image is \(size.width)×\(size.height), over the \(maxPixels)-pixel limit")
                }
                return try await withDeadline(deadline) { [bytes] in
                    try await self.infer(setup: setup, bytes: bytes, label: label, orientation: orientation)
                }
            }
        }
        var response = Self.response(answer, contentType: "application/json")
        // Hummingbird closes the connection after a request that used its inbound-close handler: said so, a client
        // opens a new one instead of finding this one dead.
        response.headers[.connection] = "close"
        return response
    }

    /// Waits for a slot, then decodes and answers on an instance with the request's settings (kept for the next).
    private func infer(setup: TaskSetup, bytes: [UInt8], label: String, orientation: ImageOrientation) async throws -> Data {
        let waitStart = ContinuousClock.now
        let lease = try await SlotLease.acquire(pool)
        metrics.queueWait(seconds: waitStart.duration(to: .now))
        let kept = await pool.checkOut(setup)
        let threads = configuration.effectiveThreads
        let metrics = self.metrics, pool = self.pool
        let outcome = try await runBlocking({ () throws -> Answered in
            let start = ContinuousClock.now
            let image: MPImage
            do { image = try MPImage(encoded: bytes, orientation: orientation) } catch { throw RequestError.badRequest("\(error)") }
            let decoded = ContinuousClock.now
            metrics.stage(setup.kind, "decode", seconds: start.duration(to: decoded))
            let instance = try kept ?? Self.instance(setup, mode: .image, threads: threads)
            let data: Data
            do { data = try instance.answer(image: image, label: label) } catch { throw Self.requestError(error) }
            metrics.stage(setup.kind, "inference", seconds: decoded.duration(to: .now))
            return Answered(data: data, instance: instance)
        }, finished: { outcome in
            // The instance goes back only now, when its invocation has really ended (even if the request is gone).
            let instance = (try? outcome.get())?.instance ?? kept
            Task {
                if let instance { await pool.checkIn(setup, instance) }
                await lease.release()
            }
        })
        return outcome.data
    }

    private struct Answered: @unchecked Sendable {
        // @unchecked: the instance passes from the inference thread back to the pool, used by no one in between.
        let data: Data
        let instance: TaskInstance
    }

    // MARK: - Video

    private func answerVideo(_ request: Request, context: some RequestContext) async throws -> Response {
        let deadline = ContinuousClock.now.advanced(by: .seconds(configuration.deadline))
        let kind = try Self.task(context)
        try Self.checkMediaType(request, accepted: ["video/", "application/octet-stream"], what: "a video (video/*)")
        try checkLength(request, limit: configuration.maxVideoBody)
        let query = Self.query(request)
        let setup = try TaskSetup(kind: kind, query: query, catalog: catalog)
        let label = query.last { $0.key == "name" }?.value ?? "video"
        let orientation = try Self.orientation(query)
        let maxFrames = try Self.maxFrames(query)
        let upload = try await UploadFile.receive(request.body, limit: configuration.maxVideoBody)
        do {
            let waitStart = ContinuousClock.now
            let lease = try await Self.mappingCancellation { try await withDeadline(deadline) { try await SlotLease.acquire(self.pool) } }
            metrics.queueWait(seconds: waitStart.duration(to: .now))
            let threads = configuration.effectiveThreads
            // Probing and the first frame's task creation answer errors with a status; after the head is sent,
            // an error ends the stream with a line `{"error": …}` (the CLI's error line).
            let job = try await runBlocking({ () throws -> VideoJob in
                let decoder: VideoDecoder
                do { decoder = try VideoDecoder(path: upload.path, orientation: orientation) } catch {
                    throw RequestError.badRequest("\(error)".replacingOccurrences(of: upload.path, with: label))
                }
                return VideoJob(decoder: decoder, instance: try Self.instance(setup, mode: .video, threads: threads))
            }, finished: { _ in })
            let metrics = self.metrics
            var headers = HTTPFields()
            headers[.contentType] = "application/x-ndjson"
            let body = ResponseBody { writer in
                defer {
                    upload.remove()
                    Task { await lease.release() }
                }
                var index = 0
                while index < maxFrames {
                    let line: Data?
                    let frameLabel = "\(label)#\(index)"
                    do {
                        line = try await runBlocking({ () throws -> Data? in
                            let start = ContinuousClock.now
                            guard let frame = try job.decoder.nextFrame() else { return nil }
                            let decoded = ContinuousClock.now
                            metrics.stage(setup.kind, "decode", seconds: start.duration(to: decoded))
                            let line = try job.instance.answer(frame: frame.image, timestamp: frame.timestampMs, label: frameLabel)
                            metrics.stage(setup.kind, "inference", seconds: decoded.duration(to: .now))
                            return line
                        }, finished: { _ in })
                    } catch {
                        let message = "\(error)".replacingOccurrences(of: upload.path, with: label)
                        let line = try ReferenceJSON.line(["error": message, "image": frameLabel])
                        try await writer.write(ByteBuffer(bytes: line))
                        break
                    }
                    guard let line else { break }
                    // Throws when the client has gone: the loop ends, the slot and the file are freed.
                    try await writer.write(ByteBuffer(bytes: line))
                    metrics.frame(setup.kind)
                    index += 1
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: headers, body: body)
        } catch {
            upload.remove()
            throw error
        }
    }

    // MARK: - Helpers

    private static func instance(_ setup: TaskSetup, mode: RunningMode, threads: Int) throws -> TaskInstance {
        do { return try setup.makeInstance(mode: mode, threads: threads) } catch { throw requestError(error) }
    }

    /// The task's typed errors as statuses: the request's fault (an option out of range, an image the task cannot
    /// take) is 400 with the error's message; anything else is the service's (500).
    static func requestError(_ error: any Error) -> any Error {
        if error is RequestError { return error }
        if let error = error as? VisionTaskError {
            switch error {
            case .invalidOption, .image: return RequestError.badRequest("\(error)")
            default: return RequestError.internalError("\(error)")
            }
        }
        if error is ImageError || error is RegisteredTaskError { return RequestError.badRequest("\(error)") }
        return RequestError.internalError("\(error)")
    }

    /// A cancelled request (its client closed the connection) is counted as 499, nginx's "client closed request".
    private static func mappingCancellation<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch is CancellationError { throw RequestError.clientClosed }
    }

    private static func task(_ context: some RequestContext) throws -> TaskKind {
        let name = context.parameters.get("task") ?? ""
        guard let kind = TaskKind(rawValue: name) else {
            throw RequestError.notFound("no task '\(name)' (tasks: \(TaskKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return kind
    }

    private static func query(_ request: Request) -> [(key: String, value: String)] {
        request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    /// `maxFrames`: the most frames of a clip to answer (all by default).
    private static func maxFrames(_ query: [(key: String, value: String)]) throws -> Int {
        guard let value = query.last(where: { $0.key == "maxFrames" })?.value else { return .max }
        guard let number = Int(value), number > 0 else { throw RequestError.badRequest("maxFrames must be a positive integer (got '\(value)')") }
        return number
    }

    private static func orientation(_ query: [(key: String, value: String)]) throws -> ImageOrientation {
        guard let value = query.last(where: { $0.key == "rotationDegrees" })?.value else { return .up }
        guard let degrees = Int(value), let orientation = ImageOrientation(rotationDegrees: degrees) else {
            throw RequestError.badRequest("rotationDegrees must be a multiple of 90 (got '\(value)')")
        }
        return orientation
    }

    /// The photo types answered. The body is decoded by its content, whatever the type says (MPImage sniffs it):
    /// the type only keeps other media (text, video) from the image endpoints.
    static let imageMediaTypes = [
        "image/jpeg", "image/jpg", "image/pjpeg", "image/png", "image/bmp", "image/x-bmp", "image/x-ms-bmp", "image/gif",
        "image/x-portable-pixmap", "image/x-portable-graymap", "image/x-portable-anymap", "image/tiff", "image/webp",
        "image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence", "image/avif",
    ]

    private static func checkMediaType(_ request: Request, accepted: [String], what: String) throws {
        let type = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard accepted.contains(where: { $0.hasSuffix("/") ? type.hasPrefix($0) : type == $0 }) else {
            throw RequestError.unsupportedMediaType("Content-Type '\(type)' is not \(what)")
        }
    }

    private func checkLength(_ request: Request, limit: Int) throws {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw RequestError.tooLarge("the body (\(length) bytes) is over the \(limit)-byte limit")
        }
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        response((try? ReferenceJSONText.object(object)) ?? Data(), contentType: "application/json", status: status)
    }

    static func response(_ data: Data, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func markReady(_ ready: Bool) { readiness.set(ready) }
}

/// A clip's decoder and its own video-mode task instance, used by one response stream in order.
private final class VideoJob: @unchecked Sendable {
    // @unchecked: the response body's loop uses both one frame at a time (each step awaited before the next).
    let decoder: VideoDecoder
    let instance: TaskInstance
    init(decoder: VideoDecoder, instance: TaskInstance) {
        self.decoder = decoder
        self.instance = instance
    }
}

/// A held inference slot. Released once, explicitly; if a lease is dropped without that (a response body that never
/// ran), its deinit frees the slot so that none leaks.
final class SlotLease: @unchecked Sendable {
    // @unchecked: `released` under `lock`.
    private let pool: InferencePool
    private let lock = NSLock()
    private var released = false

    private init(pool: InferencePool) { self.pool = pool }

    static func acquire(_ pool: InferencePool) async throws -> SlotLease {
        try await pool.acquire()
        return SlotLease(pool: pool)
    }

    func release() async {
        guard take() else { return }
        await pool.release()
    }

    private func take() -> Bool {
        lock.lock(); defer { lock.unlock() }
        if released { return false }
        released = true
        return true
    }

    deinit {
        if take() { Task { [pool] in await pool.release() } }
    }
}

/// A request body streamed into a temporary file (never held whole in memory), refused past `limit` bytes.
struct UploadFile: Sendable {
    let path: String

    static func receive(_ body: RequestBody, limit: Int) async throws -> UploadFile {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("vision-tasks-upload-\(UUID().uuidString)")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw RequestError.internalError("cannot create a temporary file for the upload") }
        let file = UploadFile(path: path)
        do {
            defer { close(descriptor) }
            var total = 0
            for try await buffer in body {
                total += buffer.readableBytes
                guard total <= limit else { throw RequestError.tooLarge("the body is over the \(limit)-byte limit") }
                try buffer.withUnsafeReadableBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        guard written > 0 else { throw RequestError.internalError("cannot write the upload to a temporary file") }
                        offset += written
                    }
                }
            }
        } catch {
            file.remove()
            throw error
        }
        return file
    }

    func remove() { unlink(path) }
}

/// Whether the models are loaded (`/readyz`).
final class ReadyFlag: @unchecked Sendable {
    // @unchecked: `value` under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ newValue: Bool) { lock.lock(); value = newValue; lock.unlock() }
}

/// Loads the models once the application runs, then stays until shutdown (a service that returned would end the
/// group). A model that fails to load ends the service with its error.
struct ModelLoader: Service {
    let service: VisionTasksService

    func run() async throws {
        try await service.loadModels()
        try? await gracefulShutdown()
    }
}

/// `Authorization: Bearer KEY` or `X-API-Key: KEY`, compared in constant time.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let key: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let given = bearer ?? request.headers[HTTPField.Name("X-API-Key")!]
        guard let given, Self.equal(Array(given.utf8), Array(key.utf8)) else { throw RequestError.unauthorized }
        return try await next(request, context)
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
