import Foundation
import VisionTasks
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
        try runSnippets("face-detector", image: image, model: "face_detection_short_range.tflite", expecting: [
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

    /// The Image Segmenter guide's snippets (category mask only, `model.tflite` beside the binary from
    /// selfie_segmentation.tflite) on pose1.jpg, held against MediaPipe 1.2.3's masks (SegmenterGoldens): image mode
    /// against the goldens' category-only case of that photo and model, with the issue's bounds (≥ 99.9 % of the
    /// category mask equal, quality scores equal); video and live stream frames of the same photo against the same
    /// answer (MediaPipe's segmenter graph keeps no state between frames for this model); `ImageSegmenter(modelPath:)`,
    /// MediaPipe's default options (confidence masks only), against the confidence mask of the photo's case with both
    /// outputs (mean |Δ| ≤ 1e-3, max |Δ| ≤ 0.02).
    func testImageSegmenterSnippetsRunInBothLanguageModes() throws {
        let index = try SegmenterGoldens.index()
        let categoryOnly = try XCTUnwrap(index.cases.first { $0.id == "selfie__pose1.jpg__category_only" }, "segmenter goldens: category-only case")
        let both = try XCTUnwrap(index.cases.first { $0.id == "selfie__pose1.jpg" }, "segmenter goldens: selfie pose1.jpg")
        XCTAssertEqual([categoryOnly.model, both.model], ["selfie_segmentation.tflite", "selfie_segmentation.tflite"])
        XCTAssertEqual([categoryOnly.image, both.image], ["pose1.jpg", "pose1.jpg"])
        XCTAssertEqual([categoryOnly.options.outputConfidenceMasks, categoryOnly.options.outputCategoryMask], [false, true])
        let theirCategory = try XCTUnwrap(SegmenterGoldens.masks(categoryOnly).category)
        let theirConfidence = try XCTUnwrap(SegmenterGoldens.masks(both).confidence)
        let size = "\(categoryOnly.width)x\(categoryOnly.height)"
        let scores = try XCTUnwrap(categoryOnly.qualityScores)
        try runSnippets("image-segmenter", image: "pose1.jpg", model: "selfie_segmentation.tflite", expecting: [
            "image: category mask \(size), values \(Set(theirCategory).sorted()), confidence masks 0, quality scores \(scores)",
            "ImageSegmenter(modelPath:): confidence masks \(Array(repeating: size, count: theirConfidence.count)), category mask none",
            "video: 3 frames, category masks \([size, size, size])",
            "live stream: 3 results, timestamps [0, 33, 66], category masks \([size, size, size]), errors []",
        ]) { run in
            var report: [String] = []
            for name in ["image", "video-0", "video-1", "video-2", "live-0", "live-1", "live-2"] {
                let category = try Self.bytes(run.output, "\(name).category")
                let quality = try String(decoding: Self.bytes(run.output, "\(name).quality"), as: UTF8.self)
                    .split(separator: "\n").map { try XCTUnwrap(Float(String($0)), "\(name).quality") }
                let result = ImageSegmenterResult(
                    confidenceMasks: nil, categoryMask: Mask(width: categoryOnly.width, height: categoryOnly.height, uint8Data: category),
                    qualityScores: quality, timestampInMilliseconds: 0)
                let worst = try SegmenterGoldens.compare(result, categoryOnly, "\(run.binary) \(name)")
                report.append(String(format: "%@ %@: category equal %.5f", run.binary, name, worst.equal))
            }
            XCTAssertEqual(theirConfidence.count, 1, "the selfie model has one mask")
            for (index, theirs) in theirConfidence.enumerated() {
                let ours = Self.floats(try Self.bytes(run.output, "model-path.confidence-\(index)"))
                guard ours.count == theirs.count else {
                    XCTFail("\(run.binary) model-path: \(ours.count) confidence values, MediaPipe \(theirs.count)"); continue
                }
                let deltas = zip(ours, theirs).map { abs(Double($0) - Double($1)) }
                let mean = deltas.reduce(0, +) / Double(max(deltas.count, 1)), largest = deltas.max() ?? 0
                XCTAssertLessThanOrEqual(mean, 1e-3, "\(run.binary) ImageSegmenter(modelPath:): mean |Δ|")
                XCTAssertLessThanOrEqual(largest, 0.02, "\(run.binary) ImageSegmenter(modelPath:): max |Δ|")
                report.append(String(format: "%@ ImageSegmenter(modelPath:) confidence %d: mean |Δ| %.2g, max |Δ| %.2g", run.binary, index, mean, largest))
            }
            print("image segmenter guide snippets against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
        }
    }

    /// The Image Embedder guide's snippets (`quantize` and `l2Normalize` on, `model.tflite` beside the binary from
    /// efficientnet_lite0_embedder.tflite, the model of Tests/Fixtures/image_embedder_reference.json) on obj_cat.jpg,
    /// held against MediaPipe 1.2.3's answers in that file with the issue's bounds: the quantized, normalized embedding
    /// (±1) in image mode and for each video and live-stream frame of the same photo (the embedder keeps no state
    /// between frames); the guide's cosine similarity against coral_cat.png (≤ 1e-4); `ImageEmbedder(modelPath:)`,
    /// MediaPipe's default options, against its float embedding (≤ 1e-4).
    func testImageEmbedderSnippetsRunInBothLanguageModes() throws {
        let file = try ImageEmbedderTests.reference()
        XCTAssertEqual(file.model, "efficientnet_lite0_embedder.tflite")
        let quantized = try XCTUnwrap(file.entries.first { $0.id == "quantized-l2/obj_cat.jpg" }, "embedder reference: quantized-l2")
        let float = try XCTUnwrap(file.entries.first { $0.id == "float/obj_cat.jpg" }, "embedder reference: float")
        XCTAssertEqual([quantized.options.quantize, quantized.options.l2Normalize, float.options.quantize, float.options.l2Normalize],
                       [true, true, false, false])
        let pair: Set = ["quantized-l2/obj_cat.jpg", "quantized-l2/coral_cat.png"]
        let similarity = try XCTUnwrap(file.similarities.first { Set([$0.a, $0.b]) == pair }?.value, "embedder reference: similarity")
        func heads(_ result: ImageEmbedderTests.Result, _ form: String) -> String {
            result.embeddings.map { "head \($0.headIndex) \($0.headName) \(form) \($0.length)" }.joined(separator: "; ")
        }
        let image = heads(quantized.result, "quantized")
        try runSnippets("image-embedder", image: "obj_cat.jpg", arguments: [Repository.shared.appendingPathComponent("images/coral_cat.png").path],
                        model: "efficientnet_lite0_embedder.tflite") { run in
            var lines = run.lines
            let cosine = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("cosine similarity: ") }, "\(run.binary): no similarity")
            let ours = try XCTUnwrap(Double(lines.remove(at: cosine).dropFirst("cosine similarity: ".count)))
            XCTAssertEqual(ours, similarity, accuracy: 1e-4, "\(run.binary): the guide's cosine similarity against MediaPipe's")
            XCTAssertEqual(lines, [
                "image: \(image)",
                "ImageEmbedder(modelPath:): \(heads(float.result, "float"))",
                "video: 3 frames, timestamps [0, 33, 66], \([image, image, image])",
                "live stream: 3 results, timestamps [0, 33, 66], \([image, image, image]), errors []",
            ], run.binary)
            var report = [String(format: "%@ cosine similarity: |Δ| %.2g", run.binary, abs(ours - similarity))]
            for name in ["image", "video-0", "video-1", "video-2", "live-0", "live-1", "live-2"] {
                for reference in quantized.result.embeddings {
                    let theirs = try XCTUnwrap(reference.bytes)
                    let mine = try Self.bytes(run.output, "\(name).head-\(reference.headIndex).quantized").map { Int8(bitPattern: $0) }
                    XCTAssertEqual(mine.count, theirs.count, "\(run.binary) \(name)")
                    let worst = zip(mine, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    XCTAssertLessThanOrEqual(worst, 1, "\(run.binary) \(name): quantized values against MediaPipe 1.2.3")
                    report.append("\(run.binary) \(name): quantized max |Δ| \(worst)")
                }
            }
            for reference in float.result.embeddings {
                let theirs = try XCTUnwrap(reference.floats)
                let mine = Self.floats(try Self.bytes(run.output, "model-path.head-\(reference.headIndex).float"))
                XCTAssertEqual(mine.count, theirs.count, "\(run.binary) model-path")
                let worst = zip(mine, theirs).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThanOrEqual(worst, 1e-4, "\(run.binary) ImageEmbedder(modelPath:): float values against MediaPipe 1.2.3")
                report.append(String(format: "%@ ImageEmbedder(modelPath:): float max |Δ| %.2g", run.binary, worst))
            }
            print("image embedder guide snippets against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
        }
    }

    /// What one build of the snippets printed, and the folder it wrote its raw results to (SEED_SNIPPETS_OUTPUT).
    struct SnippetRun { let binary: String; let lines: [String]; let output: URL }

    private static func bytes(_ directory: URL, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Little-endian float32s, as the snippets' runner writes them.
    private static func floats(_ bytes: [UInt8]) -> [Float] {
        // Spelled out step by step: Swift 6.0 gave up type-checking the one-expression form.
        stride(from: 0, to: bytes.count - 3, by: 4).map { (i: Int) -> Float in
            var word = UInt32(bytes[i + 3])
            word = word << 8 | UInt32(bytes[i + 2])
            word = word << 8 | UInt32(bytes[i + 1])
            word = word << 8 | UInt32(bytes[i])
            return Float(bitPattern: word)
        }
    }

    /// Runs both builds of the snippets of `task` on a shared image. `model`: the file of Models/ the guide's
    /// "model.tflite" is (the face detector, image segmenter and image embedder guides all bundle theirs under that
    /// name). With `expected`, the printed lines must be those; `check` sees each run before its folder goes.
    private func runSnippets(_ task: String, image: String, arguments extra: [String] = [], model: String? = nil,
                             expecting expected: [String]? = nil, check: (SnippetRun) throws -> Void = { _ in }) throws {
        let built = ChildProcess.buildDirectory
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-snippets-\(task)-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Bundle name → our Models/ file.
        var bundle = [("pose_landmarker.task", "pose_landmarker_lite.task"), ("face_landmarker.task", "face_landmarker.task"),
                      ("gesture_recognizer.task", "gesture_recognizer.task")]
        if let model { bundle.append(("model.tflite", model)) }
        for (name, model) in bundle {
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
            let output = directory.appendingPathComponent("output-\(name)")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            let outcome = try ChildProcess.run(binary, [task, Repository.shared.appendingPathComponent("images/\(image)").path, "3"] + extra,
                                               environment: ["SEED_SNIPPETS_OUTPUT": output.path])
            print("\(name) \(task):\n\(outcome.output)")
            XCTAssertEqual(outcome.status, 0, "\(name): \(outcome.output) \(outcome.stderr)")
            let lines = outcome.output.split(separator: "\n").map(String.init)
            if let expected { XCTAssertEqual(lines, expected, name) }
            try check(SnippetRun(binary: name, lines: lines, output: output))
        }
    }
}
