import Foundation
import VisionTasksTestSupport
import XCTest

/// `vision-tasks object` and `vision-tasks classify` as a user runs them: `--json` equal to MediaPipe's reference
/// files on every photo they list, PNG and JPEG, with their options.
final class ObjectCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")

    private func results(_ json: Any) -> [String: Any] {
        let entries = (json as? [String: Any])?["results"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: entries.compactMap { entry in (entry["image"] as? String).map { ($0, entry["result"] as Any) } })
    }

    func testJSONEqualsTheReference() throws {
        for (command, model, reference, options) in [
            ("object", "ssd_mobilenet_v1.tflite", "object.json", ["--max-results", "5", "--score-threshold", "0.3"]),
            ("classify", "bird_classifier.tflite", "classify.json", ["--max-results", "5"]),
        ] {
            let json = FileManager.default.temporaryDirectory.appendingPathComponent("\(command)-cli-\(getpid()).json").path
            defer { try? FileManager.default.removeItem(atPath: json) }
            let theirs = results(try JSONSerialization.jsonObject(with: Data(contentsOf: Repository.mediapipeReference(reference))))
            let images = theirs.keys.sorted().map { Repository.shared.appendingPathComponent("images/\($0)").path }
            let outcome = try ChildProcess.run(binary, [command, Repository.modelPath(model)] + images + options + ["--json", json])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let ours = results(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))))
            XCTAssertEqual(Set(ours.keys), Set(theirs.keys), command)
            for (image, expected) in theirs {
                XCTAssertEqual(ours[image] as? NSDictionary, expected as? NSDictionary, "\(command) \(image)")
            }
        }
    }

    func testBadInputIsAMessageNotACrash() throws {
        let image = Repository.shared.appendingPathComponent("images/coral_cat.png").path
        for arguments in [["object", Repository.modelPath("bird_classifier.tflite"), image],
                          ["classify", Repository.modelPath("pose_landmarker_lite.task"), image],
                          ["object", Repository.modelPath("ssd_mobilenet_v1.tflite"), image, "--max-results", "0"],
                          ["classify", Repository.modelPath("bird_classifier.tflite"), "/nonexistent.png"]] {
            let outcome = try ChildProcess.run(binary, arguments)
            XCTAssertNotEqual(outcome.status, 0, arguments.joined(separator: " "))
            XCTAssertFalse(outcome.stderr.isEmpty, arguments.joined(separator: " "))
        }
    }
}
