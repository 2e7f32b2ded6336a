import Foundation
import VisionTasks
import VisionTasksResultJSON
@testable import VisionTasksServer
import XCTest

/// Each task endpoint answers exactly what `vision-tasks TASK --json` writes in `results[0]` for the same photo and
/// options (the built CLI, run as a user runs it, is the truth); the listing, health and metrics endpoints.
final class EndpointTests: XCTestCase {
    nonisolated(unsafe) static var server: TestServer?

    override func setUp() async throws {
        if Self.server == nil { Self.server = try await TestServer() }
    }

    override class func tearDown() {
        let done = DispatchSemaphore(value: 0)
        Task { await server?.stop(); done.signal() }
        done.wait()
        server = nil
    }

    private var server: TestServer { Self.server! }

    /// One case: the CLI's arguments after the task and model, and the service's query for the same options.
    private func assertSameAsCLI(task: String, model: String, image: String, cli: [String], query: String,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let expectedBytes = try cliEntry([task, Paths.model(model), Paths.image(image)] + cli)
        let type = image.hasSuffix(".png") ? "image/png" : "image/jpeg"
        let answer = try server.post("/v1/\(task)?model=\(model)&name=\(image)&\(query)", file: Paths.image(image), type: type)
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        XCTAssertEqual(answer.header("content-type"), "application/json", file: file, line: line)
        // Byte for byte: the CLI's entry as it wrote it is the service's body.
        XCTAssertTrue(answer.body == expectedBytes, firstDifference(answer.body, expectedBytes), file: file, line: line)
        // And something was found: a comparison of two empty results would prove little.
        let result = try XCTUnwrap(answer.json?["result"] as? [String: Any], file: file, line: line)
        let found = result.values.compactMap { $0 as? [Any] }.map(\.count).max() ?? 0
        XCTAssertGreaterThan(found, 0, "\(task): nothing found in \(image)", file: file, line: line)
    }

