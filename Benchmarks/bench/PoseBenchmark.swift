import Dispatch
import Foundation
import VisionTasksImaging
import VisionTasks

/// `bench pose`: the pose landmarker end to end, per stage, in image, video or live-stream mode.
enum PoseBenchmark {
    struct Arguments {
        var model = "Models/pose_landmarker_lite.task"
        var image = "../shared/images/pose4.jpg"
        var video = "../shared/videos/full_body_juggle.mp4"
        var mode = "image"
        var frames = 60
    }

    static func parse(_ arguments: [String]) throws -> Arguments {
        var a = Arguments()
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
            case "--frames":
                guard let n = Int(value), n > 0 else { throw BenchError("--frames takes a positive number") }
                a.frames = n
            default: throw BenchError("unknown option \(flag) (options: --model --image --video --mode --frames)")
            }
        }
        return a
    }

    static func run(arguments: [String]) throws {
        let a = try parse(arguments)
        guard FileManager.default.fileExists(atPath: a.model) else { throw BenchError("no model at \(a.model): run tools/setup") }
        // Frames: the image repeated (image mode), or the clip's first frames (video and live modes).
        var frames: [(MPImage, Int)] = []
        if a.mode == "image" {
            let image = try MPImage(contentsOfFile: a.image)
            frames = (0..<a.frames).map { (image, $0 * 33) }
        } else {
            let decoder = try VideoDecoder(path: a.video)
            while frames.count < a.frames, let frame = try decoder.nextFrame() { frames.append((frame.image, frame.timestampMs)) }
        }
        guard let first = frames.first?.0 else { throw BenchError("no frames") }
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = a.model
        options.runningMode = a.mode == "image" ? .image : a.mode == "video" ? .video : .liveStream
        let sink = LiveSink()
        if a.mode == "live" { options.poseLandmarkerLiveStreamDelegate = sink }
        let landmarker = try PoseLandmarker(options: options)
        print("pose: \(a.model), \(a.mode) mode, \(frames.count) frames of \(first.width)×\(first.height), numPoses 1 (MediaPipe's default)")

        // Warm-up, then measure.
        let warmup = a.mode == "image" ? 3 : 0
        for _ in 0..<warmup { _ = try landmarker.detect(image: first) }
        let before = landmarker.timings
        let start = DispatchTime.now().uptimeNanoseconds
        var perFrame: [Double] = []
        var submitted = 0
        if a.mode == "live" {
            // A source far faster than the pipeline (a frame every millisecond, the clip's frames in a loop):
            // what gets through is the live stream's throughput.
            let duration = 3.0
            while Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < duration {
                try landmarker.detectAsync(image: frames[submitted % frames.count].0, timestampInMilliseconds: submitted)
                submitted += 1
                usleep(1000)
            }
        } else {
            for (image, timestamp) in frames {
                let t0 = DispatchTime.now().uptimeNanoseconds
                if a.mode == "image" {
                    _ = try landmarker.detect(image: image)
                } else {
                    _ = try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
                }
                perFrame.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
        }
        landmarker.waitUntilIdle()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let after = landmarker.timings
        let n = Double(a.mode == "live" ? max(sink.count, 1) : frames.count)
        func stage(_ name: String, _ a: StageTimings, _ b: StageTimings) {
            let calls = b.calls - a.calls
            print(String(format: "  %-10@ runs %4d  pre %6.2f ms  inference %6.2f ms  post %6.2f ms   (per frame)", name as NSString, calls,
                         (b.preprocessing - a.preprocessing) / n, (b.inference - a.inference) / n, (b.postprocessing - a.postprocessing) / n))
        }
        stage("detector", before.detector, after.detector)
        stage("landmarks", before.landmarks, after.landmarks)
        if a.mode == "live" {
            let delivered = sink.count
            print(String(format: "live: %d of %d frames delivered in %.2f s: %.1f results/s, %d dropped", delivered, submitted, elapsed,
                         Double(delivered) / elapsed, submitted - delivered))
        } else {
            let sorted = perFrame.sorted()
            print(String(format: "per frame: median %.2f ms, mean %.2f ms; %.1f frames/s", sorted[sorted.count / 2], perFrame.reduce(0, +) / n, n / elapsed))
        }
        print("peak memory: \(peakResidentMegabytes()) MB")
        // LiteRT with as many threads as our interpreters use (all cores), for the inference columns above.
        let threads = ProcessInfo.processInfo.activeProcessorCount
        for member in ["pose_detector.tflite", "pose_landmarks_detector.tflite"] {
            if let line = LiteRTReference.run(script: "tools/litert_model_time.py", arguments: ["\(a.model)#\(member)", "\(threads)", "30"]) {
                print("litert \(member) (\(threads) threads): \(line)")
            }
        }
    }

    /// VmHWM from /proc: the most resident memory the process has had.
    static func peakResidentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
        return kb / 1024
    }
}

final class LiveSink: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var delivered = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return delivered }
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?) {
        lock.lock(); delivered += 1; lock.unlock()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
