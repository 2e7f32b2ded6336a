import Foundation
import VisionTasks
import VisionTasksModelFormat
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// MediaPipe 1.2.3's segmentation masks (`.cache/mediapipe-goldens/segmenter`, made by
/// tools/mediapipe_segmenter_goldens.py, which records 0.10.14's spread from 1.2.3 beside each case), read by the
/// Image and Interactive Segmenter reference tests.
enum SegmenterGoldens {
    struct Options: Decodable { let outputConfidenceMasks: Bool; let outputCategoryMask: Bool }
    struct Region: Decodable { let format: String; let keypoint: [Double]?; let scribble: [[Double]]? }
    struct Spread: Decodable { let confidenceMaxAbs: [Double]?; let confidenceMeanAbs: [Double]?; let categoryEqualFraction: Double? }
    struct Case: Decodable {
        let id: String
        let file: String
        let task: String
        let model: String
        let runningMode: String
        let image: String
        let width: Int
        let height: Int
        let timestampMs: Int?
        let options: Options
        let rot90k: Int?
        let rotationDegrees: Int?
        let exifOrientation: Int?
        let exifSegmentHex: String?
        let regionOfInterest: Region?
        let labels: [String]?
        let qualityScores: [Float]?
        let spread_0_10_14: Spread?
    }
    struct Index: Decodable { let mediapipeVersion: String; let secondVersion: String?; let cases: [Case] }

    /// The masks as this machine's MediaPipe makes them. On arm64, MediaPipe 1.2.3's there (`tools/arm64 goldens
    /// --all`): the clip's frames come from that machine's ffmpeg, and MediaPipe's masks follow them (by up to 0.2
    /// at the hair's edges on the clip's first frames, against its x86 masks).
    static let directory: URL = {
        #if arch(arm64)
        return Repository.goldens("mediapipe-goldens/segmenter")
        #else
        return hostDirectory
        #endif
    }()

    /// The x86 host's: also where tools/litert_segmenter_spread.py keeps LiteRT's own spread of the hair model, a
    /// property of the model the arm64 tests take as it is.
    static let hostDirectory = Repository.root.appendingPathComponent(".cache/mediapipe-goldens/segmenter")

