/// A task as every surface takes it — the `vision-tasks` command and its worker, the HTTP service, `bench`, the
/// Python integration's task list and the documentation's task table: written once, in the task's folder
/// (`<Task>+Registration.swift`), and listed in `TaskRegistry` (module ResultJSON, above this one and ML Kit's). Adding
/// a task adds no code to any surface.
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
    /// nil for ML Kit's detector, which has no MediaPipe counterpart (and ML Kit no runtime here): bench has no job
    /// for it.
    package let mediapipeClass: String?
    package let mediapipeMethod: String
    /// The photo (in `../shared/images`) and the clip (in `../shared/videos`) bench times the task on.
    package let benchImage: String
    package let benchVideo: String
    /// Builds the task from a model, a running mode, threads and option values.
    package let open: @Sendable (TaskSetup) throws -> any TaskSession
    /// Options the command line refuses together (`--allow` and `--deny`), by MediaPipe's names.
    package var exclusiveOptions: [[String]] = []
    /// The documentation table's model and contents columns when they say more than the model names and the
    /// summary (a task that takes any model of a kind).
    package var documentation: (models: String, contents: String)?
    /// bench's job for the task.
    package var bench: TaskBench
    /// The documentation catalog of the task's types: VisionTasks' (its row in the task table, its types in the
    /// topics) or ML Kit's (an article of its own).
    package var catalog: DocumentationCatalog = .visionTasks

    package enum DocumentationCatalog: Sendable { case visionTasks, mlKit }

    /// A task of ours: `Task`'s options class is made from a ``TaskSetup`` through `options`' setters, and each
    /// result becomes a ``TaskAnswer`` through `answer`.
    package init<Task: VisionTask>(name: String, title: String, summary: String, modelNames: [String], options: [TaskOptionDescription],
                                   runningModes: [RunningMode] = [.image, .video, .liveStream], mediapipeClass: String,
                                   mediapipeMethod: String, benchImage: String, benchVideo: String, task: Task.Type,
                                   answer: @escaping @Sendable (Task.Result) -> TaskAnswer) {
        self.name = name; self.title = title; self.summary = summary; self.modelNames = modelNames; self.options = options
        self.runningModes = runningModes; self.mediapipeClass = mediapipeClass; self.mediapipeMethod = mediapipeMethod
        self.benchImage = benchImage; self.benchVideo = benchVideo
        bench = TaskBench(job: name, model: modelNames.first ?? "")
        let open = Self.opener(task, answer: answer)
        self.open = { setup in try open(setup, options) }
    }

    /// A task whose options are not a ``TaskOptions`` class (ML Kit's detector): `open` builds it from the setup,
    /// reading the option values (``TaskOptionDescription/read(_:_:default:help:)``) itself. No bench job.
    package init(name: String, title: String, summary: String, modelNames: [String], options: [TaskOptionDescription],
                 runningModes: [RunningMode], open: @escaping @Sendable (TaskSetup) throws -> any TaskSession) {
        self.name = name; self.title = title; self.summary = summary; self.modelNames = modelNames; self.options = options
        self.runningModes = runningModes; self.open = open
        mediapipeClass = nil; mediapipeMethod = ""; benchImage = ""; benchVideo = ""
        bench = TaskBench(job: name, model: modelNames.first ?? "")
    }

    /// The Swift type's name: MediaPipe's title without spaces (`FaceDetector`).
    package var typeName: String { title.replacingOccurrences(of: " ", with: "") }

    /// The task's row of the documentation's task table (Models.md, "What each task takes"), which a test holds the
    /// catalog to.
    package var documentationRow: String {
        let models = documentation?.models ?? modelNames.map { "`\($0)`" }.joined(separator: ", ")
        let contents = documentation?.contents ?? summary
        return "| ``\(typeName)`` | \(models) |" + (contents.isEmpty ? " |" : " \(contents) |")
    }

    /// The options `surface` offers.
    package func options(on surface: TaskOptionDescription.Surfaces) -> [TaskOptionDescription] {
        options.filter { !$0.surfaces.isDisjoint(with: surface) }
    }

    package func option(named name: String) -> TaskOptionDescription? {
        options.first { $0.name == name }
    }
}

/// What `bench TASK` runs: which model, which of its members LiteRT times for the per-stage breakdown, and with what
/// options, beside MediaPipe's own pipeline (tools/mediapipe_landmarker_time.py).
package struct TaskBench: Sendable {
    /// The job's name (`bench objects`).
    package var job: String
    /// The model it runs unless `--model` is given (under Models/).
    package var model: String
    /// The members of the model (a bundle's files, or "" for a single model) LiteRT times beside ours.
    package var members: [String] = [""]
    /// The members each stage (``NamedStageTimings``) invokes once a run; empty: every stage runs the one model.
    package var stageMembers: [String: [String]] = [:]
    /// Option values of ours, as MediaPipe's side runs (MediaPipe's defaults otherwise).
    package var values: [String: TaskOptionValue] = [:]
    /// How the options are set, in bench's first line.
    package var described = "default options"
    /// The timing script's own name for the task when it has code of its own for it; nil: `registered:CLASS:METHOD`.
    package var script: String?
    /// The flag option `--segmentation-masks on` turns on, on both sides (the script's task name gains `-masks`).
    package var masksOption: String?
    /// MediaPipe's image mode carries state from one call to the next (the Holistic Landmarker's graph loops the last
    /// pose region back), so on the job's repeated photo it detects once and tracks after that; ours answers each
    /// image alone. The image-mode job then runs ours in video mode over the same frames, doing the same work.
    package var mediapipeImageModeTracks = false

    package init(job: String, model: String) {
        self.job = job; self.model = model
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

extension TaskDescription {
    /// The description with `change` made to it: what a registration sets beyond the initializer's arguments.
    package func with(_ change: (inout TaskDescription) -> Void) -> TaskDescription {
        var copy = self
        change(&copy)
        return copy
    }
}
