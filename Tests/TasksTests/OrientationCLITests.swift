import Foundation
import VisionTasks
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Issue #32 on `vision-tasks`: `--rotation-degrees` (MediaPipe's rotation_degrees), `--orientation` (the MPImage
/// orientation) and `--no-exif` on every task command, and `--json`'s width and height in the frame the results
/// are in (the image as decoded: upright by EXIF unless --no-exif; a video's frame as ffmpeg turns it).
final class OrientationCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
    private let pose = Repository.modelPath("pose_landmarker_lite.task")
    private let photo = Repository.shared.appendingPathComponent("images/pose1.jpg")
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("orientation-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// pose1.jpg (251 × 201 as stored) tagged EXIF 6: upright it is 201 × 251.
    private func taggedPhoto() throws -> String {
        let path = directory.appendingPathComponent("pose1-exif6.jpg")
        try Data(EXIFOrientationJPEG.tagging(Array(try Data(contentsOf: photo)), orientation: 6)).write(to: path)
        return path.path
    }

    /// The `--json` document's results.
    private func results(_ arguments: [String]) throws -> [[String: Any]] {
        let json = directory.appendingPathComponent("out-\(UUID()).json").path
        let outcome = try ChildProcess.run(binary, arguments + ["--json", json, "--quiet"])
        XCTAssertEqual(outcome.status, 0, "\(arguments): \(outcome.stderr)")
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        return try XCTUnwrap(document["results"] as? [[String: Any]])
    }

    private func size(_ entry: [String: Any]) -> [Int] { [entry["width"] as? Int ?? -1, entry["height"] as? Int ?? -1] }

    /// Bad values are usage errors (ArgumentParser's status 64) naming the option, on every command that takes an
    /// image, before any model is read.
    func testBadValuesAreUsageErrorsOnEveryCommand() throws {
        let image = photo.path, detector = Repository.modelPath("ssd_mobilenet_v1.tflite")
        let commands: [[String]] = [
            ["pose", pose, image], ["face", Repository.modelPath("face_landmarker.task"), image],
            ["hand", Repository.modelPath("hand_landmarker.task"), image], ["gesture", Repository.modelPath("gesture_recognizer.task"), image],
            ["object", detector, image], ["classify", Repository.modelPath("efficientnet_lite0.tflite"), image], ["odt", detector, image],
        ]
        let bad: [(arguments: [String], message: String)] = [
            (["--rotation-degrees", "45"], "--rotation-degrees must be a multiple of 90 (got 45)"),
            (["--rotation-degrees", "9223372036854775807"], "--rotation-degrees must be a multiple of 90"),
            (["--rotation-degrees", "ninety"], "--rotation-degrees"),
            (["--orientation", "sideways"], "--orientation takes one of up, right, down, left"),
            (["--rotation-degrees", "90", "--orientation", "right"], "--rotation-degrees and --orientation both set"),
        ]
        for command in commands {
            for (arguments, message) in bad {
                let outcome = try ChildProcess.run(binary, command + arguments)
                let line = (command.prefix(1) + arguments).joined(separator: " ")
                XCTAssertEqual(outcome.status, 64, "\(line): \(outcome.stderr)")
                XCTAssertTrue(outcome.stderr.contains(message), "\(line): \(outcome.stderr)")
                XCTAssertEqual(outcome.output, "", line)
            }
        }
    }

    /// `--json`'s width and height are the decoded image's: upright by the EXIF tag by default, as stored with
    /// --no-exif; a pose is found either way. An orientation given with the flags does not change them (results are
    /// in the buffer's frame), and negative or multi-turn degrees are accepted, as a separate argument or after `=`.
    func testJSONSizeIsTheDecodedImagesWithAndWithoutEXIF() throws {
        let tagged = try taggedPhoto()
        let upright = try results(["pose", pose, tagged])
        XCTAssertEqual(upright.map(size), [[201, 251]])
        let stored = try results(["pose", pose, tagged, "--no-exif"])
        XCTAssertEqual(stored.map(size), [[251, 201]])
        for entries in [upright, stored] {
            let landmarks = try XCTUnwrap((entries.first?["result"] as? [String: Any])?["landmarks"] as? [[Any]])
            XCTAssertEqual(landmarks.map(\.count), [33])
        }
        for flags in [["--rotation-degrees", "-90"], ["--rotation-degrees=450"], ["--orientation", "down"]] {
            XCTAssertEqual(try results(["pose", pose, tagged, "--no-exif"] + flags).map(size), [[251, 201]], "\(flags)")
        }
        // ML Kit's command too.
        let odt = try results(["odt", Repository.modelPath("ssd_mobilenet_v1.tflite"), tagged, "--rotation-degrees", "180"])
        XCTAssertEqual(odt.map(size), [[201, 251]])
    }

    /// A clip whose stream is turned a quarter (a stream copy with rotate=90): `--json` has ffmpeg's upright size.
    func testVideoJSONSizeIsFFmpegsUprightFrame() throws {
        let clip = directory.appendingPathComponent("rotate90.mp4").path
        try RotatedClip.make(from: Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4"), degrees: 90,
                             at: URL(fileURLWithPath: clip))
        let entries = try results(["pose", pose, clip, "--video", "--max-frames", "2", "--no-segmentation", "--rotation-degrees", "0"])
        XCTAssertEqual(entries.map(size), [[720, 1280], [720, 1280]])
    }

    /// As a user would: a turned photo saved as PNG (numpy.rot90 of face_day13.jpg's pixels, k = 1, 2, 3), given to
    /// `vision-tasks face --rotation-degrees 90·k --json`; the JSON is MediaPipe's result for the same pixels and
    /// rotation (Tests/Fixtures/orientation/turned_face.json, 1.2.3 where it differs from 0.10.14), in the buffer's frame.
    func testRotationDegreesOnTheCommandLineGivesMediaPipesResult() throws {
        struct Point: Decodable { let x: Float; let y: Float }
        struct Result: Decodable { let faceLandmarks: [[Point]] }
        struct Entry: Decodable { let rot90k: Int; let rotationDegrees: Int; let width: Int; let height: Int; let mediapipeVersion: String?; let result: Result }
        struct File: Decodable { let results: [Entry] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("orientation/turned_face.json")))
        let upright = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/face_day13.jpg").path)
        for k in 1...3 {
            let candidates = file.results.filter { $0.rot90k == k }
            let expected = try XCTUnwrap(candidates.first { $0.mediapipeVersion == "1.2.3" } ?? candidates.first, "k=\(k)")
            let turned = TurnedPixels.rot90(upright.rgbPixels(), width: upright.width, height: upright.height, k)
            let path = directory.appendingPathComponent("face-rot90-\(k).png").path
            try PNGEncoder.write(try MPImage(pixels: turned.pixels, width: turned.width, height: turned.height, format: .rgb8), to: path)
            let entries = try results(["face", Repository.modelPath("face_landmarker.task"), path, "--rotation-degrees", "\(expected.rotationDegrees)"])
            XCTAssertEqual(entries.count, 1)
            let entry = try XCTUnwrap(entries.first)
            XCTAssertEqual(size(entry), [expected.width, expected.height], "k=\(k): the buffer's frame")
            let faces = try XCTUnwrap((entry["result"] as? [String: Any])?["faceLandmarks"] as? [[[String: Any]]], "k=\(k)")
            XCTAssertEqual(faces.count, expected.result.faceLandmarks.count, "k=\(k)")
            guard let ours = faces.first, let theirs = expected.result.faceLandmarks.first else { continue }
            XCTAssertEqual(ours.count, theirs.count)
            var dx: Float = 0, dy: Float = 0
            for (a, b) in zip(ours, theirs) {
                dx += abs(Float(a["x"] as? Double ?? .nan) - b.x) / Float(theirs.count)
                dy += abs(Float(a["y"] as? Double ?? .nan) - b.y) / Float(theirs.count)
            }
            // Issue #15's bound for face landmarks.
            XCTAssertLessThanOrEqual(dx, 0.003, "k=\(k) x")
            XCTAssertLessThanOrEqual(dy, 0.003, "k=\(k) y")
        }
    }
}
