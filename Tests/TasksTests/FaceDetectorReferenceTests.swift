import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// The Face Detector against MediaPipe 1.2.3 (Tests/Fixtures/face_detector_reference.json, made by
/// tools/mediapipe_face_detector_goldens.py; MediaPipe 0.10.14's answers beside it are within 6e-7 of 1.2.3's, boxes
/// identical): every detection in MediaPipe's order, boxes by IoU ≥ 0.99, keypoints within 0.002, scores within 1e-4
/// (the bounds), in every running mode, on turned buffers and on EXIF-tagged files. On arm64 the file is what
/// MediaPipe 1.2.3 answers there (`tools/arm64 goldens --all`): the clip's frames come from that machine's ffmpeg.
final class FaceDetectorReferenceTests: XCTestCase {
    struct Box: Decodable { let originX: Int; let originY: Int; let width: Int; let height: Int }
    struct Point: Decodable { let x: Float; let y: Float }
    struct Found: Decodable {
        let boundingBox: Box
        let categories: [ReferenceCategory]
        let keypoints: [Point]
    }
    struct ReferenceCategory: Decodable { let index: Int; let score: Float; let categoryName: String?; let displayName: String? }
    struct Result: Decodable { let detections: [Found] }
    struct Options: Decodable { let minDetectionConfidence: Float?; let minSuppressionThreshold: Float? }
    struct Entry: Decodable {
        let set: String
        let model: String
        let image: String
        let width: Int
        let height: Int
        let timestampMs: Int?
        let options: Options
        let rot90k: Int?
        let rotationDegrees: Int?
        let exifOrientation: Int?
        let exifSegmentHex: String?
        let result: Result
    }
    struct File: Decodable { let mediapipeVersion: String; let entries: [Entry] }

    static let file: File = {
        let data = try! Data(contentsOf: Repository.mediapipeFixture("face_detector_reference.json"))
        return try! JSONDecoder().decode(File.self, from: data)
    }()

    static func entries(_ set: String) -> [Entry] { file.entries.filter { $0.set == set } }

    static func detector(_ model: String, _ options: Options = Options(minDetectionConfidence: nil, minSuppressionThreshold: nil),
                         mode: RunningMode = .image, threads: Int? = nil, delegate: (any FaceDetectorLiveStreamDelegate)? = nil) throws -> FaceDetector {
        let settings = FaceDetectorOptions()
        settings.baseOptions.modelAssetPath = Repository.modelPath(model)
        settings.baseOptions.numThreads = threads
        settings.runningMode = mode
        settings.faceDetectorLiveStreamDelegate = delegate
        if let v = options.minDetectionConfidence { settings.minDetectionConfidence = v }
        if let v = options.minSuppressionThreshold { settings.minSuppressionThreshold = v }
        return try FaceDetector(options: settings)
    }

    static func iou(_ a: CGRect, _ b: Box) -> Double {
        let b = CGRect(x: b.originX, y: b.originY, width: b.width, height: b.height)
        let overlap = a.intersection(b)
        guard !overlap.isNull else { return 0 }
        let shared = Double(overlap.width * overlap.height)
        let union = Double(a.width * a.height + b.width * b.height) - shared
        return union > 0 ? shared / union : (a == b ? 1 : 0)
    }

