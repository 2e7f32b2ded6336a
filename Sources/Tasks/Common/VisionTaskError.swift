import Engine
import Format
import Vision

/// Errors of the vision tasks' API, as typed as MediaPipe's status codes.
public enum VisionTaskError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An option outside its allowed range (e.g. a confidence above 1, `numPoses` below 1).
    case invalidOption(name: String, reason: String)
    /// A method that does not belong to the task's running mode (e.g. `detect(image:)` in video mode).
    case wrongRunningMode(method: String, runningMode: RunningMode)
    /// Video and live-stream timestamps must strictly increase.
    case nonIncreasingTimestamp(previous: Int, current: Int)
    /// Live-stream mode needs a delegate to deliver results to.
    case missingLiveStreamDelegate
    /// The model file or bundle could not be read.
    case model(FormatError)
    /// The model could not be prepared or run.
    case engine(EngineError)
    /// The bundle is readable but is not the model this task needs.
    case wrongModel(String)
    case image(ImageError)

    public var description: String {
        switch self {
        case let .invalidOption(name, reason): return "invalid option `\(name)`: \(reason)"
        case let .wrongRunningMode(method, mode): return "`\(method)` cannot be used in \(mode) running mode"
        case let .nonIncreasingTimestamp(previous, current):
            return "timestamp \(current) ms is not greater than the previous one (\(previous) ms)"
        case .missingLiveStreamDelegate: return "live-stream mode needs a live-stream delegate"
        case let .model(error): return "\(error)"
        case let .engine(error): return "\(error)"
        case let .wrongModel(reason): return "wrong model for this task: \(reason)"
        case let .image(error): return "\(error)"
        }
    }
}

/// How a task is fed: single images, frames of a video (with timestamps), or a live stream whose results arrive
/// on a delegate.
public enum RunningMode: Sendable, Equatable, CustomStringConvertible {
    case image, video, liveStream

    public var description: String {
        switch self {
        case .image: return "image"
        case .video: return "video"
        case .liveStream: return "live stream"
        }
    }
}

/// Where the model comes from. Only the CPU exists here; `delegate` is kept for source compatibility.
public struct BaseOptions: Sendable, Equatable {
    public enum Delegate: Sendable, Equatable { case cpu, gpu }
    public var modelAssetPath: String
    public var delegate: Delegate

    public init(modelAssetPath: String = "", delegate: Delegate = .cpu) {
        self.modelAssetPath = modelAssetPath
        self.delegate = delegate
    }
}

/// Checks that a confidence option lies in [0, 1].
func validateConfidence(_ value: Float, _ name: String) throws(VisionTaskError) {
    guard value.isFinite, (0...1).contains(value) else {
        throw .invalidOption(name: name, reason: "\(value) is outside [0.0, 1.0]")
    }
}
