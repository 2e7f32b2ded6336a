import Foundation

/// A model file on this machine (ML Kit's `LocalModel`): a `.tflite` image classifier, with its labels in its
/// metadata.
public final class LocalModel: Sendable {
    public let path: String
    /// A label file (one label per line, in class order) for a classifier whose metadata carries none; not an ML Kit
    /// parameter (its classifiers must carry metadata), for models such as Coral's without it.
    public let labelsPath: String?

    public init(path: String) {
        self.path = path
        labelsPath = nil
    }

    public init(path: String, labelsPath: String) {
        self.path = path
        self.labelsPath = labelsPath
    }
}

/// Where a remote model comes from. ML Kit fetches models from Firebase; we have no Firebase: a source is an HTTPS
/// URL and the SHA-256 of the file it serves, under a name.
public class RemoteModelSource: @unchecked Sendable {
    // @unchecked: immutable after init; a class so that ML Kit's subclass name (FirebaseModelSource) can exist.
    public let name: String
    /// Where to download the model; nil when no address is known for the name (the download then fails, and ML Kit's
    /// guide falls back to the local model).
    public let url: URL?
    /// The file's SHA-256, lowercase hexadecimal; a download whose bytes hash otherwise is refused.
    public let sha256: String?

    public init(name: String, url: URL, sha256: String) {
        self.name = name
        self.url = url
        self.sha256 = sha256.lowercased()
    }

    init(name: String) {
        self.name = name
        url = nil
        sha256 = nil
    }
}

/// ML Kit's `FirebaseModelSource(name:)`, so that its guide's code compiles. There is no Firebase here: the name is
/// looked up among the sources registered with ``ModelManager/register(_:)`` (or named in the environment variable
/// `VISION_TASKS_MODEL_SOURCES`, lines of `name url sha256`); an unknown name downloads nothing and reports failure.
public final class FirebaseModelSource: RemoteModelSource, @unchecked Sendable {
    public override init(name: String) {
        super.init(name: name)
    }
}

/// A model to download (ML Kit's `RemoteModel`).
public class RemoteModel: @unchecked Sendable {
    public let name: String
    public let remoteModelSource: RemoteModelSource

    init(remoteModelSource: RemoteModelSource) {
        name = remoteModelSource.name
        self.remoteModelSource = remoteModelSource
    }
}

/// A custom image classification model to download (ML Kit's `CustomRemoteModel`).
public final class CustomRemoteModel: RemoteModel, @unchecked Sendable {
    public override init(remoteModelSource: RemoteModelSource) {
        super.init(remoteModelSource: remoteModelSource)
    }
}

/// When a download may run (ML Kit's `ModelDownloadConditions`). Both of ML Kit's conditions are recorded; a Linux
/// machine has no cellular or background distinction, so neither holds a download back.
///
/// Two bounds are ours (ML Kit's Firebase serves only the developer's own models): a maximum size and a time limit,
/// so that a hostile or broken server can neither fill the disk nor hold a download open forever.
public struct ModelDownloadConditions: Sendable {
    /// 512 MiB: more than ten times the largest MediaPipe vision model (a few tens of MB), and a quarter of what a
    /// `.tflite` flatbuffer can address at all (32-bit offsets, 2 GiB), yet small enough that a server that never
    /// stops sending cannot fill a disk.
    public static let defaultMaximumModelSize: Int64 = 512 << 20
    /// 30 minutes: the default maximum size at about 300 KB/s, a typical model of tens of MB at tens of KB/s.
    public static let defaultTimeLimit: TimeInterval = 30 * 60

    public let allowsCellularAccess: Bool
    public let allowsBackgroundDownloading: Bool
    /// The most bytes a download may bring: a larger announced Content-Length is refused before the body is read,
    /// and a body without one is stopped at the first byte past it (``ModelDownloadError/modelTooLarge(limit:announced:)``).
    public let maximumModelSize: Int64
    /// The longest a download may take, in seconds, from the request to the last byte, however steadily the bytes
    /// come (``ModelDownloadError/timedOut(limit:)``). A server silent for 60 seconds fails sooner.
    public let timeLimit: TimeInterval

    public init(
        allowsCellularAccess: Bool = true, allowsBackgroundDownloading: Bool = true,
        maximumModelSize: Int64 = defaultMaximumModelSize, timeLimit: TimeInterval = defaultTimeLimit
    ) {
        self.allowsCellularAccess = allowsCellularAccess
        self.allowsBackgroundDownloading = allowsBackgroundDownloading
        self.maximumModelSize = maximumModelSize
        self.timeLimit = timeLimit
    }
}

extension Notification.Name {
    /// Posted when a remote model finished downloading; `userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue]`.
    public static let mlkitModelDownloadDidSucceed = Notification.Name("MLKModelDownloadDidSucceedNotification")
    /// Posted when a download failed; `userInfo` holds the model and the error.
    public static let mlkitModelDownloadDidFail = Notification.Name("MLKModelDownloadDidFailNotification")
}

/// Keys of the download notifications' `userInfo` (ML Kit's `ModelDownloadUserInfoKey`).
public enum ModelDownloadUserInfoKey: String, Sendable {
    case remoteModel = "MLKModelDownloadUserInfoKeyRemoteModel"
    case error = "MLKModelDownloadUserInfoKeyError"
}
