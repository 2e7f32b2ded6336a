import Foundation

/// Why a remote model was not downloaded, or not deleted: the error in `.mlkitModelDownloadDidFail`'s `userInfo`
/// (under `ModelDownloadUserInfoKey.error.rawValue`) and in `deleteDownloadedModel`'s completion. ML Kit gives an
/// `NSError` there; ours is typed, so `userInfo[...] as? ModelDownloadError` tells the cases apart.
public enum ModelDownloadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A `FirebaseModelSource` name that no source was registered for (``ModelManager/register(_:)``, or the
    /// environment variable `VISION_TASKS_MODEL_SOURCES`).
    case noSource(name: String)
    /// A source whose URL or SHA-256 is unusable: a line of `VISION_TASKS_MODEL_SOURCES` that does not parse, or a
    /// SHA-256 that is not 64 hexadecimal digits.
    case invalidSource(name: String, reason: String)
    /// A model name that cannot be a file name in the cache: empty, or with a path separator, `..` or a NUL in it.
    case invalidModelName(String)
    /// A URL that is not HTTPS (plain HTTP only to 127.0.0.1, ::1 or localhost), directly or by a redirect.
    case insecureURL(String)
    /// The server answered with a status other than 200.
    case httpStatus(Int)
    /// The connection ended before the whole file came: `received` bytes of `expected` (nil when the server did not
    /// say how many).
    case interrupted(received: Int64, expected: Int64?)
    /// The downloaded bytes do not hash to the source's SHA-256 (lowercase hexadecimal, both).
    case checksumMismatch(expected: String, actual: String)
    /// The downloaded file is not a TFLite model (empty, or not a `TFL3` flatbuffer that parses).
    case notAModel(reason: String)
    /// The request failed before or without a response (no connection, a DNS or TLS failure, a time-out).
    case network(String)
    /// The download's `Progress` was cancelled.
    case cancelled
    /// The cache directory or a file in it could not be created, written, renamed or removed.
    case fileSystem(String)
    /// `deleteDownloadedModel` of a model that is not downloaded.
    case notDownloaded(name: String)
    /// The model is larger than the download's ``ModelDownloadConditions/maximumModelSize`` (`limit` bytes): the
    /// server announced `announced` bytes (refused before the body is read), or nil when it announced no length and
    /// sent more than the limit (the download stops at the first byte past it).
    case modelTooLarge(limit: Int64, announced: Int64?)
    /// The download took longer than its ``ModelDownloadConditions/timeLimit`` (`limit` seconds, the whole transfer
    /// from the request to the last byte).
    case timedOut(limit: TimeInterval)
    /// A redirect the rules refuse (see ``ModelManager``): from HTTPS to plain HTTP, or to this machine or a private
    /// network from a source that is not there itself.
    case redirectRefused(from: String, to: String, reason: String)
    /// The cache folder or a file in it is not safe to use: a folder owned by another user or writable by others, a
    /// model file that is a symbolic link or not a regular file.
    case unsafeCache(path: String, reason: String)
    /// Download conditions that cannot be met: a maximum size or a time limit that is not positive (or not finite).
    case invalidConditions(String)

    public var description: String {
        switch self {
        case let .noSource(name): return "no source is registered for the remote model '\(name)'"
        case let .invalidSource(name, reason): return "the source of the remote model '\(name)' is invalid: \(reason)"
        case let .invalidModelName(name): return "'\(name)' cannot name a model file (path separator, '..' or empty)"
        case let .insecureURL(url): return "refused \(url): models are downloaded over HTTPS only"
        case let .httpStatus(status): return "the server answered HTTP \(status)"
        case let .interrupted(received, expected):
            return "the download was interrupted after \(received) bytes" + (expected.map { " of \($0)" } ?? "")
        case let .checksumMismatch(expected, actual):
            return "the download's SHA-256 is \(actual), the source's is \(expected)"
        case let .notAModel(reason): return "the download is not a TFLite model: \(reason)"
        case let .network(reason): return "the download failed: \(reason)"
        case .cancelled: return "the download was cancelled"
        case let .fileSystem(reason): return "the model cache: \(reason)"
        case let .notDownloaded(name): return "the remote model '\(name)' is not downloaded"
        case let .modelTooLarge(limit, announced):
            return (announced.map { "the server announced \($0) bytes, " } ?? "the server sent more bytes than the limit, ")
                + "more than the download's maximumModelSize of \(limit) bytes"
        case let .timedOut(limit): return "the download took longer than its timeLimit of \(limit) seconds"
        case let .redirectRefused(from, to, reason): return "refused the redirect from \(from) to \(to): \(reason)"
        case let .unsafeCache(path, reason): return "the model cache is unsafe: \(path) \(reason)"
        case let .invalidConditions(reason): return "invalid download conditions: \(reason)"
        }
    }
}

extension ModelDownloadError: LocalizedError {
    public var errorDescription: String? { description }
}
