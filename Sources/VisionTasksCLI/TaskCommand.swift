import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksResultJSON
import VisionTasksTooling
import VisionTasks

/// What every landmark task command (`pose`, `face`) takes: the bundle, the inputs, the running mode and where the
/// results go.
struct TaskCommandOptions: ParsableArguments {
    @Argument(help: "The task's bundle (.task).") var model: String
    @Argument(help: "Images, or with --video / --live-stream a video file (or, with --video, frame images at --fps).") var inputs: [String]
    @Option(help: "Write all results here as one JSON document, in the schema of MediaPipe's reference results (kept in memory until the end).") var json: String?
    @Option(help: "Write each frame's result as one JSON line as it is produced (`-` for standard output); nothing accumulates.") var jsonl: String?
    @Option(help: "Write annotated PNGs into this directory.") var draw: String?
    @Flag(help: "Treat the inputs as one video: a video file, or frame images in order.") var video = false
    @Flag(help: "Feed a video file through the live-stream API (detectAsync), paced at its frame rate.") var liveStream = false
    @Flag(inversion: .prefixedNo, help: "With --live-stream, send frames at the clip's frame rate (--no-pacing: as fast as possible).") var pacing = true
    @Option(help: "Frame rate of frame-image input (video files use their own).") var fps: Double = 30
    @Option(help: "Frames to read from a video file.") var maxFrames: Int = .max
    @Option(help: "Threads to use (default: every core); results are the same for any count.") var threads: Int?
    @Option(help: "Which instances video and live-stream modes smooth: mediapipe (as MediaPipe: only when at most one is sought), always (each tracked one), never.")
    var smoothing: LandmarkSmoothing = .mediapipe
    @Flag(help: "Print nothing but results (no per-frame lines, no progress).") var quiet = false
    @OptionGroup var orientation: OrientationOptions

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard fps.isFinite else { throw ValidationError("--fps must be a number (got \(fps))") }
        try OptionRange.check(fps, in: OptionRange.framesPerSecond, option: "--fps")
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be positive") }
        if let threads, !(1...BaseOptions.maximumThreadCount).contains(threads) {
            throw ValidationError("--threads must be between 1 and \(BaseOptions.maximumThreadCount)")
        }
        if liveStream {
            guard !video else { throw ValidationError("--live-stream and --video are two running modes: give one") }
            guard inputs.count == 1, !Self.isImage(inputs[0]) else { throw ValidationError("--live-stream takes one video file") }
            guard draw == nil else { throw ValidationError("--draw is not available with --live-stream") }
        }
    }

    var runningMode: RunningMode { liveStream ? .liveStream : video ? .video : .image }

    /// Whether an input is a photo (image mode) or a clip: a file that starts as any format MPImage decodes is a
    /// photo whatever its name; otherwise its extension decides, so that a damaged or mislabelled `.jpg` gets the
    /// image decoder's error (which names what the bytes look like) rather than ffmpeg's.
    static func isImage(_ path: String) -> Bool {
        if ImageFormat.fileIsImage(atPath: path) == true { return true }
        return ["png", "jpg", "jpeg", "bmp", "gif", "pgm", "ppm", "pnm", "tif", "tiff", "webp", "heic", "heif", "avif"]
            .contains((path as NSString).pathExtension.lowercased())
    }
}

/// Feeds a task its inputs in the options' running mode and writes what comes back.
struct TaskCommandRunner {
    let options: TaskCommandOptions
    /// `task` of the reference JSON's header ("pose", "face").
    let taskName: String
    let output: ResultOutput
    /// The live-stream delegate's sink, in live-stream mode.
    let live: LiveStreamCollector?

    /// Opens the outputs first: a path that cannot be written fails before any work.
    init(options: TaskCommandOptions, taskName: String) throws {
        self.options = options
        self.taskName = taskName
        output = try ResultOutput(json: options.json, jsonl: options.jsonl)
        if let draw = options.draw { try FileManager.default.createDirectory(atPath: draw, withIntermediateDirectories: true) }
        live = options.liveStream ? LiveStreamCollector(output: output) : nil
    }

