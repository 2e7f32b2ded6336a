import VisionTasksModelFormat
import Foundation
import VisionTasksTestSupport
import XCTest

final class BundleTests: XCTestCase {
    func testNestedBundleListsMembersByPath() throws {
        // Member lists as `unzip -l` shows them for the shipped bundles.
        let bundle = try TaskBundle(path: Repository.modelPath("gesture_recognizer.task"))
        XCTAssertEqual(bundle.memberPaths, [
            "hand_landmarker.task/hand_detector.tflite",
            "hand_landmarker.task/hand_landmarks_detector.tflite",
            "hand_gesture_recognizer.task/gesture_embedder.tflite",
            "hand_gesture_recognizer.task/canned_gesture_classifier.tflite",
        ])
        XCTAssertEqual(try bundle.member("hand_landmarker.task/hand_detector.tflite").bytes.count, 2_339_878)
        // A bare name finds the one nested member that carries it.
        XCTAssertEqual(try bundle.member("gesture_embedder.tflite").path, "hand_gesture_recognizer.task/gesture_embedder.tflite")
    }

    func testNonModelMembersAreKept() throws {
        let bundle = try TaskBundle(path: Repository.modelPath("face_landmarker.task"))
        let geometry = try bundle.member("geometry_pipeline_metadata_landmarks.binarypb")
        XCTAssertEqual(try geometry.bytes.count, 19_376)
        XCTAssertFalse(geometry.isTFLiteModel)
        XCTAssertThrowsError(try bundle.model("geometry_pipeline_metadata_landmarks.binarypb")) { error in
            guard case .wrongModel = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testMembersAreReadInPlace() throws {
        let storage = try ByteStorage.mapping(path: Repository.modelPath("pose_landmarker_full.task"))
        let bundle = try TaskBundle(bytes: storage.slice)
        for member in bundle.members {
            XCTAssertTrue(try member.bytes.storage === storage, "\(member.path) was copied")
        }
    }

    func testMissingMemberIsNamed() throws {
        let bundle = try TaskBundle(path: Repository.modelPath("pose_landmarker_lite.task"))
        XCTAssertThrowsError(try bundle.member("face_detector.tflite")) { error in
            XCTAssertEqual(error as? FormatError, .missingBundleMember(
                name: "face_detector.tflite", available: ["pose_detector.tflite", "pose_landmarks_detector.tflite"]))
            XCTAssertTrue("\(error)".contains("face_detector.tflite"))
        }
    }

    func testBareModelIsABundleOfOne() throws {
        let bundle = try TaskBundle(path: Repository.modelPath("selfie_segmentation.tflite"))
        XCTAssertEqual(bundle.memberPaths, ["selfie_segmentation.tflite"])
    }

    func testDeflatedAndEmptyMembersFromPythonZipfile() throws {
        let bundle = try TaskBundle(path: Repository.fixtures.appendingPathComponent("deflated.task").path)
        XCTAssertEqual(bundle.memberPaths, ["labels.txt", "inner.task/notes.txt", "empty.txt"])
        let labels = String(decoding: try bundle.member("labels.txt").bytes.bytes, as: UTF8.self)
        XCTAssertEqual(labels, "background\n" + (0..<200).map { "class \($0)\n" }.joined())
        XCTAssertEqual(String(decoding: try bundle.member("inner.task/notes.txt").bytes.bytes, as: UTF8.self), "nested member\n")
        XCTAssertEqual(try bundle.member("empty.txt").bytes.count, 0)
    }

    func testCorruptDeflatedMemberIsAnError() throws {
        var bytes = Array(try Data(contentsOf: Repository.fixtures.appendingPathComponent("deflated.task")))
        // The first member's deflate stream starts after its 30-byte local header and 10-byte name.
        for i in 40..<60 { bytes[i] ^= 0x5A }
        // Deflated members are inflated when asked for, so the damage shows there (and when the bundle is listed).
        let bundle = try TaskBundle(bytes: ByteStorage(copying: bytes).slice)
        XCTAssertThrowsError(try bundle.member("labels.txt").bytes) { error in
            guard case .corruptZipMember(member: "labels.txt", _) = error as? FormatError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try BundleSummary(bundle: bundle)) { error in
            guard case .corruptZipMember(member: "labels.txt", _) = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testNotABundle() throws {
        for bytes in [[UInt8](), Array("hello".utf8), Array(repeating: 0, count: 1000)] {
            XCTAssertThrowsError(try TaskBundle(bytes: ByteStorage(copying: bytes).slice)) { error in
                guard case .notAZipArchive = error as? FormatError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertThrowsError(try TaskBundle(path: "/nonexistent/model.task")) { error in
            guard case .fileUnreadable(path: "/nonexistent/model.task", _) = error as? FormatError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try TaskBundle(path: "/tmp")) { error in
            guard case .fileUnreadable = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testTruncatedBundleIsAnError() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Repository.modelPath("hand_landmarker.task"))))
        for length in [0, 21, 22, 100, bytes.count / 2, bytes.count - 23, bytes.count - 1] {
            XCTAssertThrowsError(try TaskBundle(bytes: ByteStorage(copying: bytes[0..<length]).slice), "length \(length)")
        }
    }
}
