import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasks

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect pose landmarks in images or video frames; write MediaPipe's reference JSON and drawings.")

    @Argument(help: "A pose landmarker bundle (.task).") var model: String
    @Argument(help: "Images, or with --video / --live-stream a video file (or, with --video, frame images at --fps).") var inputs: [String]
    @Option(help: "Write all results here as one JSON document, in the schema of MediaPipe's reference results (kept in memory until the end).") var json: String?
    @Option(help: "Write each frame's result as one JSON line as it is produced (`-` for standard output); nothing accumulates.") var jsonl: String?
    @Option(help: "Write annotated PNGs (skeleton, mask) into this directory.") var draw: String?
    @Flag(help: "Treat the inputs as one video: a video file, or frame images in order.") var video = false
    @Flag(help: "Feed a video file through the live-stream API (detectAsync), paced at its frame rate.") var liveStream = false
    @Flag(inversion: .prefixedNo, help: "With --live-stream, send frames at the clip's frame rate (--no-pacing: as fast as possible).") var pacing = true
    @Option(help: "Frame rate of frame-image input (video files use their own).") var fps: Double = 30
    @Option(help: "Frames to read from a video file.") var maxFrames: Int = .max
    @Option(help: "Most poses to find.") var numPoses: Int = 2
    @Flag(inversion: .prefixedNo, help: "Compute segmentation masks.") var segmentation = true
    @Option(help: "Threads to use (default: every core); results are the same for any count.") var threads: Int?
    @Option(help: "Which poses video and live-stream modes smooth: mediapipe (as MediaPipe: only with --num-poses 1), always (each tracked pose), never.")
    var smoothing: LandmarkSmoothing = .mediapipe
    @Flag(help: "Print nothing but results (no per-frame lines, no progress).") var quiet = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard fps > 0, fps.isFinite else { throw ValidationError("--fps must be positive") }
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be positive") }
        guard numPoses > 0 else { throw ValidationError("--num-poses must be positive") }
        if let threads, !(1...BaseOptions.maximumThreadCount).contains(threads) {
            throw ValidationError("--threads must be between 1 and \(BaseOptions.maximumThreadCount)")
        }
        if liveStream {
            guard !video else { throw ValidationError("--live-stream and --video are two running modes: give one") }
            guard inputs.count == 1, !Self.isImage(inputs[0]) else { throw ValidationError("--live-stream takes one video file") }
            guard draw == nil else { throw ValidationError("--draw is not available with --live-stream") }
        }
    }

    func run() throws {
        // Outputs first: a path that cannot be written fails before any work.
        let output = try ResultOutput(json: json, jsonl: jsonl)
        if let draw { try FileManager.default.createDirectory(atPath: draw, withIntermediateDirectories: true) }
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = model
        options.baseOptions.numThreads = threads
        options.runningMode = liveStream ? .liveStream : video ? .video : .image
        options.numPoses = numPoses
        options.outputSegmentationMasks = segmentation
        options.landmarkSmoothing = smoothing
        let live = liveStream ? LiveStreamCollector(output: output) : nil
        options.poseLandmarkerLiveStreamDelegate = live
        let landmarker: PoseLandmarker
        do { landmarker = try PoseLandmarker(options: options) } catch { throw CLIError(description: "\(model): \(error)") }
        // Standard output carries results only: JSON lines when they go there, per-frame lines otherwise.
        let say: (String) -> Void = { line in
            if output.ownsStandardOutput { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { print(line) }
        }

        if let live {
            let decoder: VideoDecoder
            do { decoder = try VideoDecoder(path: inputs[0]) } catch { throw CLIError(description: "\(error)") }
            let progress = ProgressLine(total: decoder.frameCount.map { min($0, maxFrames) }, quiet: quiet)
            live.progress = progress
            let start = DispatchTime.now().uptimeNanoseconds
            var frames = 0
            while frames < maxFrames, let frame = try decoder.nextFrame() {
                if pacing {
                    // Frame i is due i / fps after the first, as a camera would deliver it.
                    let due = start + UInt64(frame.timestampMs) * 1_000_000
                    let now = DispatchTime.now().uptimeNanoseconds
                    if due > now { usleep(useconds_t((due - now) / 1000)) }
                }
                live.expect(timestamp: frame.timestampMs, label: frame.label, width: frame.image.width, height: frame.image.height)
                do { try landmarker.detectAsync(image: frame.image, timestampInMilliseconds: frame.timestampMs) } catch {
                    throw CLIError(description: "\(frame.label): \(error)")
                }
                frames += 1
            }
            landmarker.waitUntilIdle()
            progress.finish()
            try live.check()
            try output.finish(header: header(runningMode: "LIVE_STREAM"))
            let counts = live.counts
            if !quiet { say("frames \(frames), results \(counts.results), dropped \(counts.dropped)" + (counts.errors > 0 ? ", errors \(counts.errors)" : "")) }
            return
        }

        func handle(_ image: MPImage, label: String, timestamp: Int?, progress: ProgressLine) throws {
            let result: PoseLandmarkerResult
            do {
                result = try timestamp.map { try landmarker.detect(videoFrame: image, timestampInMilliseconds: $0) }
                    ?? landmarker.detect(image: image)
            } catch { throw CLIError(description: "\(label): \(error)") }
            try output.write(image: label, width: image.width, height: image.height, timestamp: timestamp, result: ReferenceJSON.pose(result))
            if let draw {
                let name = label.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "#", with: "_") + ".png"
                try PoseDrawing.draw(result, on: image).writePNG(to: (draw as NSString).appendingPathComponent(name))
            }
            progress.advance()
            if !quiet, !progress.isShown { say("\(label): \(result.landmarks.count) pose(s)") }
        }
        if video, inputs.count == 1, !Self.isImage(inputs[0]) {
            let decoder: VideoDecoder
            do { decoder = try VideoDecoder(path: inputs[0]) } catch { throw CLIError(description: "\(error)") }
            let progress = ProgressLine(total: decoder.frameCount.map { min($0, maxFrames) }, quiet: quiet)
            var count = 0
            while count < maxFrames, let frame = try decoder.nextFrame() {
                try handle(frame.image, label: frame.label, timestamp: frame.timestampMs, progress: progress)
                count += 1
            }
            progress.finish()
        } else {
            let progress = ProgressLine(total: inputs.count, quiet: quiet || inputs.count < 2)
            for (index, path) in inputs.enumerated() {
                let image: MPImage
                do { image = try MPImage(contentsOfFile: path) } catch { throw CLIError(description: "\(path): \(error)") }
                let label = (path as NSString).lastPathComponent
                try handle(image, label: label, timestamp: video ? Int((Double(index) * 1000 / fps).rounded(.toNearestOrEven)) : nil,
                           progress: progress)
            }
            progress.finish()
        }
        try output.finish(header: header(runningMode: video ? "VIDEO" : "IMAGE"))
    }

    private func header(runningMode: String) -> [String: Any] {
        ["task": "pose", "model": (model as NSString).lastPathComponent, "runningMode": runningMode,
         "mediapipeVersion": ReferenceJSON.mirroredVersion]
    }

    static func isImage(_ path: String) -> Bool {
        ["png", "jpg", "jpeg"].contains((path as NSString).pathExtension.lowercased())
    }
}