    /// Standard output carries results only: JSON lines when they go there, per-frame lines otherwise.
    private func say(_ line: String) {
        if output.ownsStandardOutput { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
    }

    /// One frame's answer as the runner writes it: MediaPipe's reference JSON, a summary line and a drawing.
    struct Answered {
        let json: [String: Any]
        let summary: String
        let drawing: (MPImage) -> Canvas
    }

    /// Opens a registered task (``TaskRegistry``) with the command line's model, threads, running mode and the task's
    /// option values, and runs it.
    func run(_ task: TaskDescription, values: [String: TaskOptionValue]) throws {
        guard task.runningModes.contains(options.runningMode) else {
            throw CLIError(description: "\(task.name) has no \(options.runningMode) mode (it has \(task.runningModes.map { "\($0)" }.joined(separator: ", ")))")
        }
        var handler: LiveStreamHandler?
        if let live { handler = { [live] timestamp, outcome in live.answer(outcome, timestamp: timestamp) } }
        let session: any TaskSession
        do {
            session = try task.open(TaskSetup(modelPath: options.model, runningMode: options.runningMode, threads: options.threads,
                                              values: values, liveStreamHandler: handler))
        } catch { throw CLIError(description: "\(options.model): \(error)") }
        if let live {
            try runLiveStream(live: live, send: { try session.answerAsync($0, timestamp: $1) }, wait: session.waitUntilIdle)
            return
        }
        try runFrames { image, timestamp in
            let answer = try session.answer(image, timestamp: timestamp)
            return Answered(json: answer.json, summary: answer.summary, drawing: { MarkDrawing.draw(answer.marks, on: $0) })
        }
    }

    /// The inputs in image or video mode, each answered by `answer` (a nil timestamp: image mode) and written.
    private func runFrames(_ answer: (MPImage, Int?) throws -> Answered) throws {
        func handle(_ image: MPImage, label: String, timestamp: Int?, progress: ProgressLine) throws {
            let result: Answered
            do { result = try answer(image, timestamp) } catch { throw CLIError(description: "\(label): \(error)") }
            // The frame the results are in: the buffer as decoded (upright by EXIF unless --no-exif; a video's frame as
            // ffmpeg turns it), whatever its orientation, as MediaPipe gives results in the buffer's frame.
            try output.write(image: label, width: image.width, height: image.height, timestamp: timestamp, result: result.json)
            if let draw = options.draw {
                let name = label.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "#", with: "_") + ".png"
                try result.drawing(image).writePNG(to: (draw as NSString).appendingPathComponent(name))
            }
            progress.advance()
            if !options.quiet, !progress.isShown { say("\(label): \(result.summary)") }
        }
        let inputs = options.inputs
        if options.video, inputs.count == 1, !TaskCommandOptions.isImage(inputs[0]) {
            let decoder = try openVideo()
            let progress = ProgressLine(total: decoder.frameCount.map { min($0, options.maxFrames) }, quiet: options.quiet)
            var count = 0
            while count < options.maxFrames, let frame = try decoder.nextFrame() {
                try handle(frame.image, label: frame.label, timestamp: frame.timestampMs, progress: progress)
                count += 1
            }
            progress.finish()
        } else {
            let progress = ProgressLine(total: inputs.count, quiet: options.quiet || inputs.count < 2)
            for (index, path) in inputs.enumerated() {
                let image = try options.orientation.image(contentsOfFile: path)
                let label = (path as NSString).lastPathComponent
                let timestamp = options.video ? Int((Double(index) * 1000 / options.fps).rounded(.toNearestOrEven)) : nil
                try handle(image, label: label, timestamp: timestamp, progress: progress)
            }
            progress.finish()
        }
        try output.finish(header: header(runningMode: options.video ? "VIDEO" : "IMAGE"))
    }

    /// A video file through the live-stream API: `send` queues a frame, `wait` waits for every answer.
    private func runLiveStream(live: LiveStreamCollector, send: (MPImage, Int) throws -> Void, wait: () -> Void) throws {
        let decoder = try openVideo()
        let progress = ProgressLine(total: decoder.frameCount.map { min($0, options.maxFrames) }, quiet: options.quiet)
        live.progress = progress
        var pacer = FramePacer()
        var frames = 0
        while frames < options.maxFrames, let frame = try decoder.nextFrame() {
            if options.pacing { pacer.wait(forTimestamp: frame.timestampMs) }
            live.expect(timestamp: frame.timestampMs, label: frame.label, width: frame.image.width, height: frame.image.height)
            do { try send(frame.image, frame.timestampMs) } catch {
                throw CLIError(description: "\(frame.label): \(error)")
            }
            frames += 1
        }
        wait()
        progress.finish()
        try live.check()
        try output.finish(header: header(runningMode: "LIVE_STREAM"))
        let counts = live.counts
        if !options.quiet {
            say("frames \(frames), results \(counts.results), dropped \(counts.dropped)" + (counts.errors > 0 ? ", errors \(counts.errors)" : ""))
        }
    }

