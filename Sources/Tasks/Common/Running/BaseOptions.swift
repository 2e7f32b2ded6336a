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
