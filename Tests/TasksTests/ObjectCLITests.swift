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
            // Where the reference is MediaPipe 1.2.3's (arm64), 0.10.14's file is the other version's answer: the
            // two differ in what is not arithmetic — an empty display name is "" in 0.10.14 and null in 1.2.3, and
            // they list different classes among those tied at score 0 (ObjectClassifierReferenceTests says which).
            let other = try Repository.otherMediapipeVersion(reference).map { results(try JSONSerialization.jsonObject(with: Data(contentsOf: $0))) }
            for (image, expected) in theirs {
                let alternative = other?[image].map { Self.tiesTaken(from: $0, into: expected, as: ours[image]) }
                let mine = ours[image].map(Self.emptyDisplayNames) as? NSDictionary
                let matches = [expected, alternative].compactMap { $0.map(Self.emptyDisplayNames) }.contains { mine == ($0 as? NSDictionary) }
                XCTAssertTrue(matches, "\(command) \(image): ours \(String(describing: ours[image])), MediaPipe's \(expected)")
            }
        }
    }

    /// A result with null display names written "", as our JSON and MediaPipe 0.10.14 write them.
    private static func emptyDisplayNames(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, field) in object { copy[key] = key == "displayName" && field is NSNull ? "" : emptyDisplayNames(field) }
            return copy
        }
        if let array = value as? [Any] { return array.map(emptyDisplayNames) }
        return value
    }

    /// `expected` with each category of score 0 that `ours` lists at the same place replaced by the other version's
    /// category there, when that one has score 0 too and is the class ours lists: a tie listed in the other version's
    /// order. Scores and every other field stay the reference's.
    private static func tiesTaken(from other: Any, into expected: Any, as ours: Any?) -> Any {
        func heads(_ value: Any?) -> [[[String: Any]]] {
            ((value as? [String: Any])?["classifications"] as? [[[String: Any]]]) ?? []
        }
        let (theirs, others, mine) = (heads(expected), heads(other), heads(ours))
        guard !theirs.isEmpty else { return expected }
        let replaced = theirs.enumerated().map { h, categories in
            categories.enumerated().map { k, category -> [String: Any] in
                guard h < others.count, k < others[h].count, h < mine.count, k < mine[h].count,
                      (category["score"] as? Double) == 0, (others[h][k]["score"] as? Double) == 0,
                      (others[h][k]["index"] as? Int) == (mine[h][k]["index"] as? Int) else { return category }
                return category.merging(["index": others[h][k]["index"] as Any, "categoryName": others[h][k]["categoryName"] as Any]) { _, new in new }
            }
        }
        var result = expected as? [String: Any] ?? [:]
        result["classifications"] = replaced
        return result
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
