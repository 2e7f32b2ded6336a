import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// MediaPipe's default object detector, EfficientDet-Lite0 (raw boxes and scores decoded with its DETECTOR_METADATA,
/// then MediaPipe's non-maximum suppression), against MediaPipe 1.2.3 (Tests/Fixtures/efficientdet_reference.json.zip,
/// made by tools/mediapipe_efficientdet_goldens.py): every detection in MediaPipe's order, boxes equal as integers,
/// scores equal as float32, names — with its defaults (every surviving box: 1,300–2,500 a photo), a top 5, allow and
/// deny lists, a low threshold; video mode and live stream on a clip; turned buffers; EXIF-tagged files.
final class EfficientDetReferenceTests: XCTestCase {
    struct Options: Decodable {
        let maxResults: Int?
        let scoreThreshold: Float?
        let categoryAllowlist: [String]?
        let categoryDenylist: [String]?
    }
    struct Result: Decodable { let detections: [[JSONValue]] }
    enum JSONValue: Decodable, Equatable {
        case number(Double), string(String), null
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null } else if let d = try? c.decode(Double.self) { self = .number(d) } else { self = .string(try c.decode(String.self)) }
        }
    }
    struct Entry: Decodable {
        let set: String
        let image: String
        let width: Int
        let height: Int
        let timestampMs: Int?
        let options: Options
        let rotationDegrees: Int?
        let rot90k: Int?
        let exifOrientation: Int?
        let exifSegmentHex: String?
        let result: Result
    }
    struct File: Decodable { let entries: [Entry] }

    static let file: File = {
        let data = try! Repository.fixtureJSON("efficientdet_reference.json")
        return try! JSONDecoder().decode(File.self, from: data)
    }()

    static func detector(_ options: Options, mode: RunningMode = .image, delegate: (any ObjectDetectorLiveStreamDelegate)? = nil) throws -> ObjectDetector {
        let settings = ObjectDetectorOptions()
        settings.baseOptions.modelAssetPath = Repository.modelPath("efficientdet_lite0.tflite")
        settings.runningMode = mode
        settings.objectDetectorLiveStreamDelegate = delegate
        if let v = options.maxResults { settings.maxResults = v }
        if let v = options.scoreThreshold { settings.scoreThreshold = v }
        if let v = options.categoryAllowlist { settings.categoryAllowlist = v }
        if let v = options.categoryDenylist { settings.categoryDenylist = v }
        return try ObjectDetector(options: settings)
    }

    /// Our detections as the fixture's rows: box, then (index, score, name, display name) per category.
    static func rows(_ result: ObjectDetectorResult) -> [[JSONValue]] {
        result.detections.map { d in
            let box = d.boundingBox
            return [Double(box.minX), Double(box.minY), Double(box.width), Double(box.height)].map(JSONValue.number)
                + d.categories.flatMap { c -> [JSONValue] in
                    [c.index < 0 ? .null : .number(Double(c.index)), .number(Double(c.score)),
                     c.categoryName.map(JSONValue.string) ?? .null, c.displayName.map(JSONValue.string) ?? .null]
                }
        }
    }

    /// Row for row; on a difference, where and how many.
    static func compare(_ result: ObjectDetectorResult, _ entry: Entry, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let ours = rows(result), theirs = entry.result.detections
        guard ours != theirs else { return }
        let first = (0..<min(ours.count, theirs.count)).first { ours[$0] != theirs[$0] } ?? min(ours.count, theirs.count)
        XCTFail("\(label): \(ours.count) detections, MediaPipe \(theirs.count); first difference at row \(first): ours \(first < ours.count ? "\(ours[first])" : "none"), MediaPipe's \(first < theirs.count ? "\(theirs[first])" : "none")", file: file, line: line)
    }

    static func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    func testImageModeMatchesMediaPipe() throws {
        var counts: [String: Int] = [:]
        for entry in Self.file.entries where ["default", "top5", "allow", "deny", "low"].contains(entry.set) {
            let image = try Self.image(entry.image)
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height], entry.image)
            Self.compare(try Self.detector(entry.options).detect(image: image), entry, "\(entry.set) \(entry.image)")
            counts[entry.set, default: 0] += entry.result.detections.count
        }
        XCTAssertEqual(counts.count, 5)
        print("EfficientDet-Lite0 against MediaPipe 1.2.3, detections compared per option set: \(counts.sorted { $0.key < $1.key })")
    }

    func testVideoAndLiveStreamMatchMediaPipe() throws {
        let entries = Self.file.entries.filter { $0.set == "video" }
        XCTAssertGreaterThanOrEqual(entries.count, 30)
        let frames = try videoFrames("outdoor_person_dog_sam2.mp4", count: entries.count)
        let video = try Self.detector(entries[0].options, mode: .video)
        for (entry, frame) in zip(entries, frames) {
            XCTAssertEqual(frame.timestamp, entry.timestampMs)
            Self.compare(try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp), entry, entry.image)
        }
        let answers = LiveStreamAnswers<ObjectDetectorResult>()
        let delegate = Delegate(answers)
        let live = try Self.detector(entries[0].options, mode: .liveStream, delegate: delegate)
        let results = try answers.feed(Array(frames.prefix(10))) { try live.detectAsync(image: $0, timestampInMilliseconds: $1) }
        for (entry, frame) in zip(entries, frames.prefix(10)) {
            Self.compare(try XCTUnwrap(results[frame.timestamp]), entry, "live stream \(entry.image)")
        }
    }

    final class Delegate: ObjectDetectorLiveStreamDelegate, @unchecked Sendable {
        let answers: LiveStreamAnswers<ObjectDetectorResult>
        init(_ answers: LiveStreamAnswers<ObjectDetectorResult>) { self.answers = answers }
        func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?, timestampInMilliseconds: Int, error: (any Error)?) {
            answers.finished(result, timestamp: timestampInMilliseconds, error: error)
        }
        func objectDetector(_ objectDetector: ObjectDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answers.dropped(timestamp: timestamp)
        }
    }

    func testTurnedBuffersAndExifFilesMatchMediaPipe() throws {
        for entry in Self.file.entries where entry.set == "rotated" {
            let upright = try Self.image(entry.image)
            let k = try XCTUnwrap(entry.rot90k)
            let pixels = TurnedPixels.rot90(upright.rgbPixels(), width: upright.width, height: upright.height, k)
            let orientation = try XCTUnwrap(ImageOrientation(rotationDegrees: try XCTUnwrap(entry.rotationDegrees)))
            let turned = try MPImage(pixels: pixels.pixels, width: pixels.width, height: pixels.height, format: .rgb8, orientation: orientation)
            Self.compare(try Self.detector(entry.options).detect(image: turned), entry, "\(entry.image) rot90 k=\(k)")
        }
        for entry in Self.file.entries where entry.set == "exif" {
            let original = [UInt8](try Data(contentsOf: Repository.shared.appendingPathComponent("images/\(entry.image)")))
            var segment: [UInt8] = []
            var hex = Substring(try XCTUnwrap(entry.exifSegmentHex))
            while hex.count >= 2 { segment.append(try XCTUnwrap(UInt8(hex.prefix(2), radix: 16))); hex = hex.dropFirst(2) }
            let image = try MPImage(encoded: Array(original.prefix(2)) + segment + Array(original.dropFirst(2)))
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height])
            Self.compare(try Self.detector(entry.options).detect(image: image), entry, "\(entry.image) EXIF \(entry.exifOrientation ?? 0)")
        }
    }
}
