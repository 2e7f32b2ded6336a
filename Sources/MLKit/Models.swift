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

/// When a download may run (ML Kit's `ModelDownloadConditions`). Both conditions are recorded; a Linux machine has no
/// cellular or background distinction, so neither holds a download back.
public struct ModelDownloadConditions: Sendable {
    public let allowsCellularAccess: Bool
    public let allowsBackgroundDownloading: Bool

    public init(allowsCellularAccess: Bool = true, allowsBackgroundDownloading: Bool = true) {
        self.allowsCellularAccess = allowsCellularAccess
        self.allowsBackgroundDownloading = allowsBackgroundDownloading
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