    /// The index; a missing one fails (as the LiteRT goldens do) with how to make it.
    static func index() throws -> Index {
        let url = directory.appendingPathComponent("index.json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("no segmenter goldens in \(directory.path): run .cache/mediapipe-1.2.3/bin/python tools/mediapipe_segmenter_goldens.py")
            // An error, not a skip: the test has failed, and stops here.
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return try JSONDecoder().decode(Index.self, from: Data(contentsOf: url))
    }

    /// MediaPipe's masks of one case: confidence masks as float arrays and the category mask's bytes.
    static func masks(_ entry: Case) throws -> (confidence: [[Float]]?, category: [UInt8]?) {
        let archive = try TaskBundle(path: directory.appendingPathComponent(entry.file).path)
        var confidence: [[Float]]?, category: [UInt8]?
        for member in archive.members {
            let array = try NumPyArray(npy: member.bytes)
            switch member.path {
            case "confidence_masks.npy":
                let count = array.shape[1] * array.shape[2], values = array.floats
                confidence = (0..<array.shape[0]).map { Array(values[($0 * count)..<(($0 + 1) * count)]) }
            case "category_mask.npy":
                category = array.bytes
            default: continue
            }
        }
        return (confidence, category)
    }

    /// The image a case hands MediaPipe, rebuilt: a photo, a turned buffer with its orientation, or an EXIF-tagged file.
    static func image(_ entry: Case) throws -> MPImage {
        let path = Repository.shared.appendingPathComponent("images/\(entry.image)")
        if let hex = entry.exifSegmentHex {
            let original = [UInt8](try Data(contentsOf: path))
            var segment: [UInt8] = [], rest = Substring(hex)
            while rest.count >= 2 { segment.append(try XCTUnwrap(UInt8(rest.prefix(2), radix: 16))); rest = rest.dropFirst(2) }
            return try MPImage(encoded: Array(original.prefix(2)) + segment + Array(original.dropFirst(2)))
        }
        let upright = try MPImage(contentsOfFile: path.path)
        guard let k = entry.rot90k, let degrees = entry.rotationDegrees else { return upright }
        let turned = TurnedPixels.rot90(upright.rgbPixels(), width: upright.width, height: upright.height, k)
        return try MPImage(pixels: turned.pixels, width: turned.width, height: turned.height, format: .rgb8,
                           orientation: try XCTUnwrap(ImageOrientation(rotationDegrees: degrees)))
    }

    /// The worst differences of one result from MediaPipe's masks: (mean |Δ|, max |Δ|) over the confidence masks and
    /// the category masks' equal fraction; asserts the bounds (mean ≤ 1e-3, max ≤ 0.02, ≥ 99.9 % equal).
    @discardableResult
    static func compare(_ result: ImageSegmenterResult, _ entry: Case, _ label: String, checksMaximum: Bool = true,
                        maximum: Double = 0.02, file: StaticString = #filePath, line: UInt = #line) throws -> (mean: Double, max: Double, equal: Double) {
        let expected = try masks(entry)
        var worst = (mean: 0.0, max: 0.0, equal: 1.0)
        XCTAssertEqual(result.confidenceMasks?.count, expected.confidence?.count, "\(label): confidence masks", file: file, line: line)
        for (mask, theirs) in zip(result.confidenceMasks ?? [], expected.confidence ?? []) {
            XCTAssertEqual([mask.width, mask.height], [entry.width, entry.height], label, file: file, line: line)
            XCTAssertEqual(mask.dataType, .float32, label, file: file, line: line)
            let ours = mask.float32Values
            guard ours.count == theirs.count else { XCTFail("\(label): \(ours.count) values, MediaPipe \(theirs.count)", file: file, line: line); continue }
            var sum = 0.0, largest = 0.0
            for (a, b) in zip(ours, theirs) {
                let d = abs(Double(a) - Double(b))
                sum += d
                largest = max(largest, d)
            }
            let mean = sum / Double(max(ours.count, 1))
            XCTAssertLessThanOrEqual(mean, 1e-3, "\(label): mean |Δ|", file: file, line: line)
            if checksMaximum { XCTAssertLessThanOrEqual(largest, maximum, "\(label): max |Δ|", file: file, line: line) }
            worst = (max(worst.mean, mean), max(worst.max, largest), worst.equal)
        }
        XCTAssertEqual(result.categoryMask == nil, expected.category == nil, "\(label): category mask", file: file, line: line)
        if let mask = result.categoryMask, let theirs = expected.category {
            XCTAssertEqual([mask.width, mask.height], [entry.width, entry.height], label, file: file, line: line)
            XCTAssertEqual(mask.dataType, .uInt8, label, file: file, line: line)
            let ours = mask.uint8Values
            if ours.count == theirs.count {
                let equal = Double(zip(ours, theirs).filter { $0 == $1 }.count) / Double(max(ours.count, 1))
                XCTAssertGreaterThanOrEqual(equal, 0.999, "\(label): category agreement", file: file, line: line)
                worst.equal = min(worst.equal, equal)
            } else {
                XCTFail("\(label): \(ours.count) category values, MediaPipe \(theirs.count)", file: file, line: line)
            }
        }
        if let scores = entry.qualityScores {
            XCTAssertEqual(result.qualityScores, scores, "\(label): quality scores", file: file, line: line)
        }
        return worst
    }

    static func line(_ label: String, _ worst: (mean: Double, max: Double, equal: Double), _ entry: Case) -> String {
        let spread = entry.spread_0_10_14
        let versions = spread.map { s in
            String(format: "; 0.10.14 vs 1.2.3: max %.2g, category %.5f", s.confidenceMaxAbs?.max() ?? 0, s.categoryEqualFraction ?? 1)
        } ?? ""
        return String(format: "%@: mean |Δ| %.2g, max |Δ| %.2g, category equal %.5f", label, worst.mean, worst.max, worst.equal) + versions
    }
}

/// The Image Segmenter against MediaPipe 1.2.3 (``SegmenterGoldens``): the selfie models (square and landscape) and
/// the hair model on photos, three frames of a clip in video mode and in live stream, a turned buffer per
/// preprocessing path, an EXIF-tagged file and a category-only case — confidence masks within mean |Δ| 1e-3 and max
/// 0.02, category masks ≥ 99.9 % equal (the bounds), labels and quality scores equal.
final class ImageSegmenterReferenceTests: XCTestCase {
    static func segmenter(_ model: String, confidence: Bool = true, category: Bool = true, mode: RunningMode = .image,
                          threads: Int? = nil, delegate: (any ImageSegmenterLiveStreamDelegate)? = nil) throws -> ImageSegmenter {
        let options = ImageSegmenterOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(model)
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.shouldOutputConfidenceMasks = confidence
        options.shouldOutputCategoryMask = category
        options.imageSegmenterLiveStreamDelegate = delegate
        return try ImageSegmenter(options: options)
    }

    static func cases(_ filter: (SegmenterGoldens.Case) -> Bool) throws -> [SegmenterGoldens.Case] {
        let index = try SegmenterGoldens.index()
        XCTAssertEqual(index.mediapipeVersion, "1.2.3")
        return index.cases.filter { $0.task == "imageSegmenter" && filter($0) }
    }