    /// Where two JSON texts part, with some context (the bodies run to hundreds of kilobytes).
    private func firstDifference(_ served: Data, _ written: Data) -> String {
        let a = Array(served), b = Array(written)
        let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        func context(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[max(0, index - 150)..<min(bytes.count, index + 150)], as: UTF8.self)
        }
        return "service (\(a.count) bytes) and CLI (\(b.count) bytes) part at byte \(index):\nservice: …\(context(a))…\nCLI:     …\(context(b))…"
    }

    func testPoseEqualsCLI() throws {
        // MediaPipe's defaults on the service (one pose, no mask) against the CLI told the same.
        try assertSameAsCLI(task: "pose", model: "pose_landmarker_lite.task", image: "pose1.jpg",
                            cli: ["--num-poses", "1", "--no-segmentation"], query: "numPoses=1")
        // The CLI's defaults (two poses, masks) through the service's option names.
        try assertSameAsCLI(task: "pose", model: "pose_landmarker_lite.task", image: "pose2.jpg",
                            cli: [], query: "numPoses=2&outputSegmentationMasks=true")
    }

    /// Every photo format beyond JPEG and PNG, posted with its media type, is decoded by content and answered exactly
    /// as the CLI answers the same file (the tiny crops of Tests/Fixtures/formats/pixels: the decoding is the point).
    func testEveryImageFormatEqualsCLI() throws {
        let folder = Paths.root.appendingPathComponent("Tests/Fixtures/formats/pixels")
        for (name, type) in [("rgb24.bmp", "image/bmp"), ("pillow.gif", "image/gif"), ("rgb.ppm", "image/x-portable-pixmap"),
                             ("rgb-tiff_lzw.tiff", "image/tiff"), ("lossy.webp", "image/webp"), ("photo.heic", "image/heic"),
                             ("photo.avif", "image/avif")] {
            let path = folder.appendingPathComponent(name).path
            let expected = try cliEntry(["pose", Paths.model("pose_landmarker_lite.task"), path, "--num-poses", "1", "--no-segmentation"])
            let answer = try server.post("/v1/pose?model=pose_landmarker_lite.task&name=\(name)&numPoses=1", file: path, type: type)
            XCTAssertEqual(answer.status, 200, "\(name): \(answer.text)")
            XCTAssertEqual([answer.json?["width"] as? Int, answer.json?["height"] as? Int], [37, 29], name)
            XCTAssertTrue(answer.body == expected, "\(name): \(firstDifference(answer.body, expected))")
        }
    }

    func testFaceEqualsCLI() throws {
        try assertSameAsCLI(task: "face", model: "face_landmarker.task", image: "face_landmark_ex1.jpg",
                            cli: [], query: "numFaces=2&outputFaceBlendshapes=true&outputFacialTransformationMatrixes=true")
    }

    func testHandEqualsCLI() throws {
        try assertSameAsCLI(task: "hand", model: "hand_landmarker.task", image: "hand_2hands.png", cli: [], query: "numHands=2")
    }

    func testGestureEqualsCLI() throws {
        try assertSameAsCLI(task: "gesture", model: "gesture_recognizer.task", image: "hand_standing.png", cli: ["--num-hands", "1"],
                            query: "numHands=1")
    }

    func testObjectEqualsCLI() throws {
        try assertSameAsCLI(task: "object", model: "ssd_mobilenet_v1.tflite", image: "obj_kitchen_people.jpg",
                            cli: ["--max-results", "5", "--score-threshold", "0.3"], query: "maxResults=5&scoreThreshold=0.3")
        try assertSameAsCLI(task: "object", model: "ssd_mobilenet_v1.tflite", image: "obj_street_people.jpg",
                            cli: ["--allow", "person"], query: "categoryAllowlist=person")
        // MediaPipe's default model, EfficientDet-Lite0 (raw outputs decoded with its detector metadata).
        try assertSameAsCLI(task: "object", model: "efficientdet_lite0.tflite", image: "obj_kitchen_people.jpg",
                            cli: ["--max-results", "5"], query: "maxResults=5")
    }

    func testClassifyEqualsCLI() throws {
        try assertSameAsCLI(task: "classify", model: "bird_classifier.tflite", image: "coral_bird.png",
                            cli: ["--max-results", "5"], query: "maxResults=5")
    }

    /// A registered task (VisionTasks' task registry) is a route with its options as the CLI's, answered with the CLI's
    /// bytes; a value outside its range is refused with the CLI's message, naming MediaPipe's option.
    func testRegisteredTaskEqualsCLI() throws {
        try assertSameAsCLI(task: "face-detector", model: "face_detection_short_range.tflite", image: "face_landmark_ex1.jpg",
                            cli: ["--min-detection-confidence", "0.3"], query: "minDetectionConfidence=0.3")
        try assertSameAsCLI(task: "face-detector", model: "face_detection_full_range_sparse.tflite", image: "multi1.jpg",
                            cli: ["--min-suppression-threshold", "0.5"], query: "minSuppressionThreshold=0.5")
        try assertSameAsCLI(task: "image-embedder", model: "efficientnet_lite0_embedder.tflite", image: "coral_cat.png",
                            cli: ["--l2-normalize", "--quantize"], query: "l2Normalize=true&quantize=true")
        try assertSameAsCLI(task: "holistic-landmarker", model: "holistic_landmarker.task", image: "pose1.jpg",
                            cli: ["--min-hand-landmarks-confidence", "0.6"], query: "minHandLandmarksConfidence=0.6")
        // ML Kit's detector, registered as MediaPipe's tasks are: its options under ML Kit's names. An image is ML Kit's
        // single-image mode, so a pooled instance carries nothing from one request to the next.
        for _ in 0..<2 {
            try assertSameAsCLI(task: "odt", model: "ssd_mobilenet_v1.tflite", image: "obj_street_people.jpg", cli: ["--multiple", "--classify"],
                                query: "shouldEnableMultipleObjects=true&shouldEnableClassification=true")
        }
        let image = Paths.shared.appendingPathComponent("images/face_day13.jpg").path
        let refused = try server.post("/v1/face-detector?minDetectionConfidence=2", file: image, type: "image/jpeg")
        XCTAssertEqual(refused.status, 400, refused.text)
        XCTAssertTrue(refused.text.contains("minDetectionConfidence must be between 0.0 and 1.0"), refused.text)
        let unknown = try server.post("/v1/face-detector?numFaces=2", file: image, type: "image/jpeg")
        XCTAssertEqual(unknown.status, 400, unknown.text)
        XCTAssertTrue(unknown.text.contains("unknown parameter 'numFaces'"), unknown.text)
        // The custom classifier is a file of the command line's: a request cannot name a file of the service's host.
        let path = try server.post("/v1/odt?localModel=/etc/passwd", file: image, type: "image/jpeg")
        XCTAssertEqual(path.status, 400, path.text)
        XCTAssertTrue(path.text.contains("unknown parameter 'localModel'"), path.text)
    }

    /// openapi.yaml names every task of the service (the six and the registered ones) and every registered task's
    /// options, each listed for the image route.
    func testOpenAPIDocumentNamesEveryTaskAndOption() throws {
        let document = try String(contentsOf: Paths.root.appendingPathComponent("Server/openapi.yaml"), encoding: .utf8)
        XCTAssertTrue(document.contains("enum: [\(TaskKind.allCases.map(\.rawValue).joined(separator: ", "))]"), "openapi.yaml's Task enum")
        for task in RegisteredTask.all {
            for option in task.optionNames {
                let line = document.split(separator: "\n").first { $0.hasPrefix("    \(option): {name: \(option), in: query, description: \"") }
                XCTAssertTrue(line?.contains(task.name) == true, "openapi.yaml: \(option) for \(task.name)")
                XCTAssertTrue(document.contains(##"- $ref: "#/components/parameters/\##(option)""##), "openapi.yaml's image route: \(option)")
            }
        }
    }

    /// `GET /v1/models`: every model file of the folder a task takes, with the SHA-256 of its bytes.
    func testModelsListsNamesTasksAndHashes() throws {
        let answer = try server.get("/v1/models")
        XCTAssertEqual(answer.status, 200)
        let models = try XCTUnwrap(answer.json?["models"] as? [[String: Any]])
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Paths.model("manifest.json")))) as? [String: Any]
        let hashes = Dictionary(uniqueKeysWithValues: try XCTUnwrap(manifest?["models"] as? [[String: Any]]).map { ($0["file"] as! String, $0["sha256"] as! String) })
        let expected = TaskKind.allCases.flatMap { task in
            task.modelNames.filter { FileManager.default.fileExists(atPath: Paths.model($0)) }.map { ($0, task.rawValue) }
        }
        XCTAssertEqual(models.map { $0["name"] as? String }, expected.map(\.0))
        XCTAssertEqual(models.map { $0["task"] as? String }, expected.map(\.1))
        for model in models {
            let name = try XCTUnwrap(model["name"] as? String)
            // The manifest's checksums are of the files as fetched: the service hashed the same bytes.
            XCTAssertEqual(model["sha256"] as? String, hashes[name], name)
        }
    }

    func testHealthReadinessAndMetrics() throws {
        XCTAssertEqual(try server.get("/healthz").json?["status"] as? String, "ok")
        let ready = try server.get("/readyz")
        XCTAssertEqual(ready.status, 200)
        XCTAssertEqual(ready.json?["status"] as? String, "ready")
        // A request of each kind, then their traces in the Prometheus text.
        XCTAssertEqual(try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg").status, 200)
        XCTAssertEqual(try server.post("/v1/pose", body: Data("x".utf8), type: "text/plain").status, 415)
        let metrics = try server.get("/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.header("content-type")?.hasPrefix("text/plain") ?? false)
        let text = metrics.text
        for needle in ["vision_tasks_requests_total{route=\"/v1/pose\",status=\"200\"}",
                       "vision_tasks_requests_total{route=\"/v1/pose\",status=\"415\"}",
                       "vision_tasks_rejected_total{reason=\"unsupported_media_type\"}",
                       "vision_tasks_stage_seconds_bucket{task=\"pose\",stage=\"inference\"",
                       "vision_tasks_stage_seconds_bucket{task=\"pose\",stage=\"decode\"",
                       "vision_tasks_queue_wait_seconds_bucket",
                       "vision_tasks_model_load_seconds_count{model=\"pose_landmarker_lite.task\"} ",
                       "vision_tasks_queue_depth", "vision_tasks_slots_busy"] {
            XCTAssertTrue(text.contains(needle), "no \(needle) in /metrics:\n\(text.prefix(3000))")
        }
    }
}