    /// Compares one answer; returns the worst (1 − IoU, keypoint, score) differences for the report.
    @discardableResult
    static func compare(_ result: FaceDetectorResult, _ expected: Result, _ label: String,
                        file: StaticString = #filePath, line: UInt = #line) -> SIMD3<Double> {
        XCTAssertEqual(result.detections.count, expected.detections.count, "\(label): faces", file: file, line: line)
        var worst = SIMD3<Double>(0, 0, 0)
        for (ours, theirs) in zip(result.detections, expected.detections) {
            let overlap = iou(ours.boundingBox, theirs.boundingBox)
            XCTAssertGreaterThanOrEqual(overlap, 0.99, "\(label): box \(ours.boundingBox) vs \(theirs.boundingBox)", file: file, line: line)
            XCTAssertEqual(ours.categories.count, 1, label, file: file, line: line)
            let category = ours.categories[0], expectedCategory = theirs.categories[0]
            XCTAssertEqual(category.index, expectedCategory.index, label, file: file, line: line)
            XCTAssertNil(category.categoryName, label, file: file, line: line)
            let score = Double(abs(category.score - expectedCategory.score))
            XCTAssertLessThanOrEqual(score, 1e-4, "\(label): score \(category.score) vs \(expectedCategory.score)", file: file, line: line)
            let keypoints = ours.keypoints ?? []
            XCTAssertEqual(keypoints.count, theirs.keypoints.count, label, file: file, line: line)
            var keypoint = 0.0
            for (k, e) in zip(keypoints, theirs.keypoints) {
                keypoint = max(keypoint, abs(Double(k.location.x) - Double(e.x)), abs(Double(k.location.y) - Double(e.y)))
            }
            XCTAssertLessThanOrEqual(keypoint, 0.002, "\(label): keypoints", file: file, line: line)
            worst = pointwiseMax(worst, SIMD3(1 - overlap, keypoint, score))
        }
        return worst
    }

    static func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    func testImageModeMatchesMediaPipe() throws {
        XCTAssertEqual(Self.file.mediapipeVersion, "1.2.3")
        var report: [String] = []
        for set in ["short", "short-options", "full"] {
            let entries = Self.entries(set)
            XCTAssertGreaterThan(entries.count, 10, set)
            var worst = SIMD3<Double>(0, 0, 0), faces = 0
            for entry in entries {
                let detector = try Self.detector(entry.model, entry.options)
                let image = try Self.image(entry.image)
                XCTAssertEqual([image.width, image.height], [entry.width, entry.height], entry.image)
                worst = pointwiseMax(worst, Self.compare(try detector.detect(image: image), entry.result, "\(set) \(entry.image)"))
                faces += entry.result.detections.count
            }
            report.append("\(set): \(entries.count) photos, \(faces) faces, worst 1 − IoU \(worst.x), keypoint \(worst.y), score \(worst.z)")
        }
        print("face detector against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
    }

    /// Video mode and live stream on the clip's first frames, both models: each frame's answer is image mode's, as
    /// MediaPipe's.
    func testVideoAndLiveStreamMatchMediaPipe() throws {
        for set in ["video", "video-full"] {
            let entries = Self.entries(set)
            XCTAssertGreaterThanOrEqual(entries.count, 30, set)
            let frames = try videoFrames("face_head_turning.mp4", count: entries.count)
            let video = try Self.detector(entries[0].model, mode: .video)
            var worst = SIMD3<Double>(0, 0, 0)
            for (entry, frame) in zip(entries, frames) {
                XCTAssertEqual(frame.timestamp, entry.timestampMs, entry.image)
                let result = try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
                XCTAssertEqual(result.timestampInMilliseconds, frame.timestamp)
                worst = pointwiseMax(worst, Self.compare(result, entry.result, "\(set) \(entry.image)"))
            }
            let answers = LiveStreamAnswers<FaceDetectorResult>()
            let delegate = Delegate(answers)
            let live = try Self.detector(entries[0].model, mode: .liveStream, delegate: delegate)
            let results = try answers.feed(frames) { try live.detectAsync(image: $0, timestampInMilliseconds: $1) }
            for (entry, frame) in zip(entries, frames) {
                let result = try XCTUnwrap(results[frame.timestamp], entry.image)
                Self.compare(result, entry.result, "\(set), live stream, \(entry.image)")
            }
            print("face detector (\(entries[0].model)), video mode and live stream against MediaPipe 1.2.3 (\(entries.count) frames): worst 1 − IoU \(worst.x), keypoint \(worst.y), score \(worst.z)")
        }
    }

    final class Delegate: FaceDetectorLiveStreamDelegate, @unchecked Sendable {
        let answers: LiveStreamAnswers<FaceDetectorResult>
        init(_ answers: LiveStreamAnswers<FaceDetectorResult>) { self.answers = answers }
        func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?, timestampInMilliseconds: Int, error: (any Error)?) {
            answers.finished(result, timestamp: timestampInMilliseconds, error: error)
        }
        func faceDetector(_ faceDetector: FaceDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answers.dropped(timestamp: timestamp)
        }
    }

