internal import class VisionTasks.Locked
import Foundation
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
/// tests and local mirrors). A redirect never goes from HTTPS to HTTP, and goes to this machine or a private network
/// only from a source there (``ModelDownloadError/redirectRefused(from:to:reason:)``).
///
/// A download is bounded by its conditions' ``ModelDownloadConditions/maximumModelSize`` (512 MiB by default) and
/// ``ModelDownloadConditions/timeLimit`` (30 minutes by default). The cache folder is created 0700 and refused when
/// another user owns it or others may write in it; a model file there that is a symbolic link is refused, not
/// followed (``ModelDownloadError/unsafeCache(path:reason:)``). A stored model is hashed again each time it is
/// loaded or asked for by ``download(_:conditions:)``. A file whose bytes are not the source's is downloaded again:
/// ``download(_:conditions:)`` keeps it until the new file is verified (it may be an older version, usable if the
/// download fails); loading it removes it and starts that download.
///
/// Outcomes are posted on `NotificationCenter.default`, from a background thread, as ML Kit does:
/// `.mlkitModelDownloadDidSucceed` and `.mlkitModelDownloadDidFail`, whose `userInfo` holds the ``RemoteModel``
/// under `ModelDownloadUserInfoKey.remoteModel.rawValue` and, on failure, a ``ModelDownloadError`` under
/// `ModelDownloadUserInfoKey.error.rawValue`. All methods may be called from any thread.
public final class ModelManager: Sendable {
    private static let shared = ModelManager()

    /// The downloads under way, by model name, with the progress each returned.
    private let running = Locked<[String: Progress]>([:])
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
            queue.async { self.start(remoteModel, conditions: conditions, progress: progress, cache: cache) }
        }
        return progress
    }

    /// Whether `remoteModel` has been downloaded: its file is in the cache (a regular file, not a link). Only
    /// verified downloads are ever put there, so a file that is there is the whole model some source named (possibly
    /// an older version than the source's current one, which ``download(_:conditions:)`` replaces once the new one is
    /// verified). The file is not hashed here (apps ask this often); it is when the model is loaded.
    public func isModelDownloaded(_ remoteModel: RemoteModel) -> Bool {
        cache.storedModel(remoteModel.name) != nil
    }

    /// The path of `remoteModel`'s downloaded file, for a detector to load, after checking the cache folder and the
    /// file's SHA-256 against the source's; nil when it is not downloaded, when the folder or the file is unsafe
    /// (see ``verifiedModelPath(_:)``), or when the file's bytes are not the source's — then the file is removed and
    /// a download of the model starts, announced by the usual notifications.
    ///
    /// A file that hashes otherwise may be damaged, tampered with, or an older version whose source has since named
    /// a new SHA-256: nothing records which (the cache holds model files only), and only bytes checked against the
    /// source are ever run, so all three are treated alike. Removing rather than failing is what ML Kit's apps
    /// expect: the model is simply not downloaded (yet), and the guide's fallback to the local model applies.
    package func downloadedModelPath(_ remoteModel: RemoteModel) -> String? {
        try? verifiedModelPath(remoteModel)
    }

    /// `remoteModel`'s downloaded file, checked as ``downloadedModelPath(_:)`` says; nil when it is not there (or was
    /// removed for its bytes), the reason when the cache is unsafe or the model's source unknown.
    package func verifiedModelPath(_ remoteModel: RemoteModel) throws(ModelDownloadError) -> String? {
        let cache = self.cache
        try cache.checkDirectory()
        // Without its source there is no SHA-256 to check the file against, and an unchecked file is not loaded.
        let source = try ModelSources.resolve(remoteModel.remoteModelSource)
        switch try cache.lookUp(remoteModel.name, sha256: source.sha256, removingDifferent: true) {
        case .missing:
            return nil
        case .different:
            _ = download(remoteModel, conditions: ModelDownloadConditions())
            return nil
        case let .verified(path, _):
            return path
        }
    }

    /// Deletes `remoteModel`'s downloaded file. `completion` gets nil, or ``ModelDownloadError/notDownloaded(name:)``
    /// when there was nothing to delete, or ``ModelDownloadError/fileSystem(_:)``; it runs before this method returns
    /// (deleting is one unlink). A download under way is not stopped: cancel its progress for that.
    public func deleteDownloadedModel(_ remoteModel: RemoteModel, completion: @escaping ((any Error)?) -> Void) {
        // Whatever is there goes, a link included (unlink removes the link, not what it points to).
        guard cache.hasEntry(for: remoteModel.name), let path = try? cache.path(for: remoteModel.name) else {
            return completion(ModelDownloadError.notDownloaded(name: remoteModel.name))
        }
        if unlink(path) != 0, errno != ENOENT {
            return completion(ModelDownloadError.fileSystem("cannot delete \(path): \(String(cString: strerror(errno)))"))
        }
        completion(nil)
    }

    // MARK: The download

    private func start(_ model: RemoteModel, conditions: ModelDownloadConditions, progress: Progress, cache: ModelCache) {
        let source: ModelSources.Resolved
        let stored: ModelCache.Lookup
        do {
            guard conditions.maximumModelSize > 0 else {
                throw ModelDownloadError.invalidConditions("maximumModelSize is \(conditions.maximumModelSize), not a positive number of bytes")
            }
            guard conditions.timeLimit > 0, conditions.timeLimit.isFinite else {
                throw ModelDownloadError.invalidConditions("timeLimit is \(conditions.timeLimit), not a positive, finite number of seconds")
            }
            _ = try ModelCache.fileName(for: model.name)
            source = try ModelSources.resolve(model.remoteModelSource)
            try cache.prepare()
            // A different file is kept until a verified download replaces it: it may be an older version, still
            // usable if this download fails (loading it is another matter: see verifiedModelPath).
            stored = try cache.lookUp(model.name, sha256: source.sha256, removingDifferent: false)
        } catch let error as ModelDownloadError {
            return finish(model, progress: progress, .failure(error))
        } catch {
            return finish(model, progress: progress, .failure(.fileSystem("\(error)")))
        }
        // The model is there already, and is the source's: nothing to fetch.
        if case let .verified(_, size) = stored {
            progress.totalUnitCount = size
            return finish(model, progress: progress, .success(()))
        }
        if progress.isCancelled { return finish(model, progress: progress, .failure(.cancelled)) }
        let download = ModelDownload(
            name: model.name, source: source, conditions: conditions, cache: cache, progress: progress
        ) { result in
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
