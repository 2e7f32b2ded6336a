import Foundation
import VisionTasksTestSupport
import XCTest

/// `vision-tasks worker` as a batch job drives it (the debug binary beside this bundle): requests on standard input,
/// answers on standard output. The yardstick is the CLI's own `--jsonl` output for the same file, byte for byte.
final class WorkerCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
    private let model = Repository.modelPath("pose_landmarker_lite.task")
    private let faceModel = Repository.modelPath("face_landmarker.task")
    private let clip = Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path
    private func photo(_ name: String) -> String { Repository.shared.appendingPathComponent("images/\(name)").path }

    /// Runs a worker over `requests` (one JSON line each, then end of input) and returns its lines and exit status.
    private func serve(_ requests: [String], arguments: [String] = [], environment: [String: String] = [:]) throws -> (lines: [String], status: Int32) {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["worker"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let payload = Data(requests.map { $0 + "\n" }.joined().utf8)
        Thread {
            input.fileHandleForWriting.write(payload)
            try? input.fileHandleForWriting.close()
        }.start()
        nonisolated(unsafe) var stderr = Data()
        let drained = DispatchSemaphore(value: 0)
        Thread {
            stderr = errors.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        if process.terminationStatus != 0 { print(String(decoding: stderr, as: UTF8.self)) }
        return (String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init), process.terminationStatus)
    }

    private func json(_ line: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
    }

    private func request(_ id: String, task: String = "pose", model: String? = nil, input: String, mode: String? = nil,
                         options: [String: Any] = [:], extra: [String: Any] = [:]) throws -> String {
        var fields: [String: Any] = ["id": id, "task": task, "model": model ?? self.model, "input": input, "options": options]
        if let mode { fields["mode"] = mode }
        fields.merge(extra) { $1 }
        return String(decoding: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A frame line split into its id, frame index and the CLI line it carries (`{` + the bytes after the index).
    private func frameLine(_ line: String) throws -> (id: String, frame: Int, cli: String) {
        let object = try json(line)
        let id = try XCTUnwrap(object["id"] as? String), frame = try XCTUnwrap(object["frame"] as? Int)
        let prefix = "{\"id\":\"\(id)\",\"frame\":\(frame),"
        XCTAssertTrue(line.hasPrefix(prefix), line.prefix(80) + "")
        return (id, frame, "{" + line.dropFirst(prefix.count))
    }

    /// Each bad request is answered by one error line of its own type, naming the problem, and the worker serves the
    /// good request after them and ends cleanly at the end of input.
    func testBadRequestsAreAnsweredWithOneErrorLineEachAndTheWorkerGoesOn() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("worker-missing-\(getpid()).jpg").path
        let requests = [
            "{not json",
            "[1, 2]",
            // Nesting deeper than the parser's limit, and a line longer than the worker reads (1 MiB): refused, with
            // no stack overflow and nothing held beyond the limit.
            String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
            String(repeating: "x", count: (1 << 20) + 10),
            try request("no-task", task: "holistic", input: photo("pose1.jpg")),
            try request("missing", input: missing),
            try request("wrong-model", model: faceModel, input: photo("pose1.jpg")),
            try request("range", input: photo("pose1.jpg"), options: ["numPoses": 0]),
            try request("unknown-option", input: photo("pose1.jpg"), options: ["numFaces": 1]),
            try request("wrong-type", input: photo("pose1.jpg"), options: ["numPoses": "many"]),
            try request("image-segment", input: photo("pose1.jpg"), extra: ["startMs": 100]),
            try request("good", input: photo("pose1.jpg"), options: ["numPoses": 1, "segmentation": false]),
        ]
        let (lines, status) = try serve(requests)
        XCTAssertEqual(status, 0)
        let ready = try json(XCTUnwrap(lines.first))
        XCTAssertEqual(ready["ready"] as? Bool, true)
        XCTAssertNotNil(ready["pid"] as? Int)
        XCTAssertEqual(ready["threads"] as? Int, 1, "no OMP_NUM_THREADS in the test's environment should mean one thread")
        let answers = try lines.dropFirst().map(json)
        let expected: [(id: Any, type: String, mentions: String)] = [
            (NSNull(), "badRequest", "not JSON"), (NSNull(), "badRequest", "object"), (NSNull(), "badRequest", "not JSON"),
            (NSNull(), "badRequest", "longer than 1048576 bytes"),
            ("no-task", "unknownTask", "holistic"), ("missing", "inputError", missing),
            ("wrong-model", "modelError", "face_landmarker.task"), ("range", "badOptions", "--num-poses"),
            ("unknown-option", "badOptions", "numFaces"), ("wrong-type", "badOptions", "many"),
            ("image-segment", "badRequest", "startMs"),
        ]
        XCTAssertEqual(answers.count, expected.count + 2, "\(lines)")
        for (answer, want) in zip(answers, expected) {
            let error = try XCTUnwrap(answer["error"] as? [String: Any], "\(answer)")
            XCTAssertEqual(error["type"] as? String, want.type, "\(answer)")
            XCTAssertTrue((error["message"] as? String ?? "").contains(want.mentions), "\(answer)")
            if let id = want.id as? String { XCTAssertEqual(answer["id"] as? String, id) } else { XCTAssertTrue(answer["id"] is NSNull, "\(answer)") }
        }
        let good = answers.suffix(2)
        XCTAssertEqual(good.first?["id"] as? String, "good")
        XCTAssertEqual(((good.first?["result"] as? [String: Any])?["landmarks"] as? [[Any]])?.map(\.count), [33])
        XCTAssertEqual(good.last?["done"] as? Bool, true)
        XCTAssertEqual(good.last?["frames"] as? Int, 1)
    }

    /// Without a `mode`, an input is a photo when its bytes are one (any format MPImage decodes), whatever its
    /// name: a BMP saved as `.dat` is answered as one image; a PDF saved as `.jpg` is an input error that says it is
    /// a PDF.
    func testPhotosAreToldByContent() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worker-content-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bmp = folder.appendingPathComponent("photo.dat"), pdf = folder.appendingPathComponent("scan.jpg")
        try Data(contentsOf: Repository.fixtures.appendingPathComponent("formats/pixels/rgb24.bmp")).write(to: bmp)
        try Data("%PDF-1.7\n%âãÏÓ\n".utf8).write(to: pdf)
        let (lines, status) = try serve([try request("bmp", input: bmp.path), try request("pdf", input: pdf.path)])
        XCTAssertEqual(status, 0)
        let answers = try lines.dropFirst().map(json)
        XCTAssertEqual(answers.count, 3, "\(lines)")
        XCTAssertEqual(answers[0]["id"] as? String, "bmp")
        XCTAssertEqual(answers[0]["frame"] as? Int, 0)
        XCTAssertEqual([answers[0]["width"] as? Int, answers[0]["height"] as? Int], [37, 29], "\(answers[0])")
        XCTAssertTrue(answers[0]["timestampMs"] is NSNull, "image mode: \(answers[0])")
        XCTAssertEqual(answers[1]["frames"] as? Int, 1, "\(answers[1])")
        let error = try XCTUnwrap(answers[2]["error"] as? [String: Any], "\(answers[2])")
        XCTAssertEqual(error["type"] as? String, "inputError")
        XCTAssertTrue((error["message"] as? String ?? "").contains("a PDF document"), "\(error)")
    }

    /// `OMP_NUM_THREADS`, as Spark and Ray set it, is the default thread count.
    func testThreadsDefaultToOpenMPSetting() throws {
        let (lines, status) = try serve([], environment: ["OMP_NUM_THREADS": "3"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(try json(XCTUnwrap(lines.first))["threads"] as? Int, 3)
    }

    /// A photo's line, and a clip's lines frame by frame, are the CLI's `--jsonl` lines byte for byte, whether the
    /// worker loads the task for the request or has it kept from an earlier one.
    func testFrameLinesAreTheCLIJSONLines() throws {
        let photos = ["pose1.jpg", "pose3.jpg", "pose1.jpg"].map(photo)
        var requests = try photos.enumerated().map { try request("photo\($0.offset)", input: $0.element) }
        requests.append(try request("clip", input: clip, options: ["maxFrames": 6]))
        let (lines, status) = try serve(requests)
        XCTAssertEqual(status, 0)
        let frames = try lines.dropFirst().filter { try json($0)["frame"] != nil }.map(frameLine)
        XCTAssertEqual(frames.map(\.id), ["photo0", "photo1", "photo2"] + Array(repeating: "clip", count: 6))
        // The lines below are read by index: without all of them, the failure above is the answer (an index past
        // the end would stop the whole test process).
        guard frames.count == photos.count + 6 else { return }
        for (index, path) in photos.enumerated() {
            let cli = try ChildProcess.run(binary, ["pose", model, path, "--jsonl", "-", "--quiet"])
            XCTAssertEqual(cli.status, 0, cli.stderr)
            XCTAssertEqual(frames[index].cli + "\n", cli.output, "photo \(path)")
            XCTAssertEqual(frames[index].frame, 0)
        }
        let cli = try ChildProcess.run(binary, ["pose", model, clip, "--video", "--max-frames", "6", "--jsonl", "-", "--quiet"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertEqual(frames.suffix(6).map { $0.cli + "\n" }.joined(), cli.output)
        XCTAssertEqual(frames.suffix(6).map(\.frame), Array(0..<6))
    }

    /// A worker keeps one video task per (task, model, options) and starts every clip on it as a new task would:
    /// clip after clip, and the first clip again, each gives the CLI's lines for that clip alone (its own process,
    /// its own task). Pose (numPoses 1, smoothed), face (one face, smoothed), hand (two hands) and ML Kit's object
    /// tracking.
    func testKeptVideoTasksStartEachClipAfresh() throws {
        let juggle = clip, outdoor = Repository.shared.appendingPathComponent("videos/outdoor_person_dog_sam2.mp4").path
        let face = Repository.shared.appendingPathComponent("videos/face_head_turning.mp4").path
        let hands = Repository.shared.appendingPathComponent("videos/hand_gesture_fist_thumbsup.mp4").path
        let runs: [(task: String, model: String, clip: String, options: [String: Any], cli: [String])] = [
            ("pose", model, juggle, ["numPoses": 1, "segmentation": false], ["--num-poses", "1", "--no-segmentation"]),
            ("pose", model, outdoor, ["numPoses": 1, "segmentation": false], ["--num-poses", "1", "--no-segmentation"]),
            ("pose", model, juggle, ["numPoses": 1, "segmentation": false], ["--num-poses", "1", "--no-segmentation"]),
            ("face", faceModel, face, ["numFaces": 1, "blendshapes": false], ["--num-faces", "1", "--no-blendshapes"]),
            ("face", faceModel, face, ["numFaces": 1, "blendshapes": false], ["--num-faces", "1", "--no-blendshapes"]),
            ("hand", Repository.modelPath("hand_landmarker.task"), hands, [:], []),
            ("hand", Repository.modelPath("hand_landmarker.task"), hands, [:], []),
            // ML Kit's detector cannot start over: the worker's kept task makes a new one for each clip.
            ("odt", Repository.modelPath("ssd_mobilenet_v1.tflite"), outdoor, ["multiple": true, "classify": true], ["--multiple", "--classify"]),
            ("odt", Repository.modelPath("ssd_mobilenet_v1.tflite"), outdoor, ["multiple": true, "classify": true], ["--multiple", "--classify"]),
        ]
        func frames(_ task: String) -> Int { 5 }
        let requests = try runs.enumerated().map { index, run in
            try request("\(index)", task: run.task, model: run.model, input: run.clip, options: run.options.merging(["maxFrames": frames(run.task)]) { $1 })
        }
        let (lines, status) = try serve(requests)
        XCTAssertEqual(status, 0)
        let answers = try lines.dropFirst().map(json)
        XCTAssertEqual(answers.filter { $0["done"] != nil }.count, runs.count, "\(answers.filter { $0["frame"] == nil })")
        let answered = try lines.dropFirst().filter { try json($0)["frame"] != nil }.map(frameLine)
        for (index, run) in runs.enumerated() {
            let ours = answered.filter { $0.id == "\(index)" }
            XCTAssertEqual(ours.map(\.frame), Array(0..<frames(run.task)))
            let cli = try ChildProcess.run(binary, [run.task, run.model, run.clip, "--video", "--max-frames", "\(frames(run.task))", "--jsonl", "-", "--quiet"] + run.cli)
            XCTAssertEqual(cli.status, 0, cli.stderr)
            XCTAssertEqual(ours.map { $0.cli + "\n" }.joined(), cli.output, "request \(index): \(run.task) on \(run.clip)")
        }
    }

    /// A kept gesture task starts a new clip as a fresh worker does where the last clip left a hand tracked: the hand
    /// clip run to frame 40 (a hand tracked from frame 24), then a segment starting cold at 1 s (`preRollMs` 0,
    /// frame 25), whose first frame a task that kept the tracked hand would crop from that hand instead of detecting
    /// it (the first clips of `testKeptVideoTasksStartEachClipAfresh` cannot show this: they open without a hand).
    func testAKeptGestureTaskStartsAfreshWhereAHandWasTracked() throws {
        let gesture = Repository.modelPath("gesture_recognizer.task")
        let hands = Repository.shared.appendingPathComponent("videos/hand_gesture_fist_thumbsup.mp4").path
        let segment = try request("segment", task: "gesture", model: gesture, input: hands, options: ["maxFrames": 40],
                                  extra: ["startMs": 1000, "preRollMs": 0])
        // The same options (maxFrames among them), so the worker keeps one task for both requests.
        let kept = try serve([try request("before", task: "gesture", model: gesture, input: hands, options: ["maxFrames": 40]), segment])
        let fresh = try serve([segment])
        XCTAssertEqual(kept.status, 0)
        XCTAssertEqual(fresh.status, 0)
        func segmentFrames(_ lines: [String]) throws -> [(frame: Int, cli: String)] {
            try lines.dropFirst().filter { try json($0)["frame"] != nil }.map(frameLine).filter { $0.id == "segment" }.map { ($0.frame, $0.cli) }
        }
        let (ours, truth) = (try segmentFrames(kept.lines), try segmentFrames(fresh.lines))
        XCTAssertEqual(truth.map(\.frame), Array(25..<40), "the clip runs at 25 fps: 1 s is frame 25")
        let withHands = try truth.filter { (((try json($0.cli)["result"] as? [String: Any])?["landmarks"] as? [Any])?.isEmpty == false) }.count
        XCTAssertGreaterThan(withHands, 0, "the segment must show a hand for the comparison to mean anything")
        XCTAssertEqual(ours.map(\.frame), truth.map(\.frame))
        for (a, b) in zip(ours, truth) { XCTAssertEqual(a.cli, b.cli, "frame \(a.frame)") }
    }

    /// A clip cut into segments gives the whole clip's frames once each, byte for byte: by default a segment runs
    /// every frame before its `startMs` without writing it, so its tracking (each frame's region from the previous
    /// frame's landmarks, numPoses 1) and smoothing (One Euro filters, visibility's low-pass) are the whole run's.
    ///
    /// A bounded `preRollMs` starts the segment cold a little before `startMs`, and its results are not the whole
    /// run's: the tracking loop does not forget where it started bit for bit, any more than MediaPipe's forgets one
    /// changed pixel. Those distances are measured here against MediaPipe's one-pixel spread
    /// (Tests/Fixtures/pose_tracking_spread.json, this clip's first 90 frames) and reported, not asserted: with a
    /// two-second or a half-second pre-roll they sit at that spread, on some measures a few per cent above it.
    func testSegmentsWithPreRollMatchTheWholeClip() throws {
        let options: [String: Any] = ["numPoses": 1, "segmentation": false, "maxFrames": 90]
        // At 24 fps: a = frames 0-35, b = 36-59, c = 60-89; "2s" and "0.5s" = 60-89 run from frame 12 and frame 48.
        let requests = [
            try request("whole", input: clip, options: options),
            try request("a", input: clip, options: options, extra: ["endMs": 1500]),
            try request("b", input: clip, options: options, extra: ["startMs": 1500, "endMs": 2500]),
            try request("c", input: clip, options: options, extra: ["startMs": 2500]),
            try request("2s", input: clip, options: options, extra: ["startMs": 2500, "preRollMs": 2000]),
            try request("0.5s", input: clip, options: options, extra: ["startMs": 2500, "preRollMs": 500]),
        ]
        let (lines, status) = try serve(requests)
        XCTAssertEqual(status, 0)
        let answers = try lines.dropFirst().map(json)
        XCTAssertEqual(answers.filter { $0["done"] != nil }.map { $0["frames"] as? Int }, [90, 36, 24, 30, 30, 30], "\(answers.filter { $0["frame"] == nil })")
        let frames = try lines.dropFirst().filter { try json($0)["frame"] != nil }.map(frameLine)
        let whole = Dictionary(uniqueKeysWithValues: frames.filter { $0.id == "whole" }.map { ($0.frame, $0.cli) })
        let segments = frames.filter { ["a", "b", "c"].contains($0.id) }
        XCTAssertEqual(segments.map(\.frame), Array(0..<90), "each frame once, in order")
        for frame in segments { XCTAssertEqual(frame.cli, whole[frame.frame], "segment \(frame.id), frame \(frame.frame)") }
        var report: [String] = []
        for id in ["2s", "0.5s"] {
            let bounded = frames.filter { $0.id == id }
            XCTAssertEqual(bounded.map(\.frame), Array(60..<90))
            let distances = try bounded.map { try distance($0.cli, try XCTUnwrap(whole[$0.frame])) }
            let exact = bounded.filter { $0.cli == whole[$0.frame] }.count
            report.append("pre-roll \(id): \(exact) of \(distances.count) frames byte-identical to the whole run")
            report += try compare(distances)
        }
        print(report.joined(separator: "\n"))
    }

    private struct Distance { var x = 0.0, y = 0.0, world = 0.0, visibility = 0.0, presence = 0.0 }

    private struct Spread: Decodable {
        struct Nudge: Decodable { let frames: [Frame] }
        struct Frame: Decodable { let x, y, world, visibility, presence: Double }
        let nudges: [Nudge]
    }

    /// The measures of tools/mediapipe_tracking_spread.py between two lines' single poses: mean |Δx|, |Δy| and world
    /// distance over the 33 landmarks, largest |Δvisibility| and |Δpresence|.
    private func distance(_ line: String, _ reference: String) throws -> Distance {
        func landmarks(_ line: String, _ key: String) throws -> [[String: Double]] {
            let result = try XCTUnwrap(try json(line)["result"] as? [String: Any])
            return try XCTUnwrap((result[key] as? [[[String: Double]]])?.first, "no pose in \(line.prefix(120))")
        }
        let (ours, theirs) = (try landmarks(line, "landmarks"), try landmarks(reference, "landmarks"))
        let (ourWorld, theirWorld) = (try landmarks(line, "worldLandmarks"), try landmarks(reference, "worldLandmarks"))
        var d = Distance()
        let count = Double(theirs.count)
        for i in theirs.indices {
            d.x += abs(ours[i]["x"]! - theirs[i]["x"]!) / count
            d.y += abs(ours[i]["y"]! - theirs[i]["y"]!) / count
            let dw = ["x", "y", "z"].map { ourWorld[i][$0]! - theirWorld[i][$0]! }
            d.world += dw.map { $0 * $0 }.reduce(0, +).squareRoot() / count
            d.visibility = max(d.visibility, abs(ours[i]["visibility"]! - theirs[i]["visibility"]!))
            d.presence = max(d.presence, abs(ours[i]["presence"]! - theirs[i]["presence"]!))
        }
        return d
    }

    /// Clip mean and worst frame of each measure against MediaPipe's one-pixel spread (the largest nudge's).
    private func compare(_ distances: [Distance]) throws -> [String] {
        let spread = try JSONDecoder().decode(Spread.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("pose_tracking_spread.json")))
        let measures: [(String, KeyPath<Distance, Double>, KeyPath<Spread.Frame, Double>)] = [
            ("x", \.x, \.x), ("y", \.y, \.y), ("world (m)", \.world, \.world), ("visibility", \.visibility, \.visibility),
            ("presence", \.presence, \.presence),
        ]
        var report: [String] = []
        for (name, ours, theirs) in measures {
            let values = distances.map { $0[keyPath: ours] }
            let ourMean = values.reduce(0, +) / Double(max(values.count, 1)), ourWorst = values.max() ?? 0
            let spreadMean = spread.nudges.map { n in n.frames.map { $0[keyPath: theirs] }.reduce(0, +) / Double(n.frames.count) }.max() ?? 0
            let spreadWorst = spread.nudges.map { $0.frames.map { $0[keyPath: theirs] }.max() ?? 0 }.max() ?? 0
            report.append(String(format: "  %@: mean %.6f worst %.6f; MediaPipe's one-pixel spread mean %.6f worst %.6f",
                                 name, ourMean, ourWorst, spreadMean, spreadWorst))
        }
        return report
    }
}
