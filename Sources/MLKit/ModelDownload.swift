internal import class VisionTasks.Locked
import VisionTasksModelFormat

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One model download: a URLSession data task whose bytes go to a hidden partial file in the cache while they are
/// hashed; at the end the file is checked — every byte the server announced, the source's SHA-256, a TFLite model
/// that parses — and only then renamed over the model's file. Whatever fails, the partial file is removed and the
/// model already in the cache, if any, stays as it was.
///
/// The conditions bound it: more than `maximumModelSize` bytes (announced, or counted as they come) and more than
/// `timeLimit` seconds in all end it with a typed error, and each redirect must pass ``RedirectPolicy``.
///
/// URLSession calls the delegate on one serial queue, in order; `state` is locked all the same, because the
/// progress' cancellation handler runs on whichever thread cancels it.
final class ModelDownload: NSObject, URLSessionDataDelegate, Sendable {
    private let name: String
    private let source: ModelSources.Resolved
    private let conditions: ModelDownloadConditions
    private let cache: ModelCache
    private let progress: Progress
    private let finish: @Sendable (Result<Void, ModelDownloadError>) -> Void
    private let state = Locked(State())

    private struct State {
        var partial: (path: String, descriptor: Int32)?
        var hasher = SHA256()
        var received: Int64 = 0
        var expected: Int64?
        var sawResponse = false
        /// Set when this side ends the task (a bad status, a write error, a cancelled progress): the outcome, which
        /// URLSession then reports as a cancellation.
        var failure: ModelDownloadError?
        var task: URLSessionTask?
        var finished = false
    }

    /// What the completion reads of the state once the transfer has ended, all `Sendable`: Swift 6.0 refuses to let a
    /// non-Sendable value (the task, the hasher) out of the lock.
    private struct Ended: Sendable {
        let partial: (path: String, descriptor: Int32)?
        /// The SHA-256 of what was received (the hasher itself is not `Sendable`).
        let digest: String
        let received: Int64
        let expected: Int64?
        let sawResponse: Bool
        let failure: ModelDownloadError?

        init(_ state: State) {
            (partial, digest, received, expected) = (state.partial, SHA256.hexadecimal(state.hasher.finalize()), state.received, state.expected)
            (sawResponse, failure) = (state.sawResponse, state.failure)
        }
    }

    init(
        name: String, source: ModelSources.Resolved, conditions: ModelDownloadConditions, cache: ModelCache,
        progress: Progress, finish: @escaping @Sendable (Result<Void, ModelDownloadError>) -> Void
    ) {
        self.name = name
        self.source = source
        self.conditions = conditions
        self.cache = cache
        self.progress = progress
        self.finish = finish
    }

