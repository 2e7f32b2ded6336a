import Foundation
import VisionTasksTestSupport
import XCTest

/// `vision-tasks model info` as a user runs it: the binary built beside this test bundle.
final class ModelInfoCLITests: XCTestCase {
    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            XCTFail("\(binary.path) is not built: run `swift build` before `swift test` (tools/run-tests does)")
            return (-1, Data(), "")
        }
        let outcome = try ChildProcess.run(binary, arguments)
        return (outcome.status, outcome.stdout, outcome.stderr)
    }

    func testJSONMatchesLiteRTListing() throws {
        let result = try run(["model", "info", Repository.modelPath("gesture_recognizer.task"), "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let members = try XCTUnwrap(json["members"] as? [[String: Any]])
        let fixture = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Repository.fixtureJSON("litert_model_listing.json")) as? [String: Any])
        let expected = try XCTUnwrap(((fixture["models"] as? [String: Any])?["gesture_recognizer.task"]) as? [String: [String: Any]])
        XCTAssertEqual(members.compactMap { $0["path"] as? String }, [
            "hand_landmarker.task/hand_detector.tflite", "hand_landmarker.task/hand_landmarks_detector.tflite",
            "hand_gesture_recognizer.task/gesture_embedder.tflite",
            "hand_gesture_recognizer.task/canned_gesture_classifier.tflite",
        ])
        for member in members {
            let path = try XCTUnwrap(member["path"] as? String)
            let truth = try XCTUnwrap(expected[path], path)
            XCTAssertEqual(member["operators"] as? [String: Int], truth["histogram"] as? [String: Int], path)
            for role in ["inputs", "outputs"] {
                let ours = try XCTUnwrap(member[role] as? [[String: Any]], path)
                let theirs = try XCTUnwrap(truth[role] as? [[String: Any]], path)
                XCTAssertEqual(ours.map { $0["name"] as? String }, theirs.map { $0["name"] as? String }, path)
                XCTAssertEqual(ours.map { $0["type"] as? String }, theirs.map { $0["type"] as? String }, path)
                XCTAssertEqual(ours.map { $0["shape"] as? [Int] }, theirs.map { $0["shape"] as? [Int] }, path)
            }
        }
    }

    func testBadFileIsAMessageNotACrash() throws {
        let result = try run(["model", "info", Repository.root.appendingPathComponent("Package.swift").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("neither a TFLite model"), result.stderr)
        let missing = try run(["model", "info", "/nonexistent.task"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("/nonexistent.task"), missing.stderr)
    }
}