    /// Photos, turned buffers, the EXIF file and the category-only case, in image mode. The hair model's photos have
    /// their largest difference checked in ``testHairModelLargestDifferenceOnPhotos()``, apart.
    func testImageModeMatchesMediaPipe() throws {
        let entries = try Self.cases { $0.runningMode == "IMAGE" }
        XCTAssertGreaterThanOrEqual(entries.count, 16)
        var report: [String] = []
        for entry in entries {
            let segmenter = try Self.segmenter(entry.model, confidence: entry.options.outputConfidenceMasks,
                                               category: entry.options.outputCategoryMask)
            if let labels = entry.labels { XCTAssertEqual(segmenter.labels, labels, entry.id) }
            let image = try SegmenterGoldens.image(entry)
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height], entry.id)
            let worst = try SegmenterGoldens.compare(try segmenter.segment(image: image), entry, entry.id,
                                                     checksMaximum: entry.model != "hair_segmentation.tflite")
            report.append(SegmenterGoldens.line(entry.id, worst, entry))
        }
        print("image segmenter against MediaPipe 1.2.3, image mode:\n" + report.joined(separator: "\n"))
    }

    /// The hair model's largest difference from MediaPipe on the photos: the 0.02, or, where LiteRT itself
    /// moves this model's mask farther when its input moves by a last bit, that (tools/litert_segmenter_spread.py,
    /// written beside the goldens). The model's MaxPoolingWithArgmax2D puts each pooled value back where the first of
    /// near-equal maxima was, so a last-bit difference in the layers before it moves a value to another pixel:
    /// `hand_two_palms.png` is 0.027 from MediaPipe (40 pixels above 0.01, one blob; mean |Δ| 8e-6, categories
    /// equal), where LiteRT against itself under ±1e-6 input noise moves 0.070. Our input is OpenCV's byte for byte
    /// (checked on this image); our convolutions are within LiteRT's tolerance, not bit-identical.
    func testHairModelLargestDifferenceOnPhotos() throws {
        let entries = try Self.cases { $0.runningMode == "IMAGE" && $0.model == "hair_segmentation.tflite" }
        XCTAssertGreaterThanOrEqual(entries.count, 4)
        struct Spread: Decodable { let largestMaskDifference: [String: Double] }
        let url = SegmenterGoldens.hostDirectory.appendingPathComponent("litert_hair_spread.json")
        guard let data = try? Data(contentsOf: url) else {
            return XCTFail("no \(url.path): run .cache/venv/bin/python tools/litert_segmenter_spread.py (tools/run-tests does)")
        }
        let spread = try JSONDecoder().decode(Spread.self, from: data).largestMaskDifference
        for entry in entries {
            let segmenter = try Self.segmenter(entry.model)
            let bound = max(0.02, spread[entry.image] ?? 0)
            let worst = try SegmenterGoldens.compare(try segmenter.segment(image: try SegmenterGoldens.image(entry)), entry, entry.id, maximum: bound)
            print(String(format: "hair %@: max |Δ| %.4f against %.4f (LiteRT's own last-bit spread: %@)", entry.id, worst.max, bound,
                         spread[entry.image].map { String(format: "%.4f", $0) } ?? "not measured"))
        }
    }

    /// The clip's first frames in video mode and in live stream, each against MediaPipe's video-mode masks.
    func testVideoAndLiveStreamMatchMediaPipe() throws {
        let all = try Self.cases { $0.runningMode == "VIDEO" }
        var report: [String] = []
        for model in Set(all.map(\.model)).sorted() {
            let entries = all.filter { $0.model == model }.sorted { ($0.timestampMs ?? 0) < ($1.timestampMs ?? 0) }
            XCTAssertEqual(entries.count, 3, model)
            let frames = try videoFrames("face_head_turning.mp4", count: entries.count)
            let video = try Self.segmenter(model, mode: .video)
            for (entry, frame) in zip(entries, frames) {
                XCTAssertEqual(frame.timestamp, entry.timestampMs, entry.id)
                let result = try video.segment(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
                XCTAssertEqual(result.timestampInMilliseconds, frame.timestamp)
                report.append(SegmenterGoldens.line("video " + entry.id, try SegmenterGoldens.compare(result, entry, entry.id), entry))
            }
            let answers = LiveStreamAnswers<ImageSegmenterResult>()
            let delegate = Delegate(answers)
            let live = try Self.segmenter(model, mode: .liveStream, delegate: delegate)
            let results = try answers.feed(frames) { try live.segmentAsync(image: $0, timestampInMilliseconds: $1) }
            for (entry, frame) in zip(entries, frames) {
                let result = try XCTUnwrap(results[frame.timestamp], entry.id)
                XCTAssertEqual(result.timestampInMilliseconds, frame.timestamp)
                report.append(SegmenterGoldens.line("live " + entry.id, try SegmenterGoldens.compare(result, entry, "live stream \(entry.id)"), entry))
            }
        }
        print("image segmenter against MediaPipe 1.2.3, video and live stream:\n" + report.joined(separator: "\n"))
    }

    final class Delegate: ImageSegmenterLiveStreamDelegate, @unchecked Sendable {
        let answers: LiveStreamAnswers<ImageSegmenterResult>
        init(_ answers: LiveStreamAnswers<ImageSegmenterResult>) { self.answers = answers }
        func imageSegmenter(_ imageSegmenter: ImageSegmenter, didFinishSegmentation result: ImageSegmenterResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            answers.finished(result, timestamp: timestampInMilliseconds, error: error)
        }
        func imageSegmenter(_ imageSegmenter: ImageSegmenter, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answers.dropped(timestamp: timestamp)
        }
    }

    /// The `completion:` forms hand over the same result as the throwing ones, and errors as errors.
    func testCompletionFormsGiveTheSameResult() throws {
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/pose1.jpg").path)
        let segmenter = try Self.segmenter("selfie_segmentation.tflite")
        let expected = try segmenter.segment(image: image)
        var called = 0
        segmenter.segment(image: image) { result, error in
            called += 1
            XCTAssertNil(error)
            XCTAssertEqual(result, expected)
        }
        segmenter.segment(videoFrame: image, timestampInMilliseconds: 0) { result, error in
            called += 1
            XCTAssertNil(result)
            guard case .wrongRunningMode = error as? VisionTaskError else { return XCTFail("\(String(describing: error))") }
        }
        XCTAssertEqual(called, 2)
    }

    func testResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let images = try ["pose1.jpg", "multi1.jpg"].map { try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\($0)").path) }
        for model in ["selfie_segmentation.tflite", "selfie_segmentation_landscape.tflite", "hair_segmentation.tflite"] {
            let expected = try images.map { try Self.segmenter(model, threads: 1).segment(image: $0) }
            for threads in [2, 3] {
                let other = try Self.segmenter(model, threads: threads)
                XCTAssertEqual(try images.map { try other.segment(image: $0) }, expected, "\(model) at \(threads) threads")
            }
        }
    }

    /// Degenerate sizes (one pixel, one row, one column) give masks of the image's size, with no trap: MediaPipe's
    /// category-mask interpolation divides by `size − 1`, which is 0 there.
    func testOnePixelAndOneRowImagesGiveMasksOfTheirSize() throws {
        for model in ["selfie_segmentation.tflite", "hair_segmentation.tflite"] {
            let segmenter = try Self.segmenter(model)
            for (width, height) in [(1, 1), (1, 7), (9, 1), (2, 2), (600, 1)] {
                let image = try MPImage(pixels: [UInt8](repeating: 128, count: width * height * 4), width: width, height: height, format: .rgba8)
                let result = try segmenter.segment(image: image)
                for mask in (result.confidenceMasks ?? []) + [result.categoryMask].compactMap({ $0 }) {
                    XCTAssertEqual([mask.width, mask.height], [width, height], "\(model) \(width)×\(height)")
                    XCTAssertTrue(mask.float32Values.allSatisfy(\.isFinite), "\(model) \(width)×\(height)")
                }
            }
        }
    }

    func testBadOptionsAndWrongModelsAreTypedErrors() throws {
        XCTAssertThrowsError(try Self.segmenter("selfie_segmentation.tflite", confidence: false, category: false)) {
            guard case .invalidOption = $0 as? VisionTaskError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try Self.segmenter("selfie_segmentation.tflite", mode: .liveStream)) {
            guard case .missingLiveStreamDelegate = $0 as? VisionTaskError else { return XCTFail("\($0)") }
        }
        // MediaPipe 1.2.3 refuses an RGB image for a four-channel model whose fourth channel is the image's alpha.
        let rgb = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/pose1.jpg").path)
        XCTAssertThrowsError(try Self.segmenter("interactive_segmenter_standin.tflite").segment(image: rgb)) {
            guard case .processingFailed = $0 as? VisionTaskError else { return XCTFail("\($0)") }
        }
        for model in ["face_detection_short_range.tflite", "ssd_mobilenet_v1.tflite", "pose_landmarker_lite.task",
                      "efficientnet_lite0.tflite"] where FileManager.default.fileExists(atPath: Repository.modelPath(model)) {
            XCTAssertThrowsError(try Self.segmenter(model)) {
                guard case .wrongModel = $0 as? VisionTaskError else { return XCTFail("\(model): \($0)") }
            }
        }
    }
}