    /// Starts the request. The session holds this delegate until its one task ends, then lets it go.
    func start() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        // Time-out between bytes: a silent server fails within a minute. The whole transfer is bounded by the
        // conditions' time limit, enforced below by a timer of our own (swift-corelibs-foundation's
        // timeoutIntervalForResource is not relied upon), which a server trickling a byte at a time cannot defer.
        configuration.timeoutIntervalForRequest = 60
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "VisionTasksMLKit.ModelDownload.\(name)"
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        let task = session.dataTask(with: URLRequest(url: source.url))
        state.withLock { $0.task = task }
        progress.cancellationHandler = { [weak self] in self?.stop(.cancelled) }
        let limit = conditions.timeLimit
        // The session holds the delegate only while the task runs; a timer that fires later finds nothing to stop.
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [weak self] in self?.stop(.timedOut(limit: limit)) }
        task.resume()
        session.finishTasksAndInvalidate()
        // A progress cancelled before its handler was set.
        if progress.isCancelled { stop(.cancelled) }
    }

    /// Ends the download with `failure` (the first reason wins) and cancels its task.
    private func stop(_ failure: ModelDownloadError) {
        let task = state.withLock { state -> URLSessionTask? in
            guard !state.finished, state.failure == nil else { return nil }
            state.failure = failure
            return state.task
        }
        task?.cancel()
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // swift-corelibs-foundation ignores the disposition (a `.cancel` would not cancel): the task is cancelled
        // directly when the response is refused.
        completionHandler(.allow)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { return stop(.httpStatus(status)) }
        // Refused before a byte of the body is read or a file is created.
        if response.expectedContentLength > conditions.maximumModelSize {
            return stop(.modelTooLarge(limit: conditions.maximumModelSize, announced: response.expectedContentLength))
        }
        let partial: (path: String, descriptor: Int32)
        do { partial = try cache.createPartialFile(for: name) } catch { return stop(error) }
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let kept = state.withLock { state -> Bool in
            guard state.failure == nil, state.partial == nil else { return false }
            state.sawResponse = true
            state.partial = partial
            state.expected = expected
            return true
        }
        guard kept else {
            close(partial.descriptor)
            unlink(partial.path)
            return
        }
        if let expected { progress.totalUnitCount = expected }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let outcome = state.withLock { state -> Result<Int64, ModelDownloadError>? in
            guard state.failure == nil, let partial = state.partial else { return nil }
            // Counted before writing, as a subtraction that cannot overflow: the file never holds more than the limit.
            if Int64(data.count) > conditions.maximumModelSize - state.received {
                return .failure(.modelTooLarge(limit: conditions.maximumModelSize, announced: nil))
            }
            if let expected = state.expected, state.received + Int64(data.count) > expected {
                return .failure(.network("the server sent more than the \(expected) bytes it announced"))
            }
            if let reason = Self.writeAll(data, to: partial.descriptor) {
                return .failure(.fileSystem("cannot write \(partial.path): \(reason)"))
            }
            state.hasher.update(data: data)
            state.received += Int64(data.count)
            return .success(state.received)
        }
        switch outcome {
        case let .success(received): progress.completedUnitCount = received
        case let .failure(error): stop(error)
        case nil: break
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A redirect must keep to the same rule as the source's URL (HTTPS, plain HTTP only to this machine), then to
        // the redirect rules against both the source and the hop it comes from.
        guard let url = request.url, ModelSources.isAllowed(url) else {
            completionHandler(nil)
            return stop(.insecureURL(request.url?.absoluteString ?? "a redirect without a URL"))
        }
        for origin in [source.url, response.url ?? task.currentRequest?.url ?? source.url] {
            if let reason = RedirectPolicy.refusal(from: origin, to: url) {
                completionHandler(nil)
                return stop(.redirectRefused(from: origin.absoluteString, to: url.absoluteString, reason: reason))
            }
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let ended = state.withLock { state -> Ended? in
            guard !state.finished else { return nil }
            state.finished = true
            state.task = nil
            return Ended(state)
        }
        guard let ended else { return }
        var result: Result<Void, ModelDownloadError>
        if let failure = ended.failure {
            result = .failure(failure)
        } else if let error {
            // A connection that closed after the response began is an interrupted download (curl reports a body
            // shorter than its Content-Length so); one that never answered is a network failure.
            result = .failure(ended.sawResponse
                ? .interrupted(received: ended.received, expected: ended.expected)
                : .network(error.localizedDescription))
        } else if ended.partial == nil {
            result = .failure(.network("the server sent no response"))
        } else if let expected = ended.expected, ended.received != expected {
            result = .failure(.interrupted(received: ended.received, expected: expected))
        } else {
            result = .success(())
        }

        if let partial = ended.partial {
            if case .success = result, fsync(partial.descriptor) != 0 {
                result = .failure(.fileSystem("cannot sync \(partial.path): \(String(cString: strerror(errno)))"))
            }
            close(partial.descriptor)
            if case .success = result {
                result = Result { () throws(ModelDownloadError) in
                    try verify(partial.path, received: ended.received, digest: ended.digest)
                    try cache.install(partial.path, as: name)
                }
            }
            if case .failure = result { unlink(partial.path) }
        }
        if case .success = result { progress.totalUnitCount = ended.received }
        finish(result)
    }

    /// The checks a complete download passes before it replaces anything: not empty, the source's SHA-256, and a
    /// TFLite model that our reader parses (so that the detector that loads it later does not find it unreadable).
    private func verify(_ path: String, received: Int64, digest: String) throws(ModelDownloadError) {
        guard received > 0 else { throw .notAModel(reason: "the server sent an empty file") }
        guard digest == source.sha256 else { throw .checksumMismatch(expected: source.sha256, actual: digest) }
        do {
            _ = try TFLiteModel(path: path)
        } catch {
            throw .notAModel(reason: error.description)
        }
    }

    /// Writes all of `data`; the reason on failure.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> String? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }
}
