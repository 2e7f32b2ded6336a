import Foundation
import VisionTasksMLKit
import VisionTasksTestSupport
import XCTest

/// ML Kit's detector through the task registry (`vision-tasks odt`, the binary beside this bundle): photos are ML Kit's
/// single-image mode and `--video` its stream mode, and every answer is what ML Kit's API (``ObjectDetector``, whose
/// own tests hold it to LiteRT and to ML Kit's rules) gives in this process for the same images and options.
final class ObjectTrackingCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
    private let detectorPath = Repository.modelPath("ssd_mobilenet_v1.tflite")
    private func photo(_ name: String) -> String { Repository.shared.appendingPathComponent("images/\(name)").path }

    /// The `result` of each entry of `vision-tasks odt ARGUMENTS --json`, re-encoded with sorted keys.
    private func results(_ arguments: [String]) throws -> [String] {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("odt-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let outcome = try ChildProcess.run(binary, ["odt"] + arguments + ["--json", json, "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        XCTAssertEqual(document["task"] as? String, "odt")
        return try XCTUnwrap(document["results"] as? [[String: Any]]).map { try Self.encoded(XCTUnwrap($0["result"])) }
    }

    /// ML Kit's answer for each photo from its API, in the command's JSON.
    private func expected(_ options: CommonObjectDetectorOptions, _ photos: [String]) throws -> [String] {
        options.detectorModelPath = detectorPath
        let detector = ObjectDetector.objectDetector(options: options)
        return try photos.map { path in
            let objects = try detector.results(in: VisionImage(image: MPImage(contentsOfFile: path)))
            return try Self.encoded(["objects": objects.map { object -> [String: Any] in
                let frame = object.frame
                return ["frame": ["x": Double(frame.minX), "y": Double(frame.minY), "width": Double(frame.width), "height": Double(frame.height)],
                        "trackingID": object.trackingID.map { $0.intValue as Any } ?? NSNull(),
                        "labels": object.labels.map { ["text": $0.text, "confidence": Double($0.confidence), "index": $0.index] }]
            }])
        }
    }

    private static func encoded(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    func testPhotosAreSingleImagesAsMLKitsAPIAnswersThem() throws {
        let photos = ["obj_street_people.jpg", "obj_kitchen_people.jpg", "obj_cat.jpg"].map(photo)
        let ours = try results([detectorPath] + photos + ["--multiple", "--classify"])
        let options = ObjectDetectorOptions()
        options.detectorMode = .singleImage
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        XCTAssertEqual(ours, try expected(options, photos))
        // Something was found and labelled, and nothing tracked: two empty answers would prove little.
        XCTAssertTrue(ours.allSatisfy { $0.contains("\"labels\":[{") }, "\(ours)")
        XCTAssertTrue(ours.allSatisfy { $0.range(of: "\"trackingID\":[0-9]", options: .regularExpression) == nil }, "\(ours)")
    }

    func testFramesAreMLKitsStreamWithTrackingIDsAndACustomClassifier() throws {
        let frames = ["obj_street_people.jpg", "obj_street_people.jpg", "obj_kitchen_people.jpg", "obj_street_people.jpg"].map(photo)
        let classifier = Repository.modelPath("bird_classifier.tflite")
        let ours = try results([detectorPath] + frames + ["--video", "--multiple", "--classifier", classifier, "--max-labels", "3"])
        let options = CustomObjectDetectorOptions(localModel: LocalModel(path: classifier))
        options.detectorMode = .stream
        options.shouldEnableMultipleObjects = true
        options.shouldEnableClassification = true
        options.maxPerObjectLabelCount = 3
        XCTAssertEqual(ours, try expected(options, frames))
        // Every object found is tracked, and a still frame keeps its objects' IDs.
        XCTAssertTrue(ours.allSatisfy { $0.contains("\"trackingID\":") }, "\(ours)")
        XCTAssertFalse(ours.contains { $0.contains("\"trackingID\":null") }, "\(ours)")
        XCTAssertEqual(ours[0], ours[1], "the same photo twice: the same objects under the same IDs")
    }

    /// What the command refuses: ML Kit's old `--mode` (the running mode is the detector mode now) and a label file
    /// without a classifier; and the service's options are ML Kit's names, with no file paths among them.
    func testRefusals() throws {
        let image = photo("obj_cat.jpg")
        let mode = try ChildProcess.run(binary, ["odt", detectorPath, image, "--mode", "stream"])
        XCTAssertEqual(mode.status, 64, mode.stderr)
        XCTAssertTrue(mode.stderr.contains("--mode"), mode.stderr)
        let labels = try ChildProcess.run(binary, ["odt", detectorPath, image, "--labels", image])
        XCTAssertEqual(labels.status, 1, labels.stderr)
        XCTAssertTrue(labels.stderr.contains("labelsPath"), labels.stderr)
        let missing = try ChildProcess.run(binary, ["odt", "/nonexistent.tflite", image])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("/nonexistent.tflite"), missing.stderr)
    }
}
