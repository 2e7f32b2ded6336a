import Foundation
import VisionTasksTestSupport
import XCTest

/// `vision-tasks face` as a user runs it: `--json` in exactly the reference files' schema, video frames as JSON
/// lines, the live stream answered frame by frame, a wrong bundle refused with a message.
final class FaceCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
    private let model = Repository.modelPath("face_landmarker.task")
    private let clip = Repository.shared.appendingPathComponent("videos/face_head_turning.mp4").path

    /// Every key path of a JSON value (arrays by their first element).
    private func keyPaths(_ value: Any, _ prefix: String = "") -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: Set<String>()) { paths, entry in
                paths.insert(prefix + "." + entry.key)
                paths.formUnion(keyPaths(entry.value, prefix + "." + entry.key))
            }
        }
        if let array = value as? [Any], let first = array.first { return keyPaths(first, prefix + "[]") }
        return []
    }

    func testJSONHasTheReferenceSchema() throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("face-cli-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let images = ["face_day13.jpg", "face_group.jpg"].map { Repository.shared.appendingPathComponent("images/\($0)").path }
        let outcome = try ChildProcess.run(binary, ["face", model] + images + ["--json", json])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let ours = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json)))
        let reference = try JSONSerialization.jsonObject(with: Data(contentsOf: Repository.referenceSchema("face.json")))
        XCTAssertEqual(keyPaths(ours), keyPaths(reference))
        let header = try XCTUnwrap(ours as? [String: Any])
        XCTAssertEqual(header["task"] as? String, "face")
        XCTAssertEqual(header["runningMode"] as? String, "IMAGE")
        let results = try XCTUnwrap(header["results"] as? [[String: Any]])
        let faces = results.map { (($0["result"] as? [String: Any])?["faceLandmarks"] as? [Any])?.count }
        XCTAssertEqual(faces, [1, 0], "face_group.jpg's faces are too small for the short-range detector, as in MediaPipe")
    }

    func testVideoAndLiveStreamAnswerEveryFrame() throws {
        let video = try ChildProcess.run(binary, ["face", model, clip, "--video", "--max-frames", "3", "--jsonl", "-", "--num-faces", "1"])
        XCTAssertEqual(video.status, 0, video.stderr)
        let entries = video.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(entries.compactMap { $0["timestampMs"] as? Int }, [0, 33, 67])
        let live = try ChildProcess.run(binary, ["face", model, clip, "--live-stream", "--no-pacing", "--max-frames", "10", "--jsonl", "-"])
        XCTAssertEqual(live.status, 0, live.stderr)
        let answers = live.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(answers.count, 10)
        XCTAssertGreaterThan(answers.filter { $0["result"] != nil }.count, 0)
    }

    func testPoseBundleIsRefused() throws {
        let outcome = try ChildProcess.run(binary, ["face", Repository.modelPath("pose_landmarker_lite.task"),
                                                    Repository.shared.appendingPathComponent("images/face_day13.jpg").path])
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stderr.contains("face_detector.tflite"), outcome.stderr)
    }
}
