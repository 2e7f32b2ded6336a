import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksImaging

/// Errors of the vision tasks' API, as typed as MediaPipe's status codes.
public enum VisionTaskError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An option outside its allowed range (e.g. a confidence above 1, `numPoses` below 1).
    case invalidOption(name: String, reason: String)
    /// A method that does not belong to the task's running mode (e.g. `detect(image:)` in video mode).
    case wrongRunningMode(method: String, runningMode: RunningMode)
    /// Video and live-stream timestamps must strictly increase.
    case nonIncreasingTimestamp(previous: Int, current: Int)
    /// A video or live-stream timestamp outside ``acceptedTimestamps``: the smoothing filters count nanoseconds in
    /// 64 bits, so a caller passing nanosecond uptime or epoch microseconds as milliseconds is refused, not wrapped.
    case timestampOutOfRange(Int, accepted: ClosedRange<Int>)
    /// Live-stream mode needs a delegate to deliver results to.
    case missingLiveStreamDelegate
    /// The model file or bundle could not be read.
    case model(FormatError)
    /// The model could not be prepared or run.
    case engine(EngineError)
    /// The bundle is readable but is not the model this task needs.
    case wrongModel(String)
    case image(ImageError)
    /// A stage could not produce a result for this frame (e.g. the facial transformation fit degenerated); the
    /// task goes on with the next frame.
    case processingFailed(String)
    /// The task was closed (``PoseLandmarker/close()``); it takes no more input.
    case taskClosed

    public var description: String {
        switch self {
        case let .invalidOption(name, reason): return "invalid option `\(name)`: \(reason)"
        case let .wrongRunningMode(method, mode): return "`\(method)` cannot be used in \(mode) running mode"
        case let .nonIncreasingTimestamp(previous, current):
            return "timestamp \(current) ms is not greater than the previous one (\(previous) ms)"
        case let .timestampOutOfRange(timestamp, accepted):
            return "timestamp \(timestamp) ms is outside \(accepted.lowerBound)...\(accepted.upperBound) ms "
                + "(about ±292 years: are these nanoseconds or microseconds?)"
        case .missingLiveStreamDelegate: return "live-stream mode needs a live-stream delegate"
        case let .model(error): return "\(error)"
        case let .engine(error): return "\(error)"
        case let .wrongModel(reason): return "wrong model for this task: \(reason)"
        case let .image(error): return "\(error)"
        case let .processingFailed(reason): return "processing failed: \(reason)"
        case .taskClosed: return "the task was closed and takes no more input"
        }
    }

    /// The video and live-stream timestamps a task takes, in milliseconds: those whose nanoseconds fit in an `Int64`
    /// (the 1€ filter's clock, as MediaPipe's `OneEuroFilter` counts it).
    public static let acceptedTimestamps = (-(Int(Int64.max) / 1_000_000))...(Int(Int64.max) / 1_000_000)
}
