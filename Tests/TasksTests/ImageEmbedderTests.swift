import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import VisionTasks
import VisionTasksModelMutation
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// The Image Embedder against MediaPipe 1.2.3 (tools/mediapipe_embedder_goldens.py,
/// Tests/Fixtures/image_embedder_reference.json; 0.10.14's results beside them): embeddings of six photos with and
/// without `l2Normalize` and `quantize`, regions of interest, a turned buffer, an EXIF-tagged file and video frames,
/// within the bounds (float values ≤ 1e-4, quantized ±1, cosine similarities ≤ 1e-4); MediaPipe's cosine
/// refusals as typed errors; bit-identical results at 1, 2 and 3 threads; bad models as typed errors.
final class ImageEmbedderTests: XCTestCase {
    struct Region: Decodable { let left: Double, top: Double, right: Double, bottom: Double }
    struct Options: Decodable { let l2Normalize: Bool, quantize: Bool }
    struct ReferenceEmbedding: Decodable {
        let headIndex: Int, headName: String, length: Int
        let floatEmbedding: String?, quantizedEmbedding: String?

        /// Little-endian float32s.
        var floats: [Float]? {
            guard let text = floatEmbedding, let data = Data(base64Encoded: text) else { return nil }
            let bytes = [UInt8](data)
            return stride(from: 0, to: bytes.count - 3, by: 4).map { (i: Int) -> Float in
                var bits = UInt32(bytes[i + 3])
                for k in [2, 1, 0] { bits = bits << 8 | UInt32(bytes[i + k]) }
                return Float(bitPattern: bits)
            }
        }
        var bytes: [Int8]? { quantizedEmbedding.flatMap { Data(base64Encoded: $0) }.map { $0.map { Int8(bitPattern: $0) } } }
        var embedding: Embedding { Embedding(floatValues: floats, quantizedValues: bytes, headIndex: headIndex, headName: headName) }
    }
    struct Result: Decodable { let embeddings: [ReferenceEmbedding] }
    /// 0.10.14's result: "same" where it is byte-identical to 1.2.3's.
    enum OtherResult: Decodable {
        case same, different(Result)
        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self), text == "same" { self = .same; return }
            self = .different(try Result(from: decoder))
        }
    }
    struct Entry: Decodable {
        let id: String, set: String, image: String, options: Options, runningMode: String, width: Int, height: Int
        let timestampMs: Int?
        let regionOfInterest: Region?, rot90k: Int?, rotationDegrees: Int?, exifSegmentHex: String?
        let result: Result
        let result_0_10_14: OtherResult
    }
    struct Similarity: Decodable {
        let a: String, b: String, value: Double?, error: String?, value_0_10_14: Double?, error_0_10_14: String?
    }
    struct Spread: Decodable { let maxAbsFloat: Double, maxAbsQuantized: Int, maxAbsSimilarity: Double }
    struct File: Decodable {
        let model: String, mediapipeVersion: String, result_0_10_14: String, spread: Spread
        let entries: [Entry], similarities: [Similarity]
    }

    static func reference() throws -> File {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("image_embedder_reference.json")))
    }

    static let model = "efficientnet_lite0_embedder.tflite"
    static var modelPath: String { Repository.shared.appendingPathComponent("models/\(model)").path }

    static func embedder(_ options: Options, mode: RunningMode = .image, threads: Int? = nil,
                         delegate: (any ImageEmbedderLiveStreamDelegate)? = nil) throws -> ImageEmbedder {
        let embedderOptions = ImageEmbedderOptions()
        embedderOptions.baseOptions.modelAssetPath = modelPath
        embedderOptions.baseOptions.numThreads = threads
        embedderOptions.runningMode = mode
        embedderOptions.l2Normalize = options.l2Normalize
        embedderOptions.quantize = options.quantize
        embedderOptions.imageEmbedderLiveStreamDelegate = delegate
        return try ImageEmbedder(options: embedderOptions)
    }

    static func photo(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    /// The input an image-mode entry was made from, as the tool rebuilt it; and its region of interest.
    static func input(_ entry: Entry) throws -> (image: MPImage, roi: CGRect?) {
        var image = try photo(entry.image)
        if let k = entry.rot90k, let degrees = entry.rotationDegrees {
            let turned = TurnedPixels.rot90(image.rgbPixels(), width: image.width, height: image.height, k)
            image = try MPImage(pixels: turned.pixels, width: turned.width, height: turned.height, format: .rgb8,
                                orientation: try XCTUnwrap(ImageOrientation(rotationDegrees: degrees)))
        }
        if let hex = entry.exifSegmentHex {
            let original = [UInt8](try Data(contentsOf: Repository.shared.appendingPathComponent("images/\(entry.image)")))
            var segment: [UInt8] = [], rest = Substring(hex)
            while rest.count >= 2 { segment.append(UInt8(rest.prefix(2), radix: 16)!); rest = rest.dropFirst(2) }
            image = try MPImage(encoded: Array(original.prefix(2)) + segment + Array(original.dropFirst(2)))
        }
        XCTAssertEqual([image.width, image.height], [entry.width, entry.height], entry.id)
        let roi = entry.regionOfInterest.map { CGRect(x: $0.left, y: $0.top, width: $0.right - $0.left, height: $0.bottom - $0.top) }
        return (image, roi)
    }

    /// The clip's frames the video entries were made from, in order, with their timestamps.
    static func frames(_ entries: [Entry]) throws -> [(image: MPImage, timestamp: Int)] {
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/face_head_turning.mp4").path)
        return try entries.map { entry in
            let frame = try XCTUnwrap(try video.nextFrame(), "the clip ended before \(entry.image)")
            XCTAssertEqual(frame.label, entry.image)
            XCTAssertEqual(frame.timestampMs, entry.timestampMs)
            return (frame.image, frame.timestampMs)
        }
    }

    /// Our embeddings of every entry, by id.
    static func ours(_ file: File, threads: Int? = nil) throws -> [String: ImageEmbedderResult] {
        var results: [String: ImageEmbedderResult] = [:]
        var embedders: [String: ImageEmbedder] = [:]
        for entry in file.entries where entry.runningMode == "IMAGE" {
            let key = "\(entry.options.l2Normalize) \(entry.options.quantize)"
            let task = try embedders[key] ?? embedder(entry.options, threads: threads)
            embedders[key] = task
            let (image, roi) = try input(entry)
            results[entry.id] = try roi.map { try task.embed(image: image, regionOfInterest: $0) } ?? task.embed(image: image)
        }
        let videoEntries = file.entries.filter { $0.runningMode == "VIDEO" }
        if let first = videoEntries.first {
            let task = try embedder(first.options, mode: .video, threads: threads)
            for (entry, frame) in zip(videoEntries, try frames(videoEntries)) {
                XCTAssertEqual(entry.options.l2Normalize, first.options.l2Normalize)
                results[entry.id] = try task.embed(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            }
        }
        return results
    }

    /// Largest |Δ| of float values and of quantized values between two results of the same shape.
    static func difference(_ ours: ImageEmbedderResult, _ theirs: Result, _ label: String) -> (float: Float, quantized: Int) {
        var worst: (float: Float, quantized: Int) = (0, 0)
        let embeddings = ours.embeddingResult.embeddings
        XCTAssertEqual(embeddings.count, theirs.embeddings.count, label)
        for (mine, reference) in zip(embeddings, theirs.embeddings) {
            XCTAssertEqual(mine.headIndex, reference.headIndex, label)
            XCTAssertEqual(mine.headName, reference.headName, label)
            if let floats = reference.floats {
                XCTAssertNil(mine.quantizedValues, label)
                let values = mine.floatValues ?? []
                XCTAssertEqual(values.count, reference.length, label)
                guard values.count == floats.count else { continue }
                worst.float = max(worst.float, zip(values, floats).map { abs($0 - $1) }.max() ?? 0)
            } else if let bytes = reference.bytes {
                XCTAssertNil(mine.floatValues, label)
                let values = mine.quantizedValues ?? []
                XCTAssertEqual(values.count, reference.length, label)
                guard values.count == bytes.count else { continue }
                worst.quantized = max(worst.quantized, zip(values, bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0)
            } else {
                XCTFail("\(label): a reference embedding with neither form")
            }
        }
        return worst
    }

    /// The entries where MediaPipe 1.2.3 and 0.10.14 disagree: the first region of interest alone. Its crop's corners
    /// come from OpenCV's `RotatedRect::points` (`cv::boxPoints`), which the OpenCV in MediaPipe 1.2.3 computes each from
    /// the center (as OpenCV 5's does: `center + a·h + b·w`), where 0.10.14's, and ours (Imaging's `PerspectiveMap`),
    /// mirror the first two through the center (`2·center − p`). The last bits of two corners differ; at rows whose
    /// 1/32-pixel source coordinate is a tie the rounding flips, and the crop differs by 1–2 levels in 665 values
    /// (tools/mediapipe_crop_probe.py reads MediaPipe's crop back through a model whose output is its input tensor, and
    /// redoes it with both corner formulas: each gives one version's crop exactly). On those entries ours equals 0.10.14's bit for bit
    /// and is as far from 1.2.3's as 0.10.14 is (the fixture's "spread"); everywhere else 1.2.3 and 0.10.14 agree.
    static let boxPointsEntries: Set = ["roi/float-l2/coral_cat.png", "roi/quantized-l2/coral_cat.png"]

    func testEmbeddingsMatchMediaPipe() throws {
        let file = try Self.reference()
        XCTAssertEqual(file.mediapipeVersion, "1.2.3")
        XCTAssertEqual(file.model, Self.model)
        XCTAssertEqual(file.entries.count, 35)
        let ours = try Self.ours(file)
        var bySet: [String: (float: Float, quantized: Int, float01014: Float, quantized01014: Int)] = [:]
        var versionsDiffer: Set<String> = []
        for entry in file.entries {
            let result = try XCTUnwrap(ours[entry.id], entry.id)
            XCTAssertEqual(result.timestampInMilliseconds, entry.timestampMs ?? 0, entry.id)
            XCTAssertEqual(result.embeddingResult.timestampInMilliseconds, entry.timestampMs ?? 0, entry.id)
            let delta = Self.difference(result, entry.result, entry.id)
            var other = delta
            if case let .different(result01014) = entry.result_0_10_14 {
                versionsDiffer.insert(entry.id)
                other = Self.difference(result, result01014, entry.id + " (0.10.14)")
            }
            if Self.boxPointsEntries.contains(entry.id) {
                XCTAssertEqual(other.float, 0, "\(entry.id): float values against MediaPipe 0.10.14")
                XCTAssertEqual(other.quantized, 0, "\(entry.id): quantized values against MediaPipe 0.10.14")
            } else {
                XCTAssertLessThanOrEqual(delta.float, 1e-4, "\(entry.id): float values against MediaPipe 1.2.3")
                XCTAssertLessThanOrEqual(delta.quantized, 1, "\(entry.id): quantized values against MediaPipe 1.2.3")
            }
            let set = entry.regionOfInterest != nil ? entry.id.components(separatedBy: "/").prefix(2).joined(separator: "/") : entry.set
            var row = bySet[set] ?? (0, 0, 0, 0)
            row = (max(row.float, delta.float), max(row.quantized, delta.quantized), max(row.float01014, other.float), max(row.quantized01014, other.quantized))
            bySet[set] = row
        }
        XCTAssertEqual(versionsDiffer, Self.boxPointsEntries)
        print("image embedder against MediaPipe 1.2.3 (and 0.10.14), max |Δ| float / quantized steps:")
        for (set, row) in bySet.sorted(by: { $0.key < $1.key }) {
            print("  " + set.padding(toLength: 18, withPad: " ", startingAt: 0)
                  + String(format: " 1.2.3: %.3g / %d   0.10.14: %.3g / %d", row.float, row.quantized, row.float01014, row.quantized01014))
        }
    }

    /// MediaPipe's similarities of its own embeddings, and of ours: the function alone (on MediaPipe's embeddings, where
    /// only the summation order differs from numpy's) and end to end (≤ 1e-4); MediaPipe's refusals (a float and a
    /// quantized embedding) are typed errors with its message.
    func testCosineSimilaritiesMatchMediaPipe() throws {
        let file = try Self.reference()
        let ours = try Self.ours(file)
        let theirs = Dictionary(uniqueKeysWithValues: file.entries.map { ($0.id, $0.result.embeddings[0].embedding) })
        XCTAssertEqual(file.similarities.count, 96)
        var worstFunction = 0.0, worstEndToEnd = 0.0, worst01014 = 0.0, boxPointsWorst = 0.0, refusals = 0
        for pair in file.similarities {
            let label = "\(pair.a) vs \(pair.b)"
            let (a, b) = (try XCTUnwrap(theirs[pair.a], label), try XCTUnwrap(theirs[pair.b], label))
            let (x, y) = (try XCTUnwrap(ours[pair.a]?.embeddingResult.embeddings.first, label),
                          try XCTUnwrap(ours[pair.b]?.embeddingResult.embeddings.first, label))
            if let expected = pair.value {
                let function = try ImageEmbedder.cosineSimilarity(embedding1: a, embedding2: b).doubleValue
                let endToEnd = try ImageEmbedder.cosineSimilarity(embedding1: x, embedding2: y).doubleValue
                XCTAssertEqual(function, expected, accuracy: 1e-12, label)
                let expected01014 = try XCTUnwrap(pair.value_0_10_14, label)
                if Self.boxPointsEntries.contains(pair.a) || Self.boxPointsEntries.contains(pair.b) {
                    // The first region's crop is 0.10.14's (see `boxPointsEntries`): its similarity is 0.10.14's.
                    XCTAssertEqual(endToEnd, expected01014, accuracy: 1e-4, label)
                    XCTAssertLessThanOrEqual(abs(endToEnd - expected), abs(expected01014 - expected) + 1e-9, label)
                    boxPointsWorst = max(boxPointsWorst, abs(endToEnd - expected))
                } else {
                    XCTAssertEqual(endToEnd, expected, accuracy: 1e-4, label)
                    worstEndToEnd = max(worstEndToEnd, abs(endToEnd - expected))
                }
                worstFunction = max(worstFunction, abs(function - expected))
                worst01014 = max(worst01014, abs(endToEnd - expected01014))
            } else {
                let message = try XCTUnwrap(pair.error, label)
                XCTAssertTrue(message.hasPrefix("ValueError: Cannot compute cosine similarity between quantized and float embeddings"), message)
                refusals += 1
                for (u, v) in [(a, b), (x, y), (y, x)] {
                    XCTAssertThrowsError(try ImageEmbedder.cosineSimilarity(embedding1: u, embedding2: v), label) { error in
                        guard case let .invalidOption(_, reason) = error as? VisionTaskError else { return XCTFail("\(label): \(error)") }
                        XCTAssertEqual(reason, "Cannot compute cosine similarity between quantized and float embeddings.")
                        XCTAssertEqual((error as NSError).code, Int(TasksErrorCode.invalidArgumentError.rawValue))
                    }
                }
            }
        }
        XCTAssertEqual(refusals, 12)
        print(String(format: "cosine similarity against MediaPipe 1.2.3: function on its embeddings max |Δ| %.3g, end to end %.3g "
                     + "(first region, 0.10.14's crop: %.3g); against 0.10.14 %.3g; %d refusals alike",
                     worstFunction, worstEndToEnd, boxPointsWorst, worst01014, refusals))
    }

    /// The live stream gives what video mode gives, frame for frame, and so MediaPipe's video results; the region of
    /// interest reaches every running mode.
    func testLiveStreamAndRegionsInEveryMode() throws {
        let file = try Self.reference()
        let videoEntries = file.entries.filter { $0.runningMode == "VIDEO" }
        XCTAssertEqual(videoEntries.count, 3)
        let frames = try Self.frames(videoEntries)
        final class Delegate: ImageEmbedderLiveStreamDelegate, @unchecked Sendable {
            let answers = LiveStreamAnswers<ImageEmbedderResult>()
            func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                               timestampInMilliseconds: Int, error: (any Error)?) {
                answers.finished(result, timestamp: timestampInMilliseconds, error: error)
            }
            func imageEmbedder(_ imageEmbedder: ImageEmbedder, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
                answers.dropped(timestamp: timestamp)
            }
        }
        let delegate = Delegate()
        let live = try Self.embedder(videoEntries[0].options, mode: .liveStream, delegate: delegate)
        let results = try delegate.answers.feed(frames) { try live.embedAsync(image: $0, timestampInMilliseconds: $1) }
        let video = try Self.embedder(videoEntries[0].options, mode: .video)
        for (entry, frame) in zip(videoEntries, frames) {
            let result = try XCTUnwrap(results[frame.timestamp], entry.id)
            XCTAssertEqual(result, try video.embed(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp), entry.id)
            XCTAssertEqual(result.timestampInMilliseconds, frame.timestamp)
            XCTAssertLessThanOrEqual(Self.difference(result, entry.result, entry.id).float, 1e-4, entry.id)
        }

        // The regions of interest of the image entries, in video and live-stream modes.
        let roiEntries = file.entries.filter { $0.regionOfInterest != nil && $0.options.l2Normalize && !$0.options.quantize }
        XCTAssertEqual(roiEntries.count, 2)
        let roiDelegate = Delegate()
        let roiLive = try Self.embedder(roiEntries[0].options, mode: .liveStream, delegate: roiDelegate)
        let roiVideo = try Self.embedder(roiEntries[0].options, mode: .video)
        let inputs = try roiEntries.map { try Self.input($0) }
        let roiFrames = inputs.enumerated().map { (image: $0.element.image, timestamp: 10 * ($0.offset + 1)) }
        let roiResults = try roiDelegate.answers.feed(roiFrames) { image, timestamp in
            try roiLive.embedAsync(image: image, timestampInMilliseconds: timestamp, regionOfInterest: try XCTUnwrap(inputs[timestamp / 10 - 1].roi))
        }
        for (index, entry) in roiEntries.enumerated() {
            let (image, roi) = inputs[index]
            let inVideo = try roiVideo.embed(videoFrame: image, timestampInMilliseconds: 10 * (index + 1), regionOfInterest: try XCTUnwrap(roi))
            XCTAssertEqual(roiResults[10 * (index + 1)], inVideo, entry.id)
            var reference = entry.result
            if Self.boxPointsEntries.contains(entry.id), case let .different(result01014) = entry.result_0_10_14 { reference = result01014 }
            XCTAssertLessThanOrEqual(Self.difference(inVideo, reference, entry.id).float, 1e-4, entry.id)
        }
    }

    /// `numThreads` splits the work, never a number: every image entry bit-identical at 1, 2 and 3 threads.
    func testResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let file = try Self.reference()
        let one = try Self.ours(file, threads: 1)
        XCTAssertEqual(one.count, file.entries.count)
        for threads in [2, 3] {
            let other = try Self.ours(file, threads: threads)
            for (id, result) in one {
                XCTAssertTrue(other[id] == result, "\(id) differs between 1 and \(threads) threads")
            }
        }
    }

    /// MediaPipe's `GetInverseL2Norm` and scalar quantization, against C's `roundf` (what MediaPipe calls) on values
    /// that round half-way, clamp, or are not finite.
    func testQuantizationIsRoundfClamped() {
        let steps: [Float] = [0, 0.5, -0.5, 1.5, -1.5, 64.5, -64.5, 126.5, 127.49, 127.5, -127.5, -128.5, 128, -128, 768, -768]
        var values: [Float] = steps.map { $0 / 128 } + [1e20, -1e20]
        values += (0..<2000).map { (i: Int) -> Float in Float(i - 1000) / 700 }
        for value in values {
            let scaled = roundf(value * 128)
            XCTAssertEqual(EmbeddingPostprocessing.quantized(value), Int8(max(-128, min(127, scaled))), "\(value)")
        }
        XCTAssertEqual(EmbeddingPostprocessing.quantized(.nan), 0)
        XCTAssertEqual(EmbeddingPostprocessing.quantized(.infinity), 127)
        XCTAssertEqual(EmbeddingPostprocessing.quantized(-.infinity), -128)
        // All zeros stay as they are (inverse norm 1), as MediaPipe leaves them.
        let post = EmbeddingPostprocessing(l2Normalize: true, quantize: false)
        XCTAssertEqual(post.embedding([0, 0, 0], headIndex: 0, headName: nil).floatValues, [0, 0, 0])
    }

    /// MediaPipe's refusals (sizes, kinds) and its C++ ones (empty, zero norm), typed, with MediaPipe's error code;
    /// MediaPipe's `NSNumber` initializer reads quantized values as signed bytes.
    func testCosineSimilarityErrorsAreTyped() throws {
        func floats(_ values: [Float]) -> Embedding { Embedding(floatValues: values, quantizedValues: nil, headIndex: 0, headName: nil) }
        func bytes(_ values: [Int8]) -> Embedding { Embedding(floatValues: nil, quantizedValues: values, headIndex: 0, headName: nil) }
        let cases: [(Embedding, Embedding, String)] = [
            (floats([1, 0]), floats([1, 0, 0]), "Cannot compute cosine similarity between embeddings of different sizes (2 vs 3)"),
            (bytes([1, 0]), bytes([1]), "Cannot compute cosine similarity between embeddings of different sizes (2 vs 1)"),
            (floats([1]), bytes([1]), "Cannot compute cosine similarity between quantized and float embeddings."),
            (Embedding(floatValues: nil, quantizedValues: nil, headIndex: 0, headName: nil), floats([1]),
             "Cannot compute cosine similarity between quantized and float embeddings."),
            (floats([]), floats([]), "Cannot compute cosine similarity on empty embeddings"),
            (floats([0, 0]), floats([1, 0]), "Cannot compute cosine similarity on embedding with 0 norm"),
            (bytes([3, 4]), bytes([0, 0]), "Cannot compute cosine similarity on embedding with 0 norm"),
            (floats([.nan, 1]), floats([1, 0]), "Cannot compute cosine similarity on embedding with non-finite values"),
        ]
        for (u, v, message) in cases {
            XCTAssertThrowsError(try ImageEmbedder.cosineSimilarity(embedding1: u, embedding2: v), message) { error in
                guard case let .invalidOption(_, reason) = error as? VisionTaskError else { return XCTFail("\(message): \(error)") }
                XCTAssertEqual(reason, message)
                XCTAssertEqual((error as NSError).domain, "com.google.mediapipe.tasks")
                XCTAssertEqual((error as NSError).code, Int(TasksErrorCode.invalidArgumentError.rawValue))
            }
        }
        // Signed bytes: 255 is −1, so [255, 0] and [1, 0] point opposite ways (as `view("int8")` and `charValue` read them).
        let u = Embedding(floatEmbedding: nil, quantizedEmbedding: [255, 0], headIndex: 0, headName: nil)
        let v = Embedding(floatEmbedding: nil, quantizedEmbedding: [1, 0], headIndex: 0, headName: nil)
        XCTAssertEqual(u.quantizedValues, [-1, 0])
        XCTAssertEqual(try ImageEmbedder.cosineSimilarity(embedding1: u, embedding2: v).doubleValue, -1)
        XCTAssertEqual(u.quantizedEmbedding?.map(\.int8Value), [-1, 0])
        XCTAssertEqual(floats([0.25]).floatEmbedding?.map(\.floatValue), [0.25])
    }

    // MARK: models that are not embedders

    static let (reshape, dequantize, quantize): (Int32, Int32, Int32) = (22, 6, 114)

    /// A model taking a uint8 [1, 2, 2, 3] image whose outputs are `outputs` (type, shape, quantized): each the input
    /// reshaped (uint8), then dequantized (float32) or requantized (int8) where the type says.
    static func model(_ outputs: [(TFLiteBuilder.ElementType, [Int32], Bool)], input: TFLiteBuilder.ElementType = .uint8) -> [UInt8] {
        var b = TFLiteBuilder()
        let q = TFLiteBuilder.Quantization(scale: [0.5], zeroPoint: [3])
        let x = b.tensor("image", input, [1, 2, 2, 3], quantization: input == .uint8 ? q : nil)
        var ys: [Int32] = []
        for (index, (type, shape, quantized)) in outputs.enumerated() {
            let reshaped = b.tensor("out\(index)", input, shape, quantization: input == .uint8 && (quantized || type != .uint8) ? q : nil)
            b.op(reshape, inputs: [x], outputs: [reshaped])
            switch type {
            case .float32 where input == .uint8:
                let y = b.tensor("dequantized\(index)", .float32, shape)
                b.op(dequantize, inputs: [reshaped], outputs: [y])
                ys.append(y)
            case .int8:
                let y = b.tensor("requantized\(index)", .int8, shape, quantization: TFLiteBuilder.Quantization(scale: [0.5], zeroPoint: [-125]))
                b.op(quantize, inputs: [reshaped], outputs: [y])
                ys.append(y)
            default:
                ys.append(reshaped)
            }
        }
        (b.inputs, b.outputs) = ([x], ys)
        return b.build()
    }

    func testModelsThatAreNotEmbeddersAreTypedErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("embedder-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
        let cases: [(String, String, String)] = [
            ("no-output.tflite", try path("no-output.tflite", Self.model([])), "has no output"),
            ("rank.tflite", try path("rank.tflite", Self.model([(.uint8, [1, 2, 6], true)])), "is not one non-empty embedding vector"),
            ("int8.tflite", try path("int8.tflite", Self.model([(.int8, [1, 12], true)])), "to have type UINT8 or FLOAT32, found"),
            ("mixed.tflite", try path("mixed.tflite", Self.model([(.uint8, [1, 12], true), (.float32, [1, 12], false)])),
             "either all or none of the output tensors to be quantized"),
            ("unscaled.tflite", try path("unscaled.tflite", Self.model([(.uint8, [1, 12], false)])), "without a scale and zero point"),
            ("float-input.tflite", try path("float-input.tflite", Self.model([(.float32, [1, 12], false)], input: .float32)),
             "gives no normalization"),
            ("detector", Repository.modelPath("ssd_mobilenet_v1.tflite"), "is not one non-empty embedding vector"),
            ("segmenter", Repository.shared.appendingPathComponent("models/selfie_segmentation.tflite").path, "is not one non-empty embedding vector"),
            ("bundle", Repository.modelPath("pose_landmarker_lite.task"), "an image embedder is one .tflite model"),
        ]
        for (name, modelPath, message) in cases {
            XCTAssertThrowsError(try ImageEmbedder(modelPath: modelPath), name) { error in
                guard case let .wrongModel(reason) = error as? VisionTaskError else {
                    // A model the engine itself refuses (no outputs, say) is a typed error too.
                    guard error is VisionTaskError else { return XCTFail("\(name): \(error)") }
                    return print("\(name): \(error)")
                }
                XCTAssertTrue(reason.contains(message), "\(name): \(reason)")
            }
        }
        // A zero-sized output: refused by the engine or by the embedder, typed either way.
        let empty = try path("empty.tflite", Self.model([(.uint8, [1, 0], true)]))
        XCTAssertThrowsError(try ImageEmbedder(modelPath: empty)) { XCTAssertTrue($0 is VisionTaskError, "\($0)") }

        // Two valid heads without metadata: two embeddings, indexed, unnamed; each MediaPipe's dequantization of the
        // 2 × 2 image's bytes (scale × (q − zero point)).
        let twoHeads = try ImageEmbedder(modelPath: try path("two.tflite", Self.model([(.uint8, [1, 12], true), (.uint8, [12], true)])))
        let pixels: [UInt8] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]
        let result = try twoHeads.embed(image: try MPImage(pixels: pixels, width: 2, height: 2, format: .rgb8))
        XCTAssertEqual(result.embeddingResult.embeddings.map(\.headIndex), [0, 1])
        XCTAssertEqual(result.embeddingResult.embeddings.map(\.headName), [nil, nil])
        for embedding in result.embeddingResult.embeddings {
            XCTAssertEqual(embedding.floatValues, pixels.map { 0.5 * Float(Int($0) - 3) })
        }
    }

    /// The registration every surface takes the task from: its options by MediaPipe's names, and answers whose JSON
    /// carries MediaPipe's embeddings (float-l2 and quantized on coral_cat.png, as the fixture has them).
    func testRegistrationAnswersWithMediaPipesEmbeddings() throws {
        let file = try Self.reference()
        let task = ImageEmbedder.registration
        XCTAssertEqual(task.typeName, "ImageEmbedder")
        XCTAssertEqual(task.options.map(\.flag), ["--l2-normalize", "--quantize"])
        XCTAssertEqual(task.options.map(\.defaultValue), [.flag(false), .flag(false)])
        let image = try Self.photo("coral_cat.png")
        for (set, values) in [("float-l2", ["l2Normalize": TaskOptionValue.flag(true)]),
                              ("quantized", ["quantize": .flag(true)])] {
            let entry = try XCTUnwrap(file.entries.first { $0.id == "\(set)/coral_cat.png" })
            let reference = try XCTUnwrap(entry.result.embeddings.first)
            let session = try task.open(TaskSetup(modelPath: Self.modelPath, values: values))
            let answer = try session.answer(image, timestamp: nil)
            let data = try JSONSerialization.data(withJSONObject: answer.json)
            let embeddings = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["embeddings"] as? [[String: Any]])
            XCTAssertEqual(embeddings.count, 1)
            XCTAssertEqual(embeddings[0]["headIndex"] as? Int, 0)
            XCTAssertEqual(embeddings[0]["headName"] as? String, reference.headName)
            if let floats = reference.floats {
                let ours = try XCTUnwrap(embeddings[0]["floatEmbedding"] as? [Double], set)
                XCTAssertEqual(ours.map { Float($0) }, floats, set)
                XCTAssertNil(embeddings[0]["quantizedEmbedding"])
            } else {
                let ours = try XCTUnwrap(embeddings[0]["quantizedEmbedding"] as? [Int], set)
                XCTAssertEqual(ours, try XCTUnwrap(reference.bytes).map { Int($0) }, set)
                XCTAssertNil(embeddings[0]["floatEmbedding"])
            }
            XCTAssertTrue(answer.summary.hasPrefix("1 embedding(s), 1280 "), answer.summary)
        }
        XCTAssertThrowsError(try task.open(TaskSetup(modelPath: Self.modelPath, values: ["maxResults": .integer(3)]))) { error in
            guard case .invalidOption(name: "maxResults", _) = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
    }

    /// MediaPipe's iOS guide, as an app writes it (an `NSObject` delegate, `.doubleValue` on the similarity): two photos'
    /// quantized, normalized embeddings and their similarity, MediaPipe's; the same frames through the live stream.
    func testAsAppsUseIt() throws {
        final class EmbedderService: NSObject, ImageEmbedderLiveStreamDelegate, @unchecked Sendable {
            let lock = NSLock()
            var results: [Int: ImageEmbedderResult] = [:]
            func imageEmbedder(_ imageEmbedder: ImageEmbedder, didFinishEmbedding result: ImageEmbedderResult?,
                               timestampInMilliseconds: Int, error: Error?) {
                guard let result else { return }
                lock.lock(); results[timestampInMilliseconds] = result; lock.unlock()
            }
        }
        let file = try Self.reference()
        let expected = try XCTUnwrap(file.similarities.first { $0.a == "quantized-l2/coral_cat.png" && $0.b == "quantized-l2/obj_cat.jpg" }?.value)

        let options = ImageEmbedderOptions()
        options.baseOptions.modelAssetPath = Self.modelPath
        options.quantize = true
        options.l2Normalize = true
        let imageEmbedder = try ImageEmbedder(options: options)
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/coral_cat.png").path)
        let otherImage = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/obj_cat.jpg").path)
        let result = try imageEmbedder.embed(image: image)
        let otherResult = try imageEmbedder.embed(image: otherImage)
        let similarity = try ImageEmbedder.cosineSimilarity(
            embedding1: result.embeddingResult.embeddings[0],
            embedding2: otherResult.embeddingResult.embeddings[0])
        XCTAssertEqual(similarity.doubleValue, expected, accuracy: 1e-4)
        XCTAssertEqual(result.embeddingResult.embeddings[0].quantizedEmbedding?.count, 1280)

        let service = EmbedderService()
        let liveOptions = options.copy()
        liveOptions.runningMode = .liveStream
        liveOptions.imageEmbedderLiveStreamDelegate = service
        let liveEmbedder = try ImageEmbedder(options: liveOptions)
        try liveEmbedder.embedAsync(image: image, timestampInMilliseconds: 1)
        liveEmbedder.waitUntilIdle()
        try liveEmbedder.embedAsync(image: otherImage, timestampInMilliseconds: 2)
        liveEmbedder.waitUntilIdle()
        service.lock.lock(); defer { service.lock.unlock() }
        XCTAssertEqual(service.results[1]?.embeddingResult.embeddings, result.embeddingResult.embeddings)
        XCTAssertEqual(service.results[2]?.embeddingResult.embeddings, otherResult.embeddingResult.embeddings)
    }

    /// The options are MediaPipe's (both false by default); a delegate outside live-stream mode and a wrong running
    /// mode are typed errors, as for every task.
    func testOptionsAndRunningModes() throws {
        let options = ImageEmbedderOptions()
        XCTAssertFalse(options.l2Normalize)
        XCTAssertFalse(options.quantize)
        XCTAssertEqual(options.runningMode, .image)
        options.l2Normalize = true
        options.quantize = true
        let copy = options.copy()
        XCTAssertTrue(copy.l2Normalize && copy.quantize)
        options.baseOptions.modelAssetPath = Self.modelPath
        options.runningMode = .video
        let embedder = try ImageEmbedder(options: options)
        let image = try Self.photo("coral_cat.png")
        XCTAssertThrowsError(try embedder.embed(image: image)) { error in
            guard case .wrongRunningMode = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try embedder.embed(videoFrame: image, timestampInMilliseconds: 0, regionOfInterest: CGRect(x: 0.5, y: 0.5, width: 0.6, height: 0.2))) { error in
            guard case .invalidOption(name: "regionOfInterest", _) = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        let quantized = try embedder.embed(videoFrame: image, timestampInMilliseconds: 5)
        XCTAssertEqual(quantized.timestampInMilliseconds, 5)
        XCTAssertNotNil(quantized.embeddingResult.embeddings.first?.quantizedValues)
        XCTAssertNil(quantized.embeddingResult.embeddings.first?.floatValues)
        XCTAssertThrowsError(try embedder.embed(videoFrame: image, timestampInMilliseconds: 5)) { error in
            guard case .nonIncreasingTimestamp = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
    }
}
