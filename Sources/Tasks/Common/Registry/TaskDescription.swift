/// A task as every surface takes it — the `vision-tasks` command and its worker, the HTTP service, `bench`, the
/// Python integration's task list and the documentation's task table: written once, in the task's folder
/// (`<Task>+Registration.swift`), and listed in ``TaskRegistry``. Adding a task adds no code to any surface.
package struct TaskDescription: Sendable {
    /// The command, the worker's `task`, the service's route (`POST /v1/{name}`) and bench's job: `face-detector`.
    package let name: String
    /// MediaPipe's name for the task (`Face Detector`), for help and documentation.
    package let title: String
    /// One sentence: the command's abstract.
    package let summary: String
    /// The models this task takes, under the names MediaPipe ships them: the first one found is the default.
    package let modelNames: [String]
    /// The task's options, by MediaPipe's names (the command's flags are their kebab-case forms).
    package let options: [TaskOptionDescription]
    /// The running modes the task has (the interactive segmenter has image mode only).
    package let runningModes: [RunningMode]
    /// MediaPipe's Python class and method for the same work (`FaceDetector`, `detect`): bench times it beside ours.
    package let mediapipeClass: String
    package let mediapipeMethod: String
    /// The photo (in `../shared/images`) and the clip (in `../shared/videos`) bench times the task on.
    package let benchImage: String
    package let benchVideo: String
    /// Builds the task from a model, a running mode, threads and option values.
    package let open: @Sendable (TaskSetup) throws -> any TaskSession

    /// A task of ours: `Task`'s options class is made from a ``TaskSetup`` through `options`' setters, and each
    /// result becomes a ``TaskAnswer`` through `answer`.
    package init<Task: VisionTask>(name: String, title: String, summary: String, modelNames: [String], options: [TaskOptionDescription],
                                   runningModes: [RunningMode] = [.image, .video, .liveStream], mediapipeClass: String,
                                   mediapipeMethod: String, benchImage: String, benchVideo: String, task: Task.Type,
                                   answer: @escaping @Sendable (Task.Result) -> TaskAnswer) {
        self.name = name; self.title = title; self.summary = summary; self.modelNames = modelNames; self.options = options
        self.runningModes = runningModes; self.mediapipeClass = mediapipeClass; self.mediapipeMethod = mediapipeMethod
        self.benchImage = benchImage; self.benchVideo = benchVideo
        let open = Self.opener(task, answer: answer)
        self.open = { setup in try open(setup, options) }
    }

    /// The Swift type's name: MediaPipe's title without spaces (`FaceDetector`).
    package var typeName: String { title.replacingOccurrences(of: " ", with: "") }

    /// The task's row of the documentation's task table (Models.md, "What each task takes"), which a test holds the
    /// catalog to.
    package var documentationRow: String {
        "| ``\(typeName)`` | \(modelNames.map { "`\($0)`" }.joined(separator: ", ")) | \(summary) |"
    }

    package func option(named name: String) -> TaskOptionDescription? {
        options.first { $0.name == name }
    }
}

/// Everything a surface decides when it builds a task.
package struct TaskSetup: Sendable {
    package var modelPath: String
    package var runningMode: RunningMode
    /// nil: every core.
    package var threads: Int?
    /// Option values by MediaPipe's names; an option not given keeps MediaPipe's default.
    package var values: [String: TaskOptionValue]
    /// Live-stream answers, in live-stream mode.
    package var liveStreamHandler: LiveStreamHandler?

    package init(modelPath: String, runningMode: RunningMode = .image, threads: Int? = nil,
                 values: [String: TaskOptionValue] = [:], liveStreamHandler: LiveStreamHandler? = nil) {
        self.modelPath = modelPath; self.runningMode = runningMode; self.threads = threads; self.values = values
        self.liveStreamHandler = liveStreamHandler
    }
}
