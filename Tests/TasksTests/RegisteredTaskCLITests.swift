import Foundation
import VisionTasks
import VisionTasksResultJSON
import VisionTasksTestSupport
import XCTest

/// The registered tasks (``TaskRegistry``) through `vision-tasks TASK` and `vision-tasks worker`, as a user runs them:
/// every task's command and worker take its options from its description (names, ranges, messages), and the Face
/// Detector's `--json` holds MediaPipe 1.2.3's answers within the reference test's bounds.
final class RegisteredTaskCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")

    func testEveryRegisteredTaskHasACommandWithItsOptions() throws {
        let root = try ChildProcess.run(binary, ["--help"])
        // The kernel tier the binary runs and this CPU's best (KernelTierStatus), so a plain build can tell.
        // (The help wraps its lines: a plain build's status, which says more, spans two or three.)
        let unwrapped = root.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(unwrapped.contains("This build: \(KernelTierStatus.current)"), root.output)
        XCTAssertTrue(KernelTierStatus.current.description.contains("kernel tier \(KernelTierStatus.current.buildTier)"))
        for task in TaskRegistry.tasks {
            XCTAssertTrue(root.output.contains(task.name), "vision-tasks --help lists \(task.name)")
            let help = try ChildProcess.run(binary, [task.name, "--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            XCTAssertTrue(help.output.contains("vision-tasks \(task.name)"), help.output)
            for option in task.options(on: .commandLine) {
                XCTAssertTrue(help.output.contains(option.flag), "\(task.name) --help: \(option.flag)")
                // A value outside the option's range is a usage error naming the option, before any model is read.
                let outside: String?
                switch option.kind {
                case let .integer(range): outside = range.upperBound == .max ? nil : "\(range.upperBound + 1)"
                case let .number(range): outside = range.upperBound == .greatestFiniteMagnitude ? nil : "\(range.upperBound + 1)"
                case .flag, .choice: outside = "maybe"
                case .names, .path: outside = nil
                }
                guard let outside else { continue }
                let refused = try ChildProcess.run(binary, [task.name, "/nonexistent.tflite", "/nonexistent.jpg", option.flag + "=" + outside])
                XCTAssertEqual(refused.status, 64, "\(task.name) \(option.flag)=\(outside): \(refused.stderr)")
                XCTAssertTrue(refused.stderr.contains(option.flag), refused.stderr)
            }
        }
    }

    func testFaceDetectorJSONHoldsMediaPipesAnswers() throws {
        let entries = FaceDetectorReferenceTests.entries("short-options")
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("face-detector-cli-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let images = entries.map { Repository.shared.appendingPathComponent("images/\($0.image)").path }
        let outcome = try ChildProcess.run(binary, ["face-detector", Repository.modelPath(entries[0].model)] + images
            + ["--min-detection-confidence", "0.2", "--min-suppression-threshold=0.6", "--json", json, "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        XCTAssertEqual(document["task"] as? String, "face-detector")
        let results = try XCTUnwrap(document["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["image"] as? String }, entries.map(\.image))
        for (result, entry) in zip(results, entries) {
            let data = try JSONSerialization.data(withJSONObject: try XCTUnwrap(result["result"]))
            let ours = try JSONDecoder().decode(FaceDetectorReferenceTests.Result.self, from: data)
            XCTAssertEqual(ours.detections.count, entry.result.detections.count, entry.image)
            for (a, b) in zip(ours.detections, entry.result.detections) {
                let box = CGRect(x: a.boundingBox.originX, y: a.boundingBox.originY, width: a.boundingBox.width, height: a.boundingBox.height)
                XCTAssertGreaterThanOrEqual(FaceDetectorReferenceTests.iou(box, b.boundingBox), 0.99, entry.image)
                XCTAssertEqual(a.categories.map(\.index), b.categories.map(\.index), entry.image)
                XCTAssertEqual(a.categories[0].score, b.categories[0].score, accuracy: 1e-4, entry.image)
                for (p, q) in zip(a.keypoints, b.keypoints) {
                    XCTAssertEqual(p.x, q.x, accuracy: 0.002, entry.image)
                    XCTAssertEqual(p.y, q.y, accuracy: 0.002, entry.image)
                }
            }
        }
    }

    /// The worker answers a registered task's request with the command's `--jsonl` line, and refuses its bad options
    /// with the command's messages.
    func testWorkerTakesRegisteredTasks() throws {
        let model = Repository.modelPath("face_detection_short_range.tflite")
        let image = Repository.shared.appendingPathComponent("images/face_day13.jpg").path
        let requests = [
            #"{"id":1,"task":"face-detector","model":"\#(model)","input":"\#(image)","options":{"minDetectionConfidence":0.2}}"#,
            #"{"id":2,"task":"face-detector","model":"\#(model)","input":"\#(image)","options":{"minSuppressionThreshold":7}}"#,
            #"{"id":3,"task":"face-detector","model":"\#(model)","input":"\#(image)","options":{"numFaces":2}}"#,
        ]
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("worker-registered-\(getpid()).jsonl")
        try Data((requests.joined(separator: "\n") + "\n").utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let outcome = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "\"$0\" worker < \"$1\"", binary.path, input.path])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        let cli = try ChildProcess.run(binary, ["face-detector", model, image, "--min-detection-confidence", "0.2", "--jsonl", "-", "--quiet"])
        let frame = try XCTUnwrap(lines.first { $0.hasPrefix(#"{"id":1,"frame":0,"#) })
        XCTAssertEqual(String(frame.dropFirst(#"{"id":1,"frame":0,"#.count)), String(cli.output.dropFirst(1).dropLast()))
        XCTAssertTrue(lines.contains { $0.contains(#""id":2"#) && $0.contains("badOptions") && $0.contains("--min-suppression-threshold must be between 0.0 and 1.0") }, outcome.output)
        XCTAssertTrue(lines.contains { $0.contains(#""id":3"#) && $0.contains("takes no option 'numFaces'") }, outcome.output)
    }
}