    /// `numpy.rot90(upright, k)` with MediaPipe's `rotation_degrees` 90k: results in the turned buffer's frame.
    func testTurnedBuffersMatchMediaPipe() throws {
        let entries = Self.entries("rotated")
        XCTAssertGreaterThan(entries.count, 4)
        for entry in entries {
            let upright = try Self.image(entry.image)
            let k = try XCTUnwrap(entry.rot90k), degrees = try XCTUnwrap(entry.rotationDegrees)
            let pixels = TurnedPixels.rot90(upright.rgbPixels(), width: upright.width, height: upright.height, k)
            let orientation = try XCTUnwrap(ImageOrientation(rotationDegrees: degrees))
            let turned = try MPImage(pixels: pixels.pixels, width: pixels.width, height: pixels.height, format: .rgb8, orientation: orientation)
            XCTAssertEqual([turned.width, turned.height], [entry.width, entry.height])
            Self.compare(try Self.detector(entry.model).detect(image: turned), entry.result, "\(entry.image) rot90 k=\(k)")
        }
    }

    /// JPEGs tagged with EXIF orientations 1–8, shown turned as MediaPipe 1.2.3's `create_from_file` shows them.
    func testExifTaggedFilesMatchMediaPipe() throws {
        let entries = Self.entries("exif")
        XCTAssertEqual(Set(entries.compactMap(\.exifOrientation)), Set(1...8))
        let detector = try Self.detector(entries[0].model)
        for entry in entries {
            let original = [UInt8](try Data(contentsOf: Repository.shared.appendingPathComponent("images/\(entry.image)")))
            var segment: [UInt8] = []
            var hex = Substring(try XCTUnwrap(entry.exifSegmentHex))
            while hex.count >= 2 { segment.append(try XCTUnwrap(UInt8(hex.prefix(2), radix: 16))); hex = hex.dropFirst(2) }
            let image = try MPImage(encoded: Array(original.prefix(2)) + segment + Array(original.dropFirst(2)))
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height], entry.image)
            Self.compare(try detector.detect(image: image), entry.result, "\(entry.image) EXIF \(entry.exifOrientation ?? 0)")
        }
    }

    func testResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let images = try ["face_landmark_ex1.jpg", "multi1.jpg", "pose3.jpg"].map(Self.image)
        for model in ["face_detection_short_range.tflite", "face_detection_full_range_sparse.tflite"] {
            let one = try Self.detector(model, threads: 1)
            let expected = try images.map { try one.detect(image: $0) }
            XCTAssertGreaterThan(expected.map(\.detections.count).reduce(0, +), 0, model)
            for threads in [2, 3] {
                let other = try Self.detector(model, threads: threads)
                XCTAssertEqual(try images.map { try other.detect(image: $0) }, expected, "\(model) at \(threads) threads")
            }
        }
    }

    func testBadOptionsAndWrongModelsAreTypedErrors() throws {
        for (confidence, suppression) in [(Float(1.5), Float(0.3)), (-0.1, 0.3), (.nan, 0.3), (0.5, 2), (0.5, .infinity)] {
            XCTAssertThrowsError(try Self.detector("face_detection_short_range.tflite", Options(minDetectionConfidence: confidence, minSuppressionThreshold: suppression))) {
                guard case .invalidOption = $0 as? VisionTaskError else { return XCTFail("\(confidence), \(suppression): \($0)") }
            }
        }
        for model in ["ssd_mobilenet_v1.tflite", "pose_landmarker_lite.task", "selfie_segmentation.tflite"] {
            XCTAssertThrowsError(try Self.detector(model)) {
                guard case .wrongModel = $0 as? VisionTaskError else { return XCTFail("\(model): \($0)") }
            }
        }
    }
}
