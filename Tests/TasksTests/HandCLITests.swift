import Foundation
import VisionTasksTestSupport
import XCTest

/// `vision-tasks hand` and `vision-tasks gesture` as a user runs them: `--json` in exactly the reference files'
/// schemas, the gesture clip through the live stream answered frame by frame.
final class HandCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")

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

    func testJSONHasTheReferenceSchemas() throws {
        for (command, model, reference) in [("hand", "hand_landmarker.task", "hand.json"), ("gesture", "gesture_recognizer.task", "gesture.json")] {
            let json = FileManager.default.temporaryDirectory.appendingPathComponent("\(command)-cli-\(getpid()).json").path
            defer { try? FileManager.default.removeItem(atPath: json) }
            let image = Repository.shared.appendingPathComponent("images/hand_2hands.png").path
            let outcome = try ChildProcess.run(binary, [command, Repository.modelPath(model), image, "--json", json])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let ours = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json)))
            let theirs = try JSONSerialization.jsonObject(with: Data(contentsOf: Repository.referenceSchema(reference)))
            XCTAssertEqual(keyPaths(ours), keyPaths(theirs), command)
            XCTAssertEqual((ours as? [String: Any])?["task"] as? String, command)
        }
    }

    func testGestureLiveStreamAnswersEveryFrame() throws {
        let clip = Repository.shared.appendingPathComponent("videos/hand_gesture_fist_thumbsup.mp4").path
        let outcome = try ChildProcess.run(binary, ["gesture", Repository.modelPath("gesture_recognizer.task"), clip, "--live-stream",
                                                    "--no-pacing", "--max-frames", "40", "--jsonl", "-"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let answers = outcome.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(answers.count, 40)
        XCTAssertEqual(answers.compactMap { $0["timestampMs"] as? Int }, (0..<40).map { $0 * 40 })
    }
}
