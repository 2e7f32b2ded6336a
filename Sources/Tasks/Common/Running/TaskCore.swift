import VisionTasksModelFormat

/// What every task is: built from its options class (or a model path), with its running-mode machinery behind
/// ``runner``, MediaPipe's `waitUntilIdle` and `close`. Each task adds MediaPipe's running-mode methods under its own
/// names (`detect`, `classify`, `recognize`) as one-line forwards; generic code in this package (the CLI, bench, the
/// ML Kit module) drives any task through the extension's `process` methods.
public protocol VisionTask: AnyObject, Sendable {
    associatedtype Options: TaskOptions
    associatedtype Result: Sendable
    /// Creates the task; `options` are copied, so later changes to them do not reach it.
    init(options: Options) throws
    /// The task's running modes and live stream (MediaPipe's `MPPVisionTaskRunner`); opaque outside this package.
    var runner: VisionTaskRunner<Result> { get }
}

extension VisionTask {
    /// Image mode with default options.
    public init(modelPath: String) throws {
        try self.init(options: Options.imageMode(modelPath: modelPath))
    }

    /// Waits until every accepted live-stream frame has been processed and delivered. From inside a delegate
    /// callback it waits for processing only (the callback itself holds up the deliveries behind it).
    public func waitUntilIdle() {
        runner.control.waitUntilIdle()
    }

    /// Finishes the frames already accepted, then refuses further input with ``VisionTaskError/taskClosed``.
    public func close() {
        runner.control.close()
    }

    /// Image mode. `method` names the public method in a wrong-mode error; by default the caller's name.
    package func process(image: MPImage, method: String = #function) throws(VisionTaskError) -> Result {
        try runner.control.process(image: image, method: method)
    }

    /// Video mode: one frame; timestamps must increase.
    package func process(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int,
                         method: String = #function) throws(VisionTaskError) -> Result {
        try runner.control.process(videoFrame: image, timestamp: timestamp, method: method)
    }

    /// Live-stream mode: queues the frame; its answer reaches the delegate (or the options' package handler).
    package func processAsync(image: MPImage, timestampInMilliseconds timestamp: Int,
                              method: String = #function) throws(VisionTaskError) {
        try runner.control.processAsync(image, timestamp: timestamp, method: method, from: self)
    }

    /// Each stage's accumulated time so far (for `bench`), in pipeline order.
    package var stageTimings: [NamedStageTimings] {
        runner.control.stageTimings
    }

    /// Video mode: the next frame starts a new clip — tracking, smoothing and the timestamp order start over, as on
    /// a newly created task, with the models already loaded (`vision-tasks worker` keeps one task for many clips).
    package func startNewVideo(method: String = #function) throws(VisionTaskError) {
        try runner.control.startNewVideo(method: method)
    }
}

/// A task's running-mode machinery, as ``VisionTask/runner`` hands it out: nothing of it is public but its type
/// (MediaPipe's task runner is internal too); it lets the protocol's extension give every task the same
/// `waitUntilIdle`, `close` and `init(modelPath:)`.
public final class VisionTaskRunner<Result: Sendable>: Sendable {
    let control: any TaskControl<Result>

    init(_ control: any TaskControl<Result>) {
        self.control = control
    }
}

/// What ``VisionTaskRunner`` asks of a task's core, with the pipeline and delegate types out of sight.
protocol TaskControl<Result>: Sendable {
    associatedtype Result: Sendable
    func process(image: MPImage, method: String) throws(VisionTaskError) -> Result
    func process(videoFrame image: MPImage, timestamp: Int, method: String) throws(VisionTaskError) -> Result
    func processAsync(_ image: MPImage, timestamp: Int, method: String, from task: AnyObject) throws(VisionTaskError)
    func waitUntilIdle()
    func close()
    var stageTimings: [NamedStageTimings] { get }
    func startNewVideo(method: String) throws(VisionTaskError)
}

/// A task's pipeline as its options class builds it.
protocol TaskPipeline: FramePipeline {
    /// The options class the pipeline is built from.
    associatedtype Options: TaskOptionsValues
    init(bundle: TaskBundle, options: TaskSettings<Options.Values>) throws(VisionTaskError)
    /// Each stage's accumulated time so far (for `bench`), in pipeline order.
    var stageTimings: [NamedStageTimings] { get }
    /// Forgets the video-mode state (tracked regions, smoothing filters) as a newly built pipeline has it, so that a
    /// new clip runs as on a new task without loading the models again. Required, with no default: a pipeline that
    /// keeps state across frames must say how to drop it.
    func resetVideoState()
}

