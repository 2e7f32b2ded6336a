import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads remote models and keeps them on this machine (ML Kit's `ModelManager`).
///
/// ML Kit downloads from Firebase; here a model comes from the HTTPS URL of its ``RemoteModelSource`` — for a
/// ``FirebaseModelSource``, the source registered under its name (``register(_:)``, or the environment variable
/// `VISION_TASKS_MODEL_SOURCES`, lines of `name url sha256`) — and is kept only if its bytes have the source's SHA-256
/// and make a TFLite model that parses.
///
/// Downloaded models live in one folder, one file per model name: `$VISION_TASKS_MODEL_CACHE` when it is set, else
/// `$XDG_CACHE_HOME/vision-tasks/models`, else `~/.cache/vision-tasks/models` (read at each call). A download is
/// written beside its model under a hidden temporary name and renamed over the model only once it is verified, so a
/// failed, interrupted, corrupt or wrong-hash download never replaces a good model, and a reader never sees half a
/// file.
///
/// Only `https` URLs are accepted, also after a redirect; plain `http` only to 127.0.0.1, ::1 or localhost (for
/// tests and local mirrors).
///
/// Outcomes are posted on `NotificationCenter.default`, from a background thread, as ML Kit does:
/// `.mlkitModelDownloadDidSucceed` and `.mlkitModelDownloadDidFail`, whose `userInfo` holds the ``RemoteModel``
/// under `ModelDownloadUserInfoKey.remoteModel.rawValue` and, on failure, a ``ModelDownloadError`` under
/// `ModelDownloadUserInfoKey.error.rawValue`. All methods may be called from any thread.
public final class ModelManager: Sendable {
    private static let shared = ModelManager()

    /// The downloads under way, by model name, with the progress each returned.
    private let running = Mutex<[String: Progress]>([:])
    /// Where the checks before a download and the notifications run.
    private let queue = DispatchQueue(label: "VisionTasksMLKit.ModelManager", attributes: .concurrent)
    /// The cache to use; nil: the one the environment names, at each call.
    private let fixedCache: ModelCache?

    /// A manager over the folder `cacheDirectory`, or over the environment's (see the type's documentation).
    package init(cacheDirectory: URL? = nil) {
        fixedCache = cacheDirectory.map(ModelCache.init(directory:))
    }

    /// The shared model manager.
    public static func modelManager() -> ModelManager { shared }

    /// Registers `source` for ``FirebaseModelSource`` lookups of its name (ML Kit's models are named in the Firebase
    /// console; ours are named here). A later registration of the same name replaces the earlier one; a registration
    /// wins over a line of `VISION_TASKS_MODEL_SOURCES`. A source without a URL is ignored.
    public static func register(_ source: RemoteModelSource) {
        ModelSources.register(source)
    }

    private var cache: ModelCache { fixedCache ?? ModelCache.current() }

    /// Starts downloading `remoteModel` unless it is being downloaded already, and returns the download's progress
    /// (the running download's, for a model whose download is under way). Its `totalUnitCount` is the file's size in
    /// bytes once the server says it (-1 until then), `completedUnitCount` the bytes received; a successful download
    /// finishes it (`isFinished`), a failed one cancels it (`isCancelled`), and cancelling it stops the download.
    ///
    /// When the cache already holds the model with the source's SHA-256, nothing is fetched and the download succeeds
    /// at once. Both conditions are recorded and neither holds a download back: a Linux machine has no cellular or
    /// background distinction.
    public func download(_ remoteModel: RemoteModel, conditions: ModelDownloadConditions) -> Progress {
        let name = remoteModel.name
        let (progress, isNew) = running.withLock { running -> (Progress, Bool) in
            if let progress = running[name] { return (progress, false) }
            let progress = Progress(totalUnitCount: -1)
            progress.isCancellable = true
            running[name] = progress
            return (progress, true)
        }
        if isNew {
            let cache = self.cache
            queue.async { self.start(remoteModel, progress: progress, cache: cache) }
        }
        return progress
    }

    /// Whether `remoteModel` has been downloaded: its file is in the cache. Only verified downloads are ever put
    /// there, so a file that is there is the whole model some source named (possibly an older version than the
    /// source's current one, which ``download(_:conditions:)`` replaces).
    public func isModelDownloaded(_ remoteModel: RemoteModel) -> Bool {
        downloadedModelPath(remoteModel) != nil
    }

    /// The path of `remoteModel`'s downloaded file, for a detector to load; nil when it is not downloaded.
    package func downloadedModelPath(_ remoteModel: RemoteModel) -> String? {
        cache.storedModel(remoteModel.name)
    }

    /// Deletes `remoteModel`'s downloaded file. `completion` gets nil, or ``ModelDownloadError/notDownloaded(name:)``
    /// when there was nothing to delete, or ``ModelDownloadError/fileSystem(_:)``; it runs before this method returns
    /// (deleting is one unlink). A download under way is not stopped: cancel its progress for that.
    public func deleteDownloadedModel(_ remoteModel: RemoteModel, completion: @escaping ((any Error)?) -> Void) {
        guard let path = downloadedModelPath(remoteModel) else {
            return completion(ModelDownloadError.notDownloaded(name: remoteModel.name))
        }
        if unlink(path) != 0, errno != ENOENT {
            return completion(ModelDownloadError.fileSystem("cannot delete \(path): \(String(cString: strerror(errno)))"))
        }
        completion(nil)
    }

    // MARK: The download

    private func start(_ model: RemoteModel, progress: Progress, cache: ModelCache) {
        let source: ModelSources.Resolved
        do {
            _ = try ModelCache.fileName(for: model.name)
            source = try ModelSources.resolve(model.remoteModelSource)
            try cache.create()
        } catch {
            return finish(model, progress: progress, .failure(error))
        }
        // The model is there already, and is the source's: nothing to fetch.
        if let stored = cache.storedModel(model.name), ModelCache.sha256(ofFileAt: stored) == source.sha256 {
            var info = stat()
            if stat(stored, &info) == 0 { progress.totalUnitCount = Int64(info.st_size) }
            return finish(model, progress: progress, .success(()))
        }
        if progress.isCancelled { return finish(model, progress: progress, .failure(.cancelled)) }
        let download = ModelDownload(name: model.name, source: source, cache: cache, progress: progress) { result in
            self.finish(model, progress: progress, result)
        }
        download.start()
    }

    /// Ends a download: no longer running, its progress finished or cancelled, then the notification.
    private func finish(_ model: RemoteModel, progress: Progress, _ result: Result<Void, ModelDownloadError>) {
        running.withLock { running in
            if running[model.name] === progress { running[model.name] = nil }
        }
        let center = NotificationCenter.default
        switch result {
        case .success:
            if progress.totalUnitCount < 0 { progress.totalUnitCount = max(progress.completedUnitCount, 0) }
            progress.completedUnitCount = progress.totalUnitCount
            center.post(
                name: .mlkitModelDownloadDidSucceed, object: self,
                userInfo: [ModelDownloadUserInfoKey.remoteModel.rawValue: model])
        case let .failure(error):
            progress.cancellationHandler = nil
            if !progress.isCancelled { progress.cancel() }
            center.post(
                name: .mlkitModelDownloadDidFail, object: self,
                userInfo: [ModelDownloadUserInfoKey.remoteModel.rawValue: model, ModelDownloadUserInfoKey.error.rawValue: error])
        }
    }
}
