/// The hardware a task asks to run on (MediaPipe's `MPPDelegate`, `Delegate` in Swift, with its raw values). Only the
/// CPU exists here: `.GPU` is accepted and runs on the CPU, so that code written for MediaPipe's samples (whose
/// constants pick `.CPU` or `.GPU`) runs unchanged.
public enum Delegate: UInt, Sendable, CaseIterable, CustomStringConvertible {
    case CPU = 0
    case GPU = 1

    /// Our earlier spelling of ``CPU``.
    public static let cpu = Delegate.CPU
    /// Our earlier spelling of ``GPU``.
    public static let gpu = Delegate.GPU

    public var description: String {
        switch self {
        case .CPU: return "CPU"
        case .GPU: return "GPU"
        }
    }
}

/// Where the model comes from and how a task runs (MediaPipe's `MPPBaseOptions`, `BaseOptions` in Swift): a class, as
/// MediaPipe's is, so that `options.baseOptions.modelAssetPath = …` sets the options' own instance, even on a `let`.
///
/// Assigning it to ``TaskOptions/baseOptions`` stores a copy (MediaPipe's property is `copy`), ``copy()`` copies it,
/// and a task takes a snapshot of it at creation: changing an instance afterwards reaches no task already created.
///
/// Thread safety: its fields are behind a lock, so it may be shared between threads (it is `Sendable`).
public final class BaseOptions: Sendable, Equatable {
    /// MediaPipe's name for the delegate type is the top-level ``Delegate``; this one is our earlier nested spelling.
    public typealias Delegate = VisionTasks.Delegate

    /// Every field in one value: what a task keeps of the options at creation.
    struct Values: Sendable, Equatable {
        var modelAssetPath: String? = ""
        var delegate: Delegate = .CPU
        var numThreads: Int?
    }

    private let state: Locked<Values>

    /// The `.task` bundle's (or `.tflite` model's) path; empty by default, as MediaPipe's. Implicitly unwrapped, so
    /// that it takes MediaPipe's guides' `Bundle.main.path(forResource:ofType:)` (an optional) as it is and reads
    /// as MediaPipe's non-optional `String`; a task refuses to start without a path (nil or empty).
    public var modelAssetPath: String! {
        get { state.withLock { $0.modelAssetPath } }
        set { state.withLock { $0.modelAssetPath = newValue } }
    }

    /// The hardware to run on: `.CPU` (the default) or `.GPU`, which runs on the CPU here.
    public var delegate: Delegate {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Threads the task may use: its models' operators are split over this many, and so is its pre-processing.
    /// nil (the default) uses every core. Results are bit-identical whatever the count. (MediaPipe has no such option
    /// off mobile; a process running several tasks can give each its share of the cores.)
    public var numThreads: Int? {
        get { state.withLock { $0.numThreads } }
        set { state.withLock { $0.numThreads = newValue } }
    }

    /// The most threads a task takes (the engine's worker pool splits an operator into at most this many parts).
    public static let maximumThreadCount = 64

    /// MediaPipe's defaults: no model path, the CPU.
    public convenience init() {
        self.init(Values())
    }

    public convenience init(modelAssetPath: String? = "", delegate: Delegate = .CPU, numThreads: Int? = nil) {
        self.init(Values(modelAssetPath: modelAssetPath, delegate: delegate, numThreads: numThreads))
    }

    init(_ values: Values) {
        state = Locked(values)
    }

    /// A new instance with the same fields (MediaPipe's options are `NSCopying`).
    public func copy() -> BaseOptions {
        BaseOptions(values)
    }

    /// The fields now, as one value.
    var values: Values { state.withLock { $0 } }

    /// Equal fields.
    public static func == (lhs: BaseOptions, rhs: BaseOptions) -> Bool {
        lhs === rhs || lhs.values == rhs.values
    }
}

extension BaseOptions {
    /// Checks the options every task shares, for a task built outside this module (ML Kit's detector on the task
    /// registry), with the same errors.
    package func validate() throws(VisionTaskError) { try values.validate() }
}

extension BaseOptions.Values {
    /// Checks the options every task shares.
    func validate() throws(VisionTaskError) {
        _ = try requiredModelPath()
        if let numThreads, !(1...BaseOptions.maximumThreadCount).contains(numThreads) {
            throw .invalidOption(name: "baseOptions.numThreads",
                                 reason: "\(numThreads) is outside 1...\(BaseOptions.maximumThreadCount) (nil uses every core)")
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
