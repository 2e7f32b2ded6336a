import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// JPEGs carrying EXIF orientation tags 1–8 (a shared JPEG with an APP1 segment holding only the tag, inserted after
/// SOI: the same bytes tools/mediapipe_orientation_goldens.py gave MediaPipe). MediaPipe 1.2.3's
/// `Image.create_from_file` shows the stored pixels turned by the tag, as ours does from a file or bytes; its results
/// (Tests/Fixtures/orientation/exif_*.json) are the truth, with the bounds of the upright tests.
final class OrientationExifTests: XCTestCase {
    struct Entry: Decodable { let image: String; let exifOrientation: Int; let exifSegmentHex: String; let width: Int; let height: Int }
    struct File: Decodable { let model: String; let mediapipeVersion: String; let results: [Entry] }

    static func fixture(_ task: String) throws -> (file: File, data: Data) {
        let data = try Data(contentsOf: Repository.mediapipeFixture("orientation/exif_\(task).json"))
        return (try JSONDecoder().decode(File.self, from: data), data)
    }

    /// The tagged JPEG's bytes: the segment goes right after the SOI marker.
    static func taggedJPEG(_ entry: Entry) throws -> [UInt8] {
        let original = [UInt8](try Data(contentsOf: Repository.shared.appendingPathComponent("images/\(entry.image)")))
        XCTAssertEqual(Array(original.prefix(2)), [0xFF, 0xD8])
        var segment: [UInt8] = []
        var hex = Substring(entry.exifSegmentHex)
        while hex.count >= 2 { segment.append(UInt8(hex.prefix(2), radix: 16)!); hex = hex.dropFirst(2) }
        return Array(original.prefix(2)) + segment + Array(original.dropFirst(2))
    }

    /// Every entry decoded as MediaPipe 1.x decodes it: the tag applied, the size MediaPipe's image had.
    static func images(_ task: String) throws -> (file: File, data: Data, images: [MPImage]) {
        let (file, data) = try fixture(task)
        XCTAssertEqual(file.mediapipeVersion, "1.2.3")
        let images = try file.results.map { entry -> MPImage in
            let image = try MPImage(encoded: try taggedJPEG(entry))
            XCTAssertEqual(image.exifOrientation, entry.exifOrientation, entry.image)
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height], "\(entry.image) EXIF \(entry.exifOrientation)")
            XCTAssertEqual(image.orientation, .up)
            return image
        }
        return (file, data, images)
    }

    static func label(_ entry: Entry) -> String { "\(entry.image) EXIF \(entry.exifOrientation)" }

    /// The opt-out leaves the stored pixels as they are (the frame MediaPipe 0.10.14 used), the tag still read.
    func testExifCanBeLeftUnapplied() throws {
        let entry = try XCTUnwrap(try Self.fixture("pose").file.results.first { $0.exifOrientation == 6 })
        let image = try MPImage(encoded: try Self.taggedJPEG(entry), decodingOptions: ImageDecodingOptions(appliesExifOrientation: false))
        XCTAssertEqual([image.width, image.height], [entry.height, entry.width])
        XCTAssertEqual(image.exifOrientation, 6)
    }

    func testPoseOnExifTaggedFilesMatchesMediaPipe() throws {
        let (file, data, images) = try Self.images("pose")
        let reference = try JSONDecoder().decode(PoseReferenceTests.Reference.self, from: data)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(file.model)
        options.numPoses = 2
        let landmarker = try PoseLandmarker(options: options)
        var report: [String] = []
        for ((entry, image), expected) in zip(zip(file.results, images), reference.results) {
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.landmarks.count, expected.result.landmarks.count, Self.label(entry))
            for p in 0..<min(result.landmarks.count, expected.result.landmarks.count) {
                let e = PoseReferenceTests.compare(result.landmarks[p], result.worldLandmarks[p], expected.result.landmarks[p],
                                                   expected.result.worldLandmarks[p])
                report.append("\(Self.label(entry))#\(p): \(e)")
                e.check(Self.label(entry))
            }
        }
        print("pose on EXIF-tagged files against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
    }

    func testFaceOnExifTaggedFilesMatchesMediaPipe() throws {
        let (file, data, images) = try Self.images("face")
        let reference = try JSONDecoder().decode(FaceReferenceTests.Reference.self, from: data)
        let landmarker = try FaceLandmarker(options: FaceReferenceTests.options(model: file.model, numFaces: 2))
        var report: [String] = []
        for ((entry, image), expected) in zip(zip(file.results, images), reference.results) {
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.faceLandmarks.count, expected.result.faceLandmarks.count, Self.label(entry))
            for f in 0..<min(result.faceLandmarks.count, expected.result.faceLandmarks.count) {
                let e = FaceReferenceTests.compare(result, face: f, expected.result, label: Self.label(entry))
                report.append("\(Self.label(entry))#\(f): \(e)")
                e.check(Self.label(entry))
            }
        }
        print("face on EXIF-tagged files against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
    }

    func testGestureOnExifTaggedFilesMatchesMediaPipe() throws {
        let (file, data, images) = try Self.images("gesture")
        let reference = try JSONDecoder().decode(HandReferenceTests.Reference.self, from: data)
        let recognizer = try GestureRecognizer(options: HandReferenceTests.gestureOptions(model: file.model, numHands: 2, runningMode: .image))
        var report: [String] = []
        for ((entry, image), expected) in zip(zip(file.results, images), reference.results) {
            let result = try recognizer.recognize(image: image)
            XCTAssertEqual(result.landmarks.count, expected.result.landmarks.count, Self.label(entry))
            for h in 0..<min(result.landmarks.count, expected.result.landmarks.count) {
                let e = HandReferenceTests.compare(landmarks: result.landmarks[h], world: result.worldLandmarks[h], handedness: result.handedness[h],
                                                   gestures: result.gestures[h], expected.result, hand: h, label: Self.label(entry))
                report.append("\(Self.label(entry))#\(h): \(e)")
                e.check(Self.label(entry))
            }
        }
        print("gesture on EXIF-tagged files against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
    }

    /// Boxes, labels and scores exactly MediaPipe's (its object detector agrees exactly between 0.10.14 and 1.2.3).
    func testObjectDetectorOnExifTaggedFilesMatchesMediaPipe() throws {
        let (file, data, images) = try Self.images("object")
        let reference = try JSONDecoder().decode(ObjectClassifierReferenceTests.SharedReference.self, from: data)
        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(file.model)
        options.maxResults = 5
        options.scoreThreshold = 0.3
        let detector = try ObjectDetector(options: options)
        for ((entry, image), expected) in zip(zip(file.results, images), reference.results) {
            ObjectClassifierReferenceTests.check(try detector.detect(image: image).detections, try XCTUnwrap(expected.result.detections),
                                                 Self.label(entry))
        }
    }
}
