/// What every task's options have, as MediaPipe's `MPPTaskOptions`: the model and threads (`baseOptions`) and the
/// running mode. Each task's options class (``PoseLandmarkerOptions``, ``HandLandmarkerOptions``, …) adds its own
/// fields and its typed live-stream delegate; an option every task shares is added here, once.
public class TaskOptions {
    /// The options every task shares, as one value: what a task keeps of them at creation (``TaskSettings/shared``).
    struct Shared: Sendable {
        var baseOptions: BaseOptions.Values
        var runningMode: RunningMode
    }

    /// The options' own ``BaseOptions``: the getter hands out this instance, so `options.baseOptions.x = …` sets it.
    private var base = BaseOptions()
    private var mode: RunningMode = .image

    /// The shared options now, as one value (the base options' fields read under their lock).
    var shared: Shared { Shared(baseOptions: base.values, runningMode: mode) }

    /// The live-stream delegate, whichever task's protocol it answers; each subclass exposes it typed, under
    /// MediaPipe's name (`poseLandmarkerLiveStreamDelegate`, …). Held weakly, as MediaPipe holds it.
    weak var liveStreamDelegateObject: AnyObject?

    /// For our own tools (the CLI, bench): receives every live-stream answer of any task in place of a typed delegate.
    package var liveStreamHandler: LiveStreamHandler?

    /// The model and how to run it. Reading gives the options' own instance (set its fields in place, as MediaPipe's
    /// guides do: `options.baseOptions.modelAssetPath = …`); assigning stores a copy of the given one, as MediaPipe's
    /// `copy` property does, so a `BaseOptions` changed after it was assigned leaves these options alone.
    public var baseOptions: BaseOptions {
        get { base } set { base = newValue.copy() }
    }

    public var runningMode: RunningMode {
        get { mode } set { mode = newValue }
    }

    public required init() {}

    /// A copy with the same options and delegate (MediaPipe's options are `NSCopying`): a deep one — its
    /// ``baseOptions`` (and the gesture recognizer's classifier options) are new instances, so changing either set of
    /// options afterwards leaves the other alone.
    public func copy() -> Self {
        let copy = Self()
        copy.copyOptions(from: self)
        return copy
    }

    /// Image-mode options for the model at `path` (the tasks' `init(modelPath:)`).
    static func imageMode(modelPath path: String) -> Self {
        let options = Self()
        options.baseOptions.modelAssetPath = path
        return options
    }

    /// Copies every option from `other`, an instance of the same class: the shared ones and the subclass's
    /// ``TaskOptionsValues/values``.
    private func copyOptions(from other: TaskOptions) {
        base = other.base.copy()
        mode = other.mode
        liveStreamDelegateObject = other.liveStreamDelegateObject
        liveStreamHandler = other.liveStreamHandler
        (self as? any TaskOptionsValues)?.copyValues(from: other)
    }

    /// The name of the subclass's delegate property, for errors: MediaPipe names it after the task
    /// (`PoseLandmarkerOptions.poseLandmarkerLiveStreamDelegate`).
    static var liveStreamDelegateName: String {
        let task = "\(self)".replacingSuffix("Options")
        return task.prefix(1).lowercased() + task.dropFirst() + "LiveStreamDelegate"
    }

    /// Checks the subclass's own fields.
    func validateTaskOptions() throws(VisionTaskError) {}

    /// Checks every option, the shared ones first.
    final func validate() throws(VisionTaskError) {
        try base.values.validate()
        try validateTaskOptions()
        try OptionCheck.liveStreamDelegate(isSet: liveStreamDelegateObject != nil || liveStreamHandler != nil,
                                           runningMode: runningMode, Self.liveStreamDelegateName)
    }
}

/// Options whose task-specific fields are one value, which the task's pipeline is built from.
protocol TaskOptionsValues: TaskOptions {
    associatedtype Values: Sendable
    var values: Values { get set }
}

extension TaskOptionsValues {
    /// Takes `other`'s values when it is of this class.
    func copyValues(from other: TaskOptions) {
        if let other = other as? Self { values = other.values }
    }

    /// What a task is built from: copied at creation, so later changes to the options do not reach it.
    var settings: TaskSettings<Values> { TaskSettings(shared: shared, values: values) }
}

/// A task's options as its pipeline sees them, fixed at creation: the shared ones and the task's own, whose fields
/// read as if they were this value's (`settings.numPoses`).
@dynamicMemberLookup
struct TaskSettings<Values: Sendable>: Sendable {
    let shared: TaskOptions.Shared
    let values: Values

    var baseOptions: BaseOptions.Values { shared.baseOptions }
    var runningMode: RunningMode { shared.runningMode }

    subscript<Value>(dynamicMember path: KeyPath<Values, Value>) -> Value { values[keyPath: path] }

    /// The same shared options with other task values (the gesture recognizer's hand pipeline takes its hand options).
    func with<Other: Sendable>(_ other: Other) -> TaskSettings<Other> { TaskSettings<Other>(shared: shared, values: other) }
}

extension String {
    fileprivate func replacingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self[...]
    }
}