/// The live-stream delegate of `vision-tasks pose --live-stream`: writes each answer as it arrives (in order, on the
/// landmarker's delivery queue) and counts results, dropped frames and errors. Frames in flight are remembered by
/// timestamp until answered, so nothing accumulates.
final class LiveStreamCollector: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
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

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds timestamp: Int, error: (any Error)?) {
        lock.lock()
        let frame = pending.removeValue(forKey: timestamp)
        if result != nil { results += 1 } else { errors += 1 }
        lock.unlock()
        progress?.advance()
        do {
            if let result, let frame {
                try output.write(image: frame.label, width: frame.width, height: frame.height, timestamp: timestamp,
                                 result: ReferenceJSON.pose(result))
            } else {
                try output.writeError(timestamp: timestamp, message: "\(error.map { "\($0)" } ?? "no result")")
            }
        } catch {
            lock.lock(); failure = failure ?? error; lock.unlock()
        }
    }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
        lock.lock()
        pending.removeValue(forKey: timestamp)
        dropped += 1
        lock.unlock()
        progress?.advance()
        do { try output.writeDropped(timestamp: timestamp) } catch {
            lock.lock(); failure = failure ?? error; lock.unlock()
        }
    }
}

/// Results in the schema of the MediaPipe reference results (what MediaPipe's Python results give, field for field).
enum ReferenceJSON {
    /// The MediaPipe release whose outputs and schema these results mirror.
    static let mirroredVersion = "0.10.14"

    static func pose(_ result: PoseLandmarkerResult) -> [String: Any] {
        func point(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> [String: Any] {
            ["x": Double(x), "y": Double(y), "z": Double(z), "visibility": Double(visibility ?? 0), "presence": Double(presence ?? 0)]
        }
        var out: [String: Any] = [
            "landmarks": result.landmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
            "worldLandmarks": result.worldLandmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
        ]
        out["segmentationMasks"] = (result.segmentationMasks ?? []).map { mask -> [String: Any] in
            let count = Double(max(mask.float32Data.count, 1))
            return ["width": mask.width, "height": mask.height,
                    "mean": mask.float32Data.reduce(0) { $0 + Double($1) } / count,
                    "fractionAbove0.5": Double(mask.float32Data.filter { $0 > 0.5 }.count) / count]
        }
        return out
    }
}

/// The skeleton (MediaPipe's 33-point pose connections) and mask over the image.
enum PoseDrawing {
    static func draw(_ result: PoseLandmarkerResult, on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        for mask in result.segmentationMasks ?? [] {
            canvas.overlay(mask: mask.float32Data, maskWidth: mask.width, maskHeight: mask.height, .blue, opacity: 0.4)
        }
        let scale = Double(max(image.width, image.height)) / 300
        for pose in result.landmarks {
            let points = pose.map { (x: Double($0.x) * Double(image.width), y: Double($0.y) * Double(image.height)) }
            for (a, b) in PoseLandmarker.poseLandmarks where a < points.count && b < points.count {
                canvas.drawLine(from: points[a], to: points[b], thickness: max(1.5, scale), .green)
            }
            for (i, p) in points.enumerated() where (pose[i].visibility ?? 1) > 0.5 {
                canvas.drawPoint(x: p.x, y: p.y, radius: max(2, scale * 1.5), .red)
            }
        }
        return canvas
    }
}

extension LandmarkSmoothing: ExpressibleByArgument {}
