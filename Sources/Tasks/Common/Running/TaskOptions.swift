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
    /// The `.task` bundle's path. Optional, so that MediaPipe's `Bundle.main.path(forResource:ofType:)` assigns
    /// as it is; a task refuses to start without one.
    public var modelAssetPath: String?
    public var delegate: Delegate
    /// Threads the task may use: its models' operators are split over this many, and so is its pre-processing.
    /// nil (the default) uses every core. Results are bit-identical whatever the count. (MediaPipe has no such option
    /// off mobile; a process running several tasks can give each its share of the cores.)
    public var numThreads: Int?

    /// The most threads a task takes (the engine's worker pool splits an operator into at most this many parts).
    public static let maximumThreadCount = 64

    public init(modelAssetPath: String? = nil, delegate: Delegate = .cpu, numThreads: Int? = nil) {
        self.modelAssetPath = modelAssetPath
        self.delegate = delegate
        self.numThreads = numThreads
    }

    /// Checks the options every task shares.
    func validate() throws(VisionTaskError) {
        _ = try requiredModelPath()
        if let numThreads, !(1...Self.maximumThreadCount).contains(numThreads) {
            throw .invalidOption(name: "baseOptions.numThreads",
                                 reason: "\(numThreads) is outside 1...\(Self.maximumThreadCount) (nil uses every core)")
        }
    }

    /// The model path, or a typed error when none is set.
    func requiredModelPath() throws(VisionTaskError) -> String {
        guard let modelAssetPath, !modelAssetPath.isEmpty else {
            throw .invalidOption(name: "baseOptions.modelAssetPath", reason: "no model path is set")
        }
        return modelAssetPath
    }
}

/// Checks shared by every task's options.
enum OptionCheck {
    /// A confidence lies in [0, 1].
    static func confidence(_ value: Float, _ name: String) throws(VisionTaskError) {
        guard value.isFinite, (0...1).contains(value) else {
            throw .invalidOption(name: name, reason: "\(value) is outside [0.0, 1.0]")
        }
    }

    /// An instance count (numPoses, numFaces, numHands) is at least 1.
    static func count(_ value: Int, _ name: String) throws(VisionTaskError) {
        guard value >= 1 else { throw .invalidOption(name: name, reason: "\(value) is below 1") }
    }

    /// A live-stream delegate is set exactly in live-stream mode.
    static func liveStreamDelegate(isSet: Bool, runningMode: RunningMode, _ name: String) throws(VisionTaskError) {
        if runningMode == .liveStream, !isSet { throw .missingLiveStreamDelegate }
        if runningMode != .liveStream, isSet { throw .invalidOption(name: name, reason: "only used in live-stream mode") }
    }
}

/// A live-stream delegate, held weakly as MediaPipe holds it.
///
/// `@unchecked Sendable`: the delegate is the user's object and need not be `Sendable` (the delegate classes of
/// MediaPipe's guides are plain `NSObject` subclasses). The task only ever calls it on its one serial delivery
/// queue — MediaPipe's contract, written in the delegate protocols' documentation.
final class WeakDelegate<Delegate>: @unchecked Sendable {
    // AnyObject, not Delegate: a generic parameter bound to a protocol existential cannot be constrained to classes.
    private weak var object: AnyObject?

    init(_ value: Delegate?) { object = value.map { $0 as AnyObject } }

    var value: Delegate? { object as? Delegate }
}