/// A live-stream answer of any task, for ``TaskOptions/liveStreamHandler``.
package typealias LiveStreamHandler = @Sendable (_ timestamp: Int, _ outcome: LiveStreamOutcome<any Sendable>) -> Void

/// One stage's accumulated time, named as `bench` prints it ("detector", "landmarks", "masks", …).
package struct NamedStageTimings: Sendable {
    package let stage: String
    package let timings: StageTimings

    init(_ stage: String, _ timings: StageTimings) {
        self.stage = stage
        self.timings = timings
    }
}

/// A task as ``TaskCore`` builds it: its pipeline, and how a live-stream answer reaches its delegate (the two
/// methods each task's delegate protocol names after the task).
protocol PipelineTask: VisionTask {
    associatedtype Pipeline: TaskPipeline where Pipeline.Result == Result, Pipeline.Options == Options
    /// The task's live-stream delegate protocol, as an existential (`any PoseLandmarkerLiveStreamDelegate`).
    associatedtype LiveStreamDelegate
    func deliver(_ outcome: LiveStreamOutcome<Result>, at timestamp: Int, to delegate: LiveStreamDelegate)
}

/// The part of a task every task shares: its options checked and copied, its pipeline built from them, the running
/// modes (``TaskRunner``) and the live-stream delivery to the task's delegate.
final class TaskCore<Task: PipelineTask>: TaskControl {
    let runner: TaskRunner<Task.Pipeline>
    private let delegate: WeakDelegate<Task.LiveStreamDelegate>
    private let handler: LiveStreamHandler?

    /// Checks a copy of `options` (later changes to them do not reach the task), opens the bundle and builds the
    /// pipeline. `label` names the task's queues.
    init(options: Task.Options, label: String) throws(VisionTaskError) {
        let options = options.copy()
        try options.validate()
        let settings = options.settings
        let bundle = try settings.baseOptions.openBundle()
        runner = TaskRunner(try Task.Pipeline(bundle: bundle, options: settings), runningMode: settings.runningMode, label: label)
        delegate = WeakDelegate(options.liveStreamDelegateObject.flatMap { $0 as? Task.LiveStreamDelegate })
        handler = options.liveStreamHandler
    }

    /// The handle ``VisionTask/runner`` returns.
    var handle: VisionTaskRunner<Task.Result> { VisionTaskRunner(self) }

    func process(image: MPImage, method: String) throws(VisionTaskError) -> Task.Result {
        try runner.process(image: image, method: method)
    }

    func process(videoFrame image: MPImage, timestamp: Int, method: String) throws(VisionTaskError) -> Task.Result {
        try runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: method)
    }

    func processAsync(_ image: MPImage, timestamp: Int, method: String, from task: AnyObject) throws(VisionTaskError) {
        // The task is always this core's own (`VisionTask.processAsync` passes `self`).
        let task = task as? Task
        try runner.processAsync(image, timestampMilliseconds: timestamp, method: method) { [delegate, handler] outcome in
            if let handler {
                handler(timestamp, outcome.erased)
            } else if let target = delegate.value, let task {
                task.deliver(outcome, at: timestamp, to: target)
            }
        }
    }

    func waitUntilIdle() { runner.waitUntilIdle() }

    func close() { runner.close() }

    func startNewVideo(method: String) throws(VisionTaskError) {
        try runner.startNewVideo(method: method) { $0.resetVideoState() }
    }

    var stageTimings: [NamedStageTimings] { runner.withPipeline { $0.stageTimings } }

    /// Runs `body` on the pipeline between frames (a task's facts from its model, for the ML Kit module).
    func withPipeline<R: Sendable>(_ body: (Task.Pipeline) -> R) -> R { runner.withPipeline(body) }
}

extension LiveStreamOutcome {
    /// The same answer with its result as `any Sendable`.
    var erased: LiveStreamOutcome<any Sendable> {
        switch self {
        case let .result(result): .result(result)
        case let .failure(error): .failure(error)
        case .dropped: .dropped
        }
    }

    /// The result, when the frame was processed and succeeded.
    var result: Result? {
        if case let .result(result) = self { return result }
        return nil
    }

    /// The error, when the frame was processed and failed.
    var error: VisionTaskError? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
