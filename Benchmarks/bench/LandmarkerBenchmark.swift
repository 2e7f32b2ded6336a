import Dispatch
import Foundation
import VisionTasksImaging
import VisionTasksTooling
import VisionTasks

/// What a bench job drives: a registered task (``TaskRegistry``) through its session.
protocol BenchedPipeline {
    /// One frame in image mode (`timestamp` nil) or video mode; the result is not kept.
    func processFrame(_ image: MPImage, timestampInMilliseconds timestamp: Int?) throws
    func processAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws
    func waitUntilIdle()
    var stageTimings: [NamedStageTimings] { get }
}

/// A registered task through its session.
struct BenchedSession: BenchedPipeline {
    let session: any TaskSession

    func processFrame(_ image: MPImage, timestampInMilliseconds timestamp: Int?) throws {
        _ = try session.answer(image, timestamp: timestamp)
    }

    func processAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try session.answerAsync(image, timestamp: timestamp)
    }

    func waitUntilIdle() { session.waitUntilIdle() }
    var stageTimings: [NamedStageTimings] { session.stageTimings }
}

/// `bench pose`, `bench face`, `bench hand`, `bench gesture`, `bench objects` and `bench classify`: a landmarker end to end, per stage, in image, video or live-stream mode, with
/// MediaPipe's own pipeline on the same frames beside it (1.2.3, the current release, unless `--mediapipe 0.10.14`).
enum LandmarkerBenchmark {
    /// What each task's job runs by default, and the models of its bundle that LiteRT times for comparison.
    struct Task {
        var name: String
        var model: String
        var image: String
        var video: String
        var members: [String]
        /// The members each of the pipeline's stages (``NamedStageTimings``) invokes once a run, for the one-thread
        /// breakdown: models against the rest, ours and MediaPipe's.
        var stageMembers: [String: [String]]
        /// The registered task: made from its description, timed beside MediaPipe's (the timing script's code for
        /// the task, or MediaPipe's class of the description's name).
        var registered: TaskDescription

        /// A registered task's job: its bench model, photo, clip and members (``TaskBench``).
        static func registered(_ task: TaskDescription) -> Task {
            Task(name: task.name, model: "Models/" + task.bench.model, image: "../shared/images/" + task.benchImage,
                 video: "../shared/videos/" + task.benchVideo, members: task.bench.members, stageMembers: task.bench.stageMembers,
                 registered: task)
        }
    }

    struct Arguments {
        var model: String
        var image: String
        var video: String
        var mode = "image"
        /// Frames of the clip (video and live modes; image mode repeats the photo): 60, or 200 in live mode, where
        /// the scene plays on through every turn (six three-second turns see 540 frames of it, played forward and
        /// back) and the first two seconds alone would over-weigh how each clip opens — the gesture clip's first 24
        /// frames hold no hand the landmark model accepts, and each of them costs a palm detection and a landmark
        /// pass, an image-mode frame's work.
        var frames: Int?
        var threads: Int?
        /// Live mode: turns of each side.
        var rounds = 2
        /// Pose: segmentation masks on both sides (MediaPipe's default is off).
        var segmentationMasks = false
        /// The MediaPipe release ours is compared with: a key of `mediapipeVenvs`.
        var mediapipe = "1.2.3"
    }

    /// The MediaPipe releases tools/setup installs (best effort), each in a venv of its own: the current one, and
    /// 0.10.14 (2024), which the older figures in BENCHMARKS.md were taken against.
    static let mediapipeVenvs = ["1.2.3": ".cache/mediapipe-1.2.3/bin/python", "0.10.14": ".cache/mediapipe/bin/python"]

