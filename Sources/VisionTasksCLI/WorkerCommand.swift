import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksTooling
import VisionTasks
import VisionTasksResultJSON

/// `vision-tasks worker`: a long-lived process answering JSON-line requests on standard input, one per line, with
/// JSON lines on standard output — for batch jobs (Ray, Spark, a shell loop) that would otherwise start the CLI and
/// load a model per file. Every frame's line is the line `vision-tasks TASK MODEL INPUT [--video] --jsonl -` prints,
/// with the request's `id` and the frame's index in front; the bytes after those two fields are the CLI's.
///
/// Protocol (the DocC article "A video archive on a cluster", Sources/Tasks/VisionTasks.docc/ClusterWorker.md):
/// - first line `{"ready":true,"version":…,"pid":…,"threads":…,"tasks":[…]}` (the task names it takes);
/// - a request `{"id":…,"task":"pose","model":PATH,"input":PATH,"mode":"image|video","options":{…},
///   "startMs":…,"endMs":…,"preRollMs":…}` (`mode` defaults by the input's content, then its extension; the segment fields are video
///   only);
/// - answers: one line per frame, then `{"id":…,"done":true,"frames":N}`, or `{"id":…,"error":{"type":…,"message":…}}`
///   (after the frames already answered, when a video fails part-way);
/// - a bad request is answered with an error line and the worker goes on; end of input ends it with status 0.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Answer JSON-line requests on standard input with the task commands' --jsonl lines, keeping models loaded (for batch and cluster jobs).")

    /// Answer lines' protocol version, in the ready line.
    static let protocolVersion = 1

    @Option(help: "Threads per model run (default: OMP_NUM_THREADS when set, else 1 — one worker per core is the cluster shape); results are the same for any count.")
    var threads: Int?
    @Option(help: "Most tasks kept loaded, by (task, model, options, image or video mode); the least recently used goes first.")
    var cacheSize: Int = 8

    func validate() throws {
        if let threads { try OptionRange.check(threads, in: OptionRange.threads, option: "--threads") }
        try OptionRange.check(cacheSize, in: 1...64, option: "--cache-size")
    }

    /// `OMP_NUM_THREADS` as Spark (`spark.task.cpus`) and Ray (`num_cpus`) set it for their workers: its first entry
    /// (OpenMP allows a nested list "4,2"), within the engine's range; 1 when unset or unreadable.
    static func threads(fromEnvironment environment: [String: String]) -> Int {
        guard let text = environment["OMP_NUM_THREADS"], let first = text.split(separator: ",").first,
              let count = Int(first.trimmingCharacters(in: .whitespaces)) else { return 1 }
        return min(max(count, OptionRange.threads.lowerBound), OptionRange.threads.upperBound)
    }

    func run() throws {
        // Answers go to a private copy of standard output, and standard output itself to standard error: anything a
        // library prints can then never fall between two answer lines.
        let answers = dup(STDOUT_FILENO)
        guard answers >= 0 else { throw CLIError(description: "worker: cannot duplicate standard output") }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let writer = LineWriter(descriptor: answers)
        let threads = self.threads ?? Self.threads(fromEnvironment: ProcessInfo.processInfo.environment)
        let worker = Worker(threads: threads, cacheSize: cacheSize, writer: writer)
        // The tasks it takes (the CLI's task commands and every registered task), for clients that list or check them.
        let tasks = WorkerTask.names.map { "\"\($0)\"" }.joined(separator: ",")
        writer.write(Data(#"{"ready":true,"version":"\#(Self.protocolVersion)","pid":\#(getpid()),"threads":\#(threads),"tasks":[\#(tasks)]}"#.utf8))
        var reader = LineReader(descriptor: STDIN_FILENO)
        while let line = reader.next() {
            switch line {
            case .tooLong:
                writer.error(id: WorkerRequest.nullID, WorkerFailure(.badRequest, "request line longer than \(LineReader.limit) bytes"))
            case let .line(data):
                // Blank lines (a trailing newline from a shell, say) are not requests.
                if data.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { continue }
                worker.answer(data)
            }
        }
    }
}

/// A registered task (``TaskRegistry``), loaded once, answering as `vision-tasks TASK` writes.
final class RegisteredFrameSession {
    private let session: any TaskSession

    init(_ task: TaskDescription, values: [String: TaskOptionValue], model: String, threads: Int, mode: RunningMode) throws {
        guard task.runningModes.contains(mode) else { throw WorkerFailure(.badOptions, "\(task.name) has no \(mode) mode") }
        do {
            session = try task.open(TaskSetup(modelPath: model, runningMode: mode, threads: threads, values: values))
        } catch { throw WorkerFailure(.modelError, "\(model): \(error)") }
    }

    /// Video mode: the next frame is a new clip's first (tracking, smoothing and timestamps start over).
    func startClip() throws {
        do { try session.startNewVideo() } catch { throw WorkerFailure(.processingError, "\(error)") }
    }

    func entry(for image: MPImage, label: String, timestamp: Int?) throws -> [String: Any] {
        let answer: TaskAnswer
        do { answer = try session.answer(image, timestamp: timestamp) } catch {
            throw WorkerFailure(.processingError, "\(label): \(error)")
        }
        return ["image": label, "width": image.width, "height": image.height,
                "timestampMs": timestamp.map { $0 as Any } ?? NSNull(), "result": answer.json]
    }
}

/// A request's task as configured by the CLI's parser: how to load it and how to read its input.
struct SessionPlan {
    let load: (RunningMode) throws -> RegisteredFrameSession
    let orientation: OrientationOptions
    let maxFrames: Int
}

/// The worker's state: the kept tasks and the answering of one request at a time.
final class Worker {
    private let threads: Int
    private let cacheSize: Int
    private let writer: LineWriter
    /// Tasks by (task, model, options, running mode), least recently used first.
    private var cache: [(key: String, session: RegisteredFrameSession)] = []

    init(threads: Int, cacheSize: Int, writer: LineWriter) {
        self.threads = threads
        self.cacheSize = cacheSize
        self.writer = writer
    }

    func answer(_ line: Data) {
        let request: WorkerRequest
        switch WorkerRequest.parse(line) {
        case let .success(parsed): request = parsed
        case let .failure(failed):
            writer.error(id: failed.idJSON, failed.failure)
            return
        }
        do {
            let frames = try run(request)
            writer.done(id: request.idJSON, frames: frames)
        } catch let failure as WorkerFailure {
            writer.error(id: request.idJSON, failure)
        } catch {
            writer.error(id: request.idJSON, WorkerFailure(.processingError, "\(error)"))
        }
    }

    /// Runs `request`, writing a line per emitted frame; returns how many.
    private func run(_ request: WorkerRequest) throws -> Int {
        let plan = try self.plan(request)
        switch request.mode {
        case .image:
            let image = try Self.image(request.input, plan.orientation)
            let session = try session(request, plan, mode: .image)
            let entry = try session.entry(for: image, label: (request.input as NSString).lastPathComponent, timestamp: nil)
            try writer.frame(id: request.idJSON, index: 0, entry: entry)
            return 1
        case .video:
            // Tracking and smoothing carry state from frame to frame: a kept task starts the clip as a new one would.
            let session = try session(request, plan, mode: .video)
            try session.startClip()
            if TaskCommandOptions.isImage(request.input) {
                // As `vision-tasks TASK MODEL IMAGE --video`: one frame at 0 ms.
                let image = try Self.image(request.input, plan.orientation)
                guard request.endMs.map({ $0 > 0 }) ?? true, request.startMs == 0 else { return 0 }
                let entry = try session.entry(for: image, label: (request.input as NSString).lastPathComponent, timestamp: 0)
                try writer.frame(id: request.idJSON, index: 0, entry: entry)
                return 1
            }
            return try runVideo(request, plan, session)
        }
    }

    /// A clip's frames in order: those before the pre-roll decoded and skipped, the pre-roll's run and not written,
    /// `startMs` up to `endMs` run and written. One frame is held at a time (the decoder reads ffmpeg's output frame
    /// by frame), and the decode stops at `endMs`.
    private func runVideo(_ request: WorkerRequest, _ plan: SessionPlan, _ session: RegisteredFrameSession) throws -> Int {
        let decoder: VideoDecoder
        do { decoder = try plan.orientation.video(request.input) } catch {
            throw WorkerFailure(.inputError, "\(error)")
        }
        var index = 0, emitted = 0
        while index < plan.maxFrames {
            let next: (image: MPImage, timestampMs: Int, label: String)?
            do { next = try decoder.nextFrame() } catch { throw WorkerFailure(.inputError, "\(error)") }
            guard let frame = next else { break }
            defer { index += 1 }
            if let end = request.endMs, frame.timestampMs >= end { break }
            guard frame.timestampMs >= request.firstRunMs else { continue }
            let entry = try session.entry(for: frame.image, label: frame.label, timestamp: frame.timestampMs)
            if frame.timestampMs >= request.startMs {
                try writer.frame(id: request.idJSON, index: index, entry: entry)
                emitted += 1
            }
        }
        return emitted
    }

    private static func image(_ path: String, _ orientation: OrientationOptions) throws -> MPImage {
        do { return try orientation.image(contentsOfFile: path) } catch { throw WorkerFailure(.inputError, "\(error)") }
    }

    /// A kept task for the request, or a newly loaded one (kept): image mode carries nothing from one image to the
    /// next, and video mode starts each clip afresh (``RegisteredFrameSession/startClip()``).
    private func session(_ request: WorkerRequest, _ plan: SessionPlan, mode: RunningMode) throws -> RegisteredFrameSession {
        let model = URL(fileURLWithPath: request.model).standardizedFileURL.path
        let key = ([request.task.name, "\(mode)", model] + request.arguments).joined(separator: "\u{0}")
        if let found = cache.firstIndex(where: { $0.key == key }) {
            let kept = cache.remove(at: found)
            cache.append(kept)
            return kept.session
        }
        let session = try plan.load(mode)
        if cache.count >= cacheSize { cache.removeFirst() }
        cache.append((key, session))
        return session
    }

    /// The request's options through the CLI's own parser (its names, ranges and messages), and the task they make.
    private func plan(_ request: WorkerRequest) throws -> SessionPlan {
        let model = request.model, threads = self.threads
        // The model and input stand in the positions the commands expect; `--` keeps a path starting with '-' a path.
        let arguments = request.arguments + ["--", model, request.input]
        // The command's own split and parser: the same names, ranges and messages as `vision-tasks TASK`.
        let task = request.task.task
        let values: [String: TaskOptionValue], common: TaskCommandOptions
        do {
            let split = try RegisteredTaskCommand.split(arguments, for: task)
            values = split.values
            common = try TaskCommandOptions.parse(split.rest)
        } catch {
            throw WorkerFailure(.badOptions, RegisteredTaskCommand.message(for: error))
        }
        return SessionPlan(load: { mode in try RegisteredFrameSession(task, values: values, model: model, threads: threads, mode: mode) },
                           orientation: common.orientation, maxFrames: common.maxFrames)
    }
}
