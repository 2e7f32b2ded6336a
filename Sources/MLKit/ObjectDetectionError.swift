/// Why an image was not processed.
public enum ObjectDetectionError: Error, Sendable, CustomStringConvertible {
    /// The detector or classifier model could not be loaded (missing file, wrong model); the message says which.
    case modelUnavailable(String)
    /// The options name a remote model that is not downloaded (see `ModelManager.isModelDownloaded`).
    case modelNotDownloaded(name: String)
    /// A stream-mode frame passed to `process` while the previous one was still being processed (or while two answers
    /// waited for their completion): not processed.
    case frameDropped
    /// The image could not be processed.
    case processingFailed(String)

    public var description: String {
        switch self {
        case let .modelUnavailable(reason): return "model unavailable: \(reason)"
        case let .modelNotDownloaded(name): return "the remote model '\(name)' is not downloaded"
        case .frameDropped: return "frame dropped: the previous stream frame was still being processed"
        case let .processingFailed(reason): return "processing failed: \(reason)"
        }
    }
}