    static func parse(_ arguments: [String], task: Task) throws -> Arguments {
        var a = Arguments(model: task.model, image: task.image, video: task.video)
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
            switch flag {
            case "--model": a.model = value
            case "--image": a.image = value
            case "--video": a.video = value
            case "--mode":
                guard ["image", "video", "live"].contains(value) else { throw BenchError("--mode is image, video or live") }
                a.mode = value
            case "--threads":
                guard let n = Int(value), (1...BaseOptions.maximumThreadCount).contains(n) else {
                    throw BenchError("--threads takes 1...\(BaseOptions.maximumThreadCount)")
                }
                a.threads = n
            case "--rounds":
                guard let n = Int(value), n > 0 else { throw BenchError("--rounds takes a positive number") }
                a.rounds = n
            case "--frames":
                guard let n = Int(value), n > 0 else { throw BenchError("--frames takes a positive number") }
                a.frames = n
            case "--mediapipe":
                guard mediapipeVenvs[value] != nil else {
                    throw BenchError("--mediapipe is \(mediapipeVenvs.keys.sorted().reversed().joined(separator: " or ")) (1.2.3 unless given)")
                }
                a.mediapipe = value
            case "--segmentation-masks":
                guard task.registered.bench.masksOption != nil, ["on", "off"].contains(value) else {
                    throw BenchError("--segmentation-masks (pose) is on or off")
                }
                a.segmentationMasks = value == "on"
            default:
                throw BenchError("unknown option \(flag) (options: --model --image --video --mode --frames --rounds --threads --mediapipe --segmentation-masks)")
            }
        }
        return a
    }

    static func run(_ task: Task, arguments: [String]) throws {
        let a = try parse(arguments, task: task)
        guard FileManager.default.fileExists(atPath: a.model) else { throw BenchError("no model at \(a.model): run tools/setup") }
        // Frames: the image repeated (image mode), or the clip's first frames (video and live modes).
        var frames: [(MPImage, Int)] = []
        if a.mode == "image" {
            let image = try MPImage(contentsOfFile: a.image)
            frames = (0..<(a.frames ?? 60)).map { (image, $0 * 33) }
        } else {
            let decoder = try VideoDecoder(path: a.video)
            let count = a.frames ?? (a.mode == "live" ? 200 : 60)
            while frames.count < count, let frame = try decoder.nextFrame() { frames.append((frame.image, frame.timestampMs)) }
        }
        guard let first = frames.first?.0 else { throw BenchError("no frames") }
        // Where MediaPipe's image mode tracks from call to call, ours runs the image job in video mode (same work).
        let tracksInImageMode = a.mode == "image" && task.registered.bench.mediapipeImageModeTracks
        let runningMode: RunningMode = a.mode == "image" && !tracksInImageMode ? .image : a.mode == "live" ? .liveStream : .video
        let sink = LiveSink()
        let (landmarker, described) = try make(task, a, runningMode: runningMode, sink: sink)
        // Ours at its default (every core, or --threads) and, in image and video modes, at one thread too: MediaPipe's
        // XNNPACK runs one thread on desktop Linux (GetXnnpackDefaultNumThreads: more only on Android, iOS and the
        // web), so the second ratio is one inference thread each. (Its graph's calculators run on MediaPipe's own
        // executor threads; the CPU-time line after the ratios shows how much of more than one core it used.)
        let threads = a.threads ?? ProcessInfo.processInfo.activeProcessorCount
        var oneThreadArguments = a
        oneThreadArguments.threads = 1
        let oneThread: (any BenchedPipeline)? = a.mode != "live" && threads != 1 ? try make(task, oneThreadArguments, runningMode: runningMode, sink: LiveSink()).0 : nil
        print("\(task.name): \(a.model), \(a.mode) mode, \(frames.count) frames of \(first.width)×\(first.height), \(described), ours at \(threads) thread\(threads == 1 ? "" : "s")\(a.threads == nil ? " (every core, the default)" : "")\(oneThread == nil ? "" : " and at 1 thread")")
        if tracksInImageMode {
            print("MediaPipe's \(task.registered.mediapipeClass ?? "") carries its last region from one image-mode call to the next, so on this repeated photo it detects once and tracks: ours runs video mode on the same frames to do the same work (ours' image mode detects in every photo)")
        }

        // MediaPipe on the same frames, in its own process; the sides take turns (a batch each).
        let venv = mediapipeVenvs[a.mediapipe]!
        let mediapipe = FileManager.default.isExecutableFile(atPath: venv)
            ? ServedScript(pythons: [venv], script: "tools/mediapipe_landmarker_time.py",
                           arguments: [task.registered.bench.script.map { $0 + (a.segmentationMasks ? "-masks" : "") }
                                           ?? "registered:\(task.registered.mediapipeClass ?? ""):\(task.registered.mediapipeMethod)", a.model, a.mode, a.mode == "image" ? a.image : a.video, "\(frames.count)"])
            : nil
        // The version the script imported, as it says; the one asked for if it says none.
        let theirName = "MediaPipe \(mediapipe.map { $0.readyDetails.isEmpty ? a.mediapipe : $0.readyDetails } ?? a.mediapipe)"
        if mediapipe == nil {
            print("\(theirName) is not installed or refused the model (tools/setup puts it into \(venv.replacingOccurrences(of: "/bin/python", with: ""))): ours alone")
        } else {
            print("compared with \(theirName) (\(venv)), its defaults: one XNNPACK thread")
        }
        defer { mediapipe?.close() }

        // Warm-up, then measure.
        let warmup = runningMode == .image ? 3 : 0
        for _ in 0..<warmup {
            try landmarker.processFrame(first, timestampInMilliseconds: nil)
            try oneThread?.processFrame(first, timestampInMilliseconds: nil)
        }
        let before = landmarker.stageTimings
        let oneThreadBefore = oneThread?.stageTimings ?? []
        var frameCount = 0
        if a.mode == "live" {
            // A source far faster than either pipeline (a frame every millisecond) for three seconds a turn: what
            // gets through is the live stream's throughput. Each frame shows the scene at the moment it is sent — the
            // clip in real time, played forward and back so motion stays continuous — as a fast camera would:
            // feeding the clip's next frame every millisecond ran the scene 33 times too fast, and trackers lost
            // what they followed between two results (gesture: the palm detector ran on 80 % of them).
            //
            // Between live turns, image mode on the task's photo for two seconds (a landmarker of its own): on this
            // noisy host the issues' "live stream ≥ 1.6 × image-mode frames per second" can only be judged with the
            // two measured seconds apart, not in runs minutes apart; the ratio is taken per round.
            var ours: [Double] = [], theirs: [Double] = [], ratios: [Double] = []
            var timestamp = 0
            let clip = LiveScene(frameCount: frames.count, firstTimestamp: frames.first!.1, lastTimestamp: frames.last!.1)
            // The scene goes on from one live turn to the next; MediaPipe's turn sees the part ours just saw.
            var sceneClock = 0.0
            let (imageMode, _) = try make(task, a, runningMode: .image, sink: LiveSink())
            let photo = try MPImage(contentsOfFile: a.image)
            for _ in 0..<3 { try imageMode.processFrame(photo, timestampInMilliseconds: nil) }
            for _ in 0..<a.rounds {
                let sceneStart = sceneClock
                let start = DispatchTime.now().uptimeNanoseconds
                let delivered = sink.count
                var submitted = 0
                while case let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, elapsed < 3 {
                    try landmarker.processAsync(image: frames[clip.frame(atSeconds: sceneClock + elapsed)].0, timestampInMilliseconds: timestamp)
                    submitted += 1
                    timestamp += 1
                    usleep(1000)
                }
                landmarker.waitUntilIdle()
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                sceneClock += elapsed
                let results = sink.count - delivered
                frameCount += results
                ours.append(Double(results) / elapsed)
                print(String(format: "live, ours:      %4d of %4d frames gave a result in %.2f s: %.1f results/s", results, submitted, elapsed, ours.last!))
                let imageStart = DispatchTime.now().uptimeNanoseconds
                var imageFrames = 0
                while Double(DispatchTime.now().uptimeNanoseconds - imageStart) / 1e9 < 2 {
                    try imageMode.processFrame(photo, timestampInMilliseconds: nil)
                    imageFrames += 1
                }
                let imageRate = Double(imageFrames) / (Double(DispatchTime.now().uptimeNanoseconds - imageStart) / 1e9)
                ratios.append(ours.last! / imageRate)
                print(String(format: "image, ours:     %4d frames of %@: %.1f frames/s; live / image %.2f", imageFrames,
                             (a.image as NSString).lastPathComponent, imageRate, ratios.last!))
                if let reply = mediapipe?.request("3 \(sceneStart)"), case let fields = reply.split(separator: " ").compactMap({ Double($0) }), fields.count == 3 {
                    theirs.append(fields[1] / fields[2])
                    print(String(format: "live, %@: %4d of %4d frames gave a result in %.2f s: %.1f results/s", theirName as NSString, Int(fields[1]), Int(fields[0]), fields[2], theirs.last!))
                }
            }
            print(String(format: "live: ours %.1f results/s, %.2f × our image-mode frames per second (median of %d rounds' ratios)",
                         median(ours), median(ratios), ratios.count))
            if !theirs.isEmpty {
                print(String(format: "live: ours %.1f results/s, %@ %.1f results/s: ours / MediaPipe = %.2f × the throughput",
                             median(ours), theirName as NSString, median(theirs), median(ours) / median(theirs)))
            }
        } else {
            // Turns of a batch each: ours at its default threads, ours at one thread (a pipeline of its own, with its
            // own tracking state in video mode, on the same frames), MediaPipe.
            var ours: [Double] = [], oursOne: [Double] = [], theirs: [Double] = [], ratios: [Double] = [], oneRatios: [Double] = []
            let batch = 10
            func timed(_ pipeline: any BenchedPipeline, _ batchFrames: ArraySlice<(MPImage, Int)>) throws -> [Double] {
                try batchFrames.map { image, timestamp in
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    try pipeline.processFrame(image, timestampInMilliseconds: runningMode == .image ? nil : timestamp)
                    return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
                }
            }
            for batchStart in stride(from: 0, to: frames.count, by: batch) {
                let batchFrames = frames[batchStart..<min(batchStart + batch, frames.count)]
                let mine = try timed(landmarker, batchFrames)
                ours += mine
                frameCount += mine.count
                let mineOne = try oneThread.map { try timed($0, batchFrames) } ?? []
                oursOne += mineOne
                if let reply = mediapipe?.request("\(batchStart) \(batchFrames.count)") {
                    let samples = reply.split(separator: " ").compactMap { Double($0) }
                    if samples.count == batchFrames.count {
                        theirs += samples
                        ratios.append(median(mine) / median(samples))
                        if !mineOne.isEmpty { oneRatios.append(median(mineOne) / median(samples)) }
                    }
                }
            }
            func mean(_ samples: [Double]) -> Double { samples.reduce(0, +) / Double(samples.count) }
            let oursLabel = "ours (\(threads) thread\(threads == 1 ? "" : "s"))"
            let width = max(oursLabel.count, theirName.count, "ours (1 thread)".count)
            func label(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
            print(String(format: "per frame, %@: median %.2f ms, mean %.2f ms", label(oursLabel) as NSString, median(ours), mean(ours)))
            if !oursOne.isEmpty {
                print(String(format: "per frame, %@: median %.2f ms, mean %.2f ms", label("ours (1 thread)") as NSString, median(oursOne), mean(oursOne)))
            }
            if !theirs.isEmpty {
                print(String(format: "per frame, %@: median %.2f ms, mean %.2f ms", label(theirName) as NSString, median(theirs), mean(theirs)))
                print(String(format: "ours / %@ at %d thread%@: %.2f (median over %d turns of %d frames each; below 1 is faster)",
                             theirName as NSString, threads, (threads == 1 ? " each" : "s, ours' default") as NSString, median(ratios), ratios.count, batch))
                if !oneRatios.isEmpty {
                    print(String(format: "ours / %@ at 1 thread each: %.2f (same turns)", theirName as NSString, median(oneRatios)))
                }
                if let oneThread, !oursOne.isEmpty {
                    var task = task
                    // A registered task of one model (no stage members of its own): every stage runs it.
                    if task.stageMembers.isEmpty { task.stageMembers = Dictionary(uniqueKeysWithValues: oneThread.stageTimings.map { ($0.stage, [""]) }) }
                    printOneThreadBreakdown(task, a, ours: (oneThread.stageTimings, oneThreadBefore), oursMean: mean(oursOne),
                                            theirsMean: mean(theirs), theirName: theirName, frames: oursOne.count)
                }
                // How many cores MediaPipe kept busy while it was timed: its XNNPACK is one thread, but its graph's
                // calculators run on an executor of its own. Above 1 it ran more than one core at a time (on a loaded
                // host, a value below 1 says little).
                if let reply = mediapipe?.request("cpu"), case let fields = reply.split(separator: " ").compactMap({ Double($0) }),
                   fields.count == 2, fields[1] > 0 {
                    print(String(format: "%@ used %.2f s of CPU in %.2f s of timed calls: %.2f cores on average", theirName as NSString, fields[0], fields[1], fields[0] / fields[1]))
                }
            }
        }
        landmarker.waitUntilIdle()
        let n = Double(max(frameCount, 1))
        // Per stage and per frame, at the default threads and (image and video modes) at one thread: the one-thread
        // lines split the breakdown's "rest" into each stage's pre- and post-processing.
        printStages(before: before, after: landmarker.stageTimings, frames: n, label: "ours, per frame")
        if let oneThread {
            printStages(before: oneThreadBefore, after: oneThread.stageTimings, frames: n, label: "ours at 1 thread, per frame")
        }
        print("peak memory: \(peakResidentMegabytes()) MB")
        // LiteRT with as many threads as our interpreters use (all cores), for the inference columns above.
        for member in task.members {
            if let line = LiteRTReference.run(script: "tools/litert_model_time.py", arguments: [member.isEmpty ? a.model : "\(a.model)#\(member)", "\(threads)", "30"]) {
                print("litert \(member) (\(threads) threads): \(line)")
            }
        }
    }

    /// Each stage's runs and pre-processing, inference and post-processing milliseconds per frame between two readings.
    static func printStages(before: [NamedStageTimings], after: [NamedStageTimings], frames n: Double, label: String) {
        // By name: a stage that had not run yet (pose masks in video mode) is missing from `before`.
        for stage in after {
            let name = stage.stage, b = stage.timings
            let a = before.first { $0.stage == name }?.timings ?? StageTimings()
            let calls = b.calls - a.calls
            print(String(format: "  %-11@ runs %4d  pre %6.2f ms  inference %6.2f ms  post %6.2f ms   (%@)", name as NSString, calls,
                         (b.preprocessing - a.preprocessing) / n, (b.inference - a.inference) / n, (b.postprocessing - a.postprocessing) / n,
                         label as NSString))
        }
    }

    /// Where a frame's time goes at one thread each, as means per frame (means add up where medians do not): ours,
    /// its stages' model invocations against everything else (pre- and post-processing, the glue between stages);
    /// MediaPipe's, which reports no stages, as LiteRT's one-thread time of the same models — XNNPACK, which
    /// MediaPipe runs — times as many invocations as ours made (the pipelines decide alike when to detect and when
    /// to track: their results are MediaPipe's), and the rest of its frame time.
    static func printOneThreadBreakdown(_ task: Task, _ a: Arguments, ours: (after: [NamedStageTimings], before: [NamedStageTimings]),
                                        oursMean: Double, theirsMean: Double, theirName: String, frames: Int) {
        let n = Double(max(frames, 1))
        var oursModels = 0.0, theirsModels = 0.0, runsByStage: [String] = []
        var litertMissing: [String] = []
        for stage in ours.after {
            let earlier = ours.before.first { $0.stage == stage.stage }?.timings ?? StageTimings()
            let calls = stage.timings.calls - earlier.calls
            oursModels += (stage.timings.inference - earlier.inference) / n
            guard let members = task.stageMembers[stage.stage], calls > 0 else { continue }
            runsByStage.append("\(stage.stage) \(calls)")
            for member in members {
                let line = LiteRTReference.run(script: "tools/litert_model_time.py",
                                               arguments: [member.isEmpty ? a.model : "\(a.model)#\(member)", "1", "30"])
                guard let milliseconds = line.flatMap({ LiteRTReference.value("median_ms", in: $0) }) else {
                    litertMissing.append(member.isEmpty ? a.model : member)
                    continue
                }
                theirsModels += milliseconds * Double(calls) / n
            }
        }
        print("where a frame's time goes at 1 thread each (means per frame over \(frames) frames; runs: \(runsByStage.joined(separator: ", "))):")
        print(String(format: "  ours:   models %6.2f ms + the rest %5.2f ms = %6.2f ms", oursModels, oursMean - oursModels, oursMean))
        if litertMissing.isEmpty, theirsModels >= theirsMean {
            // SSD MobileNet v1 (uint8): ai-edge-litert's one-thread invoke takes longer than MediaPipe's whole frame,
            // so the two builds of XNNPACK do not run it alike and LiteRT cannot stand for MediaPipe's models. Holistic:
            // MediaPipe's graph runs the face and the two hands side by side on its executor's threads (the CPU line
            // below shows more than one core), so its models' times do not add up to its frame.
            print(String(format: "  %@: LiteRT's one-thread models (%.2f ms) take longer than its whole frame (%.2f ms): no breakdown (its XNNPACK build runs them otherwise, or its graph ran models side by side: see its cores below)",
                         theirName as NSString, theirsModels, theirsMean))
        } else if litertMissing.isEmpty {
            print(String(format: "  %@: models %6.2f ms + the rest %5.2f ms = %6.2f ms   (models: LiteRT at 1 thread × our runs)",
                         theirName as NSString, theirsModels, theirsMean - theirsModels, theirsMean))
            print(String(format: "  ours / theirs: models %.2f, the rest %.2f", oursModels / theirsModels,
                         (oursMean - oursModels) / max(theirsMean - theirsModels, 1e-9)))
        } else {
            print("  \(theirName): LiteRT did not time \(litertMissing.joined(separator: ", ")): no breakdown")
        }
    }

    /// The task under test in `runningMode`, live-stream results counted by `sink`, and how its options are set.
    static func make(_ task: Task, _ a: Arguments, runningMode: RunningMode, sink: LiveSink) throws -> (any BenchedPipeline, String) {
        // The job's options (MediaPipe's defaults unless it says otherwise) on both sides.
        let bench = task.registered.bench
        var values = bench.values
        if let masks = bench.masksOption { values[masks] = .flag(a.segmentationMasks) }
        var setup = TaskSetup(modelPath: a.model, runningMode: runningMode, threads: a.threads, values: values)
        if runningMode == .liveStream { setup.liveStreamHandler = { _, outcome in sink.count(outcome) } }
        let described = bench.described + (bench.masksOption != nil && a.segmentationMasks ? ", segmentation masks on" : "")
        return (BenchedSession(session: try task.registered.open(setup)), described)
    }

    /// VmHWM from /proc: the most resident memory the process has had.
    static func peakResidentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
        return kb / 1024
    }
}

/// The clip as a camera filming its scene would see it: the frame on screen a given time into the clip, played forward
/// then backward (so the scene never jumps), at the clip's own frame rate. `tools/mediapipe_landmarker_time.py` picks
/// MediaPipe's live-stream frames the same way.
struct LiveScene {
    let frameCount: Int
    /// Seconds per frame.
    let interval: Double

    init(frameCount: Int, firstTimestamp: Int, lastTimestamp: Int) {
        self.frameCount = frameCount
        interval = frameCount > 1 ? Double(lastTimestamp - firstTimestamp) / 1000 / Double(frameCount - 1) : 1
    }

    func frame(atSeconds seconds: Double) -> Int {
        guard frameCount > 1, interval > 0 else { return 0 }
        let cycle = 2 * (frameCount - 1)
        let step = Int(seconds / interval) % cycle
        return step < frameCount ? step : cycle - step
    }
}

/// Counts live-stream results (not dropped frames), of any task.
final class LiveSink: Sendable {
    private let delivered = Locked(0)

    func count(_ outcome: LiveStreamOutcome<any Sendable>) {
        if case .dropped = outcome { return }
        delivered.withLock { $0 += 1 }
    }

    var count: Int { delivered.withLock { $0 } }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
