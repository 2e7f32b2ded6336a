import Foundation
import VisionTasksTestSupport
import XCTest

/// The guides' Swift snippets (Examples/SeedSnippets, built by `swift build` in Swift 6 and Swift 5 language modes)
/// run on shared images. Each binary is copied beside the task bundles, where the snippets'
/// `Bundle.main.path(forResource:ofType:)` looks on Linux: the executable's directory.
final class SeedSnippetTests: XCTestCase {
    func testPoseSnippetsRunInBothLanguageModes() throws {
        try runSnippets("pose", image: "pose1.jpg", expecting: [
            "image: 1 pose(s), 33 landmarks",
            "video: 3 frames, poses [1, 1, 1]",
            "live stream: 3 results, timestamps [0, 33, 66], poses [1, 1, 1], errors []",
        ])
    }

    func testFaceSnippetsRunInBothLanguageModes() throws {
        try runSnippets("face", image: "face_day13.jpg", expecting: [
            "image: 1 face(s), 478 landmarks",
            "video: 3 frames, faces [1, 1, 1]",
            "live stream: 3 results, timestamps [0, 33, 66], faces [1, 1, 1], errors []",
        ])
    }

    func testGestureSnippetsRunInBothLanguageModes() throws {
        // hand_f5547.jpg: one open palm (MediaPipe: "Open_Palm", gesture.json).
        try runSnippets("gesture", image: "hand_f5547.jpg", expecting: [
            "image: 1 hand(s), gestures [[\"Open_Palm\"]]",
            "video: 3 frames, hands [1, 1, 1]",
            "live stream: 3 results, timestamps [0, 33, 66], hands [1, 1, 1], errors []",
        ])
    }

    func testFaceDetectorSnippetsRunInBothLanguageModes() throws {
        // The guide's snippets load "model.tflite" (copied beside the binary from face_detection_short_range.tflite);
        // the faces MediaPipe 1.2.3 finds in face_day13.jpg with that model and the default options, from the reference.
        let image = "face_day13.jpg"
        let faces = try mediapipeFaceDetections(set: "short", image: image)
        XCTAssertEqual(faces.count, 1, "face_day13.jpg: one face in MediaPipe's answer")
        let keypoints = faces.map { ($0["keypoints"] as? [Any])?.count ?? -1 }
        let n = faces.count
        try runSnippets("face-detector", image: image, expecting: [
            "image: \(n) face(s), keypoints \(keypoints)",
            "FaceDetector(modelPath:): \(n) face(s)",
            "video: 3 frames, faces [\(n), \(n), \(n)]",
            "live stream: 3 results, timestamps [0, 33, 66], faces [\(n), \(n), \(n)], errors []",
        ])
    }

    /// MediaPipe's detections for `image` in a set of Tests/Fixtures/face_detector_reference.json (image mode).
    private func mediapipeFaceDetections(set: String, image: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: Repository.fixtures.appendingPathComponent("face_detector_reference.json"))
        let entries = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["entries"] as? [[String: Any]])
        let entry = try XCTUnwrap(entries.first {
            $0["set"] as? String == set && $0["image"] as? String == image && $0["runningMode"] as? String == "IMAGE"
        }, "face_detector_reference.json: \(set) \(image)")
        return try XCTUnwrap((entry["result"] as? [String: Any])?["detections"] as? [[String: Any]])
    }

    private func runSnippets(_ task: String, image: String, expecting expected: [String]) throws {
        let built = ChildProcess.buildDirectory
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-snippets-\(task)-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Bundle name → our Models/ file: the face detector guide bundles its model as "model.tflite".
        for (name, model) in [("pose_landmarker.task", "pose_landmarker_lite.task"), ("face_landmarker.task", "face_landmarker.task"),
                              ("gesture_recognizer.task", "gesture_recognizer.task"),
                              ("model.tflite", "face_detection_short_range.tflite")] {
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(name), withDestinationURL: URL(fileURLWithPath: Repository.modelPath(model)))
        }
        for name in ["seed-snippets", "seed-snippets-swift5"] {
            let source = built.appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: source.path) else {
                return XCTFail("\(source.path) is not built: run `swift build` before `swift test` (tools/run-tests does)")
            }
            let binary = directory.appendingPathComponent(name)
            try FileManager.default.copyItem(at: source, to: binary)
            let outcome = try ChildProcess.run(binary, [task, Repository.shared.appendingPathComponent("images/\(image)").path, "3"])
            print("\(name) \(task):\n\(outcome.output)")
            XCTAssertEqual(outcome.status, 0, "\(name): \(outcome.output) \(outcome.stderr)")
            XCTAssertEqual(outcome.output.split(separator: "\n").map(String.init), expected, name)
        }
    }
}