    private func openVideo() throws -> VideoDecoder {
        do { return try options.orientation.video(options.inputs[0]) } catch { throw CLIError(description: "\(error)") }
    }

    private func header(runningMode: String) -> [String: Any] {
        ["task": taskName, "model": (options.model as NSString).lastPathComponent, "runningMode": runningMode,
         "mediapipeVersion": ReferenceJSON.mirroredVersion]
    }
}

/// Sends live-stream frames as a camera would deliver them: frame i is due its timestamp after the first frame, but
/// never waits more than ``maximumWait`` for one. A clip whose frame rate is 1/5000 (one frame every 83 minutes) is
/// paced at one frame a second instead of sleeping for hours; the later frames keep their intervals from there on.
/// The schedule is kept in seconds as `Double`: no timestamp, however large or negative, can overflow it.
struct FramePacer {
    static let maximumWait = 1.0
    /// Uptime (seconds) at which timestamp `originTimestamp` was, or would have been, due.
    private var origin: (uptime: Double, timestampMs: Int)?

    private static func uptime() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    mutating func wait(forTimestamp timestamp: Int) {
        let now = Self.uptime()
        guard let origin else {
            self.origin = (now, timestamp)
            return
        }
        let wait = origin.uptime + (Double(timestamp) - Double(origin.timestampMs)) / 1000 - now
        guard wait > 0 else { return }
        if wait > Self.maximumWait {
            // From here on the frames are due as if this one had come `maximumWait` after now.
            self.origin = (now + Self.maximumWait, timestamp)
        }
        usleep(useconds_t(min(wait, Self.maximumWait) * 1e6))
    }
}

/// Where a task's live-stream answers go (the options' package handler, in place of a delegate): writes each as it
/// arrives (in order, on the task's delivery queue) and counts results, dropped frames and errors. Frames in flight
/// are remembered by timestamp until answered, so nothing accumulates.
final class LiveStreamCollector: @unchecked Sendable {
    // @unchecked: mutable fields under `lock` only.
    private let lock = NSLock()
    private let output: ResultOutput
    private var pending: [Int: (label: String, width: Int, height: Int)] = [:]
    private var results = 0, dropped = 0, errors = 0
    private var failure: (any Error)?
    var progress: ProgressLine?

    init(output: ResultOutput) { self.output = output }

    var counts: (results: Int, dropped: Int, errors: Int) {
        lock.lock(); defer { lock.unlock() }
        return (results, dropped, errors)
    }

    func expect(timestamp: Int, label: String, width: Int, height: Int) {
        lock.lock(); defer { lock.unlock() }
        pending[timestamp] = (label, width, height)
    }

    /// Rethrows the first output error a callback met (a full disk, say).
    func check() throws {
        lock.lock(); defer { lock.unlock() }
        if let failure { throw CLIError(description: "\(failure)") }
    }

    /// Any task's answer for the frame at `timestamp`.
    func answer(_ outcome: LiveStreamOutcome<any Sendable>, timestamp: Int) {
        switch outcome {
        case .dropped: dropped(timestamp: timestamp)
        case let .result(result): finished((result as? TaskAnswer)?.json, timestamp: timestamp, error: nil)
        case let .failure(error): finished(nil, timestamp: timestamp, error: error)
        }
    }

    /// A frame's result (as reference JSON) or its error.
    private func finished(_ result: [String: Any]?, timestamp: Int, error: (any Error)?) {
        lock.lock()
        let frame = pending.removeValue(forKey: timestamp)
        if result != nil { results += 1 } else { errors += 1 }
        lock.unlock()
        progress?.advance()
        record {
            if let result, let frame {
                try output.write(image: frame.label, width: frame.width, height: frame.height, timestamp: timestamp, result: result)
            } else {
                try output.writeError(timestamp: timestamp, message: "\(error.map { "\($0)" } ?? "no result")")
            }
        }
    }

    private func dropped(timestamp: Int) {
        lock.lock()
        pending.removeValue(forKey: timestamp)
        dropped += 1
        lock.unlock()
        progress?.advance()
        record { try output.writeDropped(timestamp: timestamp) }
    }

    private func record(_ write: () throws -> Void) {
        do { try write() } catch {
            lock.lock(); failure = failure ?? error; lock.unlock()
        }
    }
}

extension LandmarkSmoothing: ExpressibleByArgument {}
