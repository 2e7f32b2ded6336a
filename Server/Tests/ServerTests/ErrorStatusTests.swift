import Foundation
import VisionTasks
@testable import VisionTasksServer
import XCTest

/// Every refusal the service documents, provoked over a real loopback connection: 400 with the typed error's
/// message, 401, 404, 413 (body and pixels), 415, 503 with Retry-After, 504; and a queued request whose client goes
/// away leaves the queue.
final class ErrorStatusTests: XCTestCase {
    private func error(_ answer: HTTPAnswer) -> String? { answer.json?["error"] as? String }

    func testBadImagesAndOptionsAre400WithTheTypedErrorsMessage() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        // Not an image at all: the decoder's ImageError, word for word.
        let garbage = try server.post("/v1/pose", body: Data("definitely not a picture".utf8), type: "image/png")
        XCTAssertEqual(garbage.status, 400)
        var unknown = ""
        do { _ = try MPImage(encoded: Array("definitely not a picture".utf8)) } catch { unknown = "\(error)" }
        XCTAssertTrue(unknown.contains("text starting \"definitely not a"), unknown)
        XCTAssertEqual(error(garbage), unknown)
        // A truncated JPEG: whatever the decoder says of it, the same words.
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Paths.image("pose1.jpg")))
        let truncated = jpeg.prefix(jpeg.count / 3)
        var expected = ""
        do { _ = try MPImage(encoded: Array(truncated)) } catch { expected = "\(error)" }
        XCTAssertFalse(expected.isEmpty, "the truncated JPEG decoded")
        let cut = try server.post("/v1/pose", body: truncated, type: "image/jpeg")
        XCTAssertEqual(cut.status, 400)
        XCTAssertEqual(error(cut), expected)
        // An option out of its range: the task's own VisionTaskError.
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Paths.model("pose_landmarker_lite.task")
        options.numPoses = 0
        var optionError = ""
        do { _ = try PoseLandmarker(options: options) } catch { optionError = "\(error)" }
        XCTAssertFalse(optionError.isEmpty)
        let zero = try server.post("/v1/pose?numPoses=0", file: Paths.image("pose1.jpg"), type: "image/jpeg")
        XCTAssertEqual(zero.status, 400)
        XCTAssertEqual(error(zero), optionError)
        // Malformed and unknown parameters, an unknown model, a bad rotation.
        for (query, fragment) in [("numPoses=two", "numPoses must be an integer"), ("numHands=1", "unknown parameter 'numHands'"),
                                  ("model=face_landmarker.task", "not a pose model"), ("rotationDegrees=45", "multiple of 90"),
                                  ("minPoseDetectionConfidence=nan", "finite number"), ("numPoses=1&numPoses=2", "given more than once")] {
            let answer = try server.post("/v1/pose?\(query)", file: Paths.image("pose1.jpg"), type: "image/jpeg")
            XCTAssertEqual(answer.status, 400, query)
            XCTAssertTrue(error(answer)?.contains(fragment) ?? false, "\(query): \(answer.text)")
        }
        // A clip ffprobe cannot read: 400 with its message, the temporary file's name replaced by the request's.
        let notVideo = try server.post("/v1/pose/video?name=clip.mp4", body: Data(repeating: 7, count: 1000), type: "video/mp4")
        XCTAssertEqual(notVideo.status, 400)
        XCTAssertTrue(error(notVideo)?.contains("cannot read video 'clip.mp4'") ?? false, notVideo.text)
    }

    func testUnknownTaskIs404AndUnknownMediaTypeIs415() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let unknown = try server.post("/v1/segment", file: Paths.image("pose1.jpg"), type: "image/jpeg")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(error(unknown)?.contains("no task 'segment'") ?? false, unknown.text)
        for type in ["text/plain", "video/mp4", "image/svg+xml", ""] {
            let answer = try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: type)
            XCTAssertEqual(answer.status, 415, type)
        }
        XCTAssertEqual(try server.post("/v1/pose/video", file: Paths.image("pose1.jpg"), type: "image/jpeg").status, 415)
    }

    func testAPIKey() async throws {
        let server = try await TestServer { $0.apiKey = "s3cret" }
        defer { Task { await server.stop() } }
        let none = try server.get("/v1/models")
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.header("www-authenticate"), "Bearer")
        XCTAssertEqual(try server.get("/v1/models", headers: ["Authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg").status, 401)
        XCTAssertEqual(try server.get("/v1/models", headers: ["Authorization": "Bearer s3cret"]).status, 200)
        XCTAssertEqual(try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg", headers: ["X-API-Key": "s3cret"]).status, 200)
        // Probes and scrapes stay open.
        XCTAssertEqual(try server.get("/healthz").status, 200)
        XCTAssertEqual(try server.get("/metrics").status, 200)
    }

    func testBodiesAndImagesOverTheLimitsAre413() async throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: Paths.image("pose1.jpg")))
        let server = try await TestServer {
            $0.maxBody = photo.count - 1
            $0.maxVideoBody = 100_000
            $0.maxPixels = 1_000_000
        }
        defer { Task { await server.stop() } }
        // Announced by Content-Length: refused before the body is read.
        XCTAssertEqual(try server.post("/v1/pose", body: photo, type: "image/jpeg").status, 413)
        // Streamed without a length: refused once the limit is crossed.
        let streamed = try postChunked(server.port, "/v1/pose", body: photo, type: "image/jpeg")
        XCTAssertEqual(streamed.status, 413, streamed.text)
        let clip = try Data(contentsOf: URL(fileURLWithPath: Paths.video("full_body_juggle.mp4")))
        XCTAssertEqual(try postChunked(server.port, "/v1/pose/video", body: clip, type: "video/mp4").status, 413)
        // A small PNG whose header claims 2000×1000 pixels: refused from its header, before decoding.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        png += [0, 0, 0x07, 0xD0, 0, 0, 0x03, 0xE8, 8, 2, 0, 0, 0]
        let wide = try server.post("/v1/pose", body: Data(png), type: "image/png")
        XCTAssertEqual(wide.status, 413)
        XCTAssertTrue(error(wide)?.contains("2000×1000") ?? false, wide.text)
        // The largest sides a PNG header can spell: their product is past Int's range, and refused, not trapped on.
        var huge = png
        huge.replaceSubrange(16..<24, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(try server.post("/v1/pose", body: Data(huge), type: "image/png").status, 413)
        // A JPEG's size is read from its start-of-frame segment: the stored size, before any EXIF turn.
        let stored = try MPImage(encoded: Array(photo), decodingOptions: ImageDecodingOptions(appliesExifOrientation: false))
        let header = try XCTUnwrap(ImageHeader.size(of: Array(photo)))
        XCTAssertEqual([header.width, header.height], [stored.width, stored.height])
    }

    /// One slot, no queue: while a clip holds the slot, an image is refused at once with 503 and Retry-After; once the
    /// clip's client goes away the slot is free again.
    func testOverloadIs503WithRetryAfterAndAGoneClientFreesItsSlot() async throws {
        let server = try await TestServer { $0.slots = 1; $0.queue = 0 }
        defer { Task { await server.stop() } }
        let video = try startVideo(server.port, "/v1/pose/video?numPoses=1")
        let first = try readLine(video)
        XCTAssertTrue(first.contains("\"timestampMs\":0"), first)
        let refused = try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg")
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.header("retry-after"), "\(RequestError.retryAfterSeconds)")
        close(video)
        // The stream's next write fails, its loop ends and the slot is freed (well before the clip's 247 frames).
        try await waitUntil("the slot is freed") { await server.service.pool.state.busy == 0 }
        XCTAssertEqual(try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg").status, 200)
    }

    /// A request waiting in the queue whose client closes the connection leaves the queue.
    func testAQueuedRequestWhoseClientGoesAwayLeavesTheQueue() async throws {
        let server = try await TestServer { $0.slots = 1; $0.queue = 1 }
        defer { Task { await server.stop() } }
        let video = try startVideo(server.port, "/v1/pose/video?numPoses=1")
        defer { close(video) }
        _ = try readLine(video)
        let photo = try Data(contentsOf: URL(fileURLWithPath: Paths.image("pose1.jpg")))
        let waiting = try LoopbackHTTP.connect(port: server.port)
        try LoopbackHTTP.send(waiting, LoopbackHTTP.head(method: "POST", path: "/v1/pose", headers: ["Content-Type": "image/jpeg"], contentLength: photo.count) + photo)
        try await waitUntil("the image request is queued") { await server.service.pool.state.waiting == 1 }
        close(waiting)
        try await waitUntil("the queue is empty") { await server.service.pool.state.waiting == 0 }
        let busy = await server.service.pool.state.busy
        XCTAssertEqual(busy, 1, "the clip still holds its slot")
    }

    /// A deadline shorter than any inference: 504.
    func testDeadlineIs504() async throws {
        let server = try await TestServer { $0.deadline = 0.001 }
        defer { Task { await server.stop() } }
        let answer = try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg")
        XCTAssertEqual(answer.status, 504)
        XCTAssertEqual(error(answer), RequestError.deadlineExceeded.description)
        // The slot comes back when the abandoned inference ends.
        try await waitUntil("the slot is freed") { await server.service.pool.state.busy == 0 }
    }

    /// A client that sends a request's head and part of its body and then goes silent (a stalled upload, or a
    /// slowloris) is disconnected once the idle timeout has passed, an image's and a video's alike: it holds no slot
    /// and no place in the queue, leaves no upload file, and the next request is answered.
    func testAStalledUploadIsClosedAfterTheIdleTimeout() async throws {
        let server = try await TestServer { $0.idleTimeout = 1 }
        defer { Task { await server.stop() } }
        let uploads = { try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("vision-tasks-upload-") }.count }
        let uploadsBefore = try uploads()
        for (path, type) in [("/v1/pose", "image/jpeg"), ("/v1/pose/video", "video/mp4")] {
            let socket = try LoopbackHTTP.connect(port: server.port)
            defer { close(socket) }
            // Without the timeout this read would wait for ever; the test's own bound is 60 s.
            var bound = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
            let head = LoopbackHTTP.head(method: "POST", path: path, headers: ["Content-Type": type], contentLength: 100_000)
            try LoopbackHTTP.send(socket, head + Data(repeating: 0xFF, count: 1_000))
            let start = ContinuousClock.now
            let answer = try LoopbackHTTP.readAll(socket)
            let waited = start.duration(to: .now)
            XCTAssertGreaterThanOrEqual(waited, .milliseconds(900), "\(path): closed before the idle timeout")
            XCTAssertLessThan(waited, .seconds(30), "\(path): the stalled upload was not closed")
            XCTAssertTrue(answer.isEmpty || String(decoding: answer.prefix(12), as: UTF8.self).hasPrefix("HTTP/1.1 4"),
                          "\(path): \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
        try await waitUntil("no request holds a slot or waits") {
            let state = await server.service.pool.state
            return state.busy == 0 && state.waiting == 0
        }
        try await waitUntil("the stalled video's upload file is removed") { (try? uploads()) == uploadsBefore }
        XCTAssertEqual(try server.post("/v1/pose", file: Paths.image("pose1.jpg"), type: "image/jpeg").status, 200)
    }

    // MARK: - Helpers

    private func postChunked(_ port: Int, _ path: String, body: Data, type: String) throws -> HTTPAnswer {
        let socket = try LoopbackHTTP.connect(port: port)
        defer { close(socket) }
        try LoopbackHTTP.send(socket, LoopbackHTTP.head(method: "POST", path: path, headers: ["Content-Type": type, "Transfer-Encoding": "chunked"], contentLength: nil))
        var offset = 0
        // The server may answer 413 and close before the whole body is sent: a failed send is expected then.
        while offset < body.count {
            let chunk = body[body.index(body.startIndex, offsetBy: offset)..<body.index(body.startIndex, offsetBy: min(offset + 16_384, body.count))]
            guard (try? LoopbackHTTP.send(socket, Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8))) != nil else { break }
            offset += chunk.count
        }
        _ = try? LoopbackHTTP.send(socket, Data("0\r\n\r\n".utf8))
        return try LoopbackHTTP.parse(LoopbackHTTP.readAll(socket))
    }

    /// Posts the juggling clip and returns the connection, the answer's head read.
    private func startVideo(_ port: Int, _ path: String) throws -> Int32 {
        let clip = try Data(contentsOf: URL(fileURLWithPath: Paths.video("full_body_juggle.mp4")))
        let socket = try LoopbackHTTP.connect(port: port)
        try LoopbackHTTP.send(socket, LoopbackHTTP.head(method: "POST", path: path, headers: ["Content-Type": "video/mp4"], contentLength: clip.count) + clip)
        return socket
    }

    /// Reads from `socket` until one NDJSON line has arrived after the head (a chunk holds one line).
    private func readLine(_ socket: Int32) throws -> String {
        var data = Data()
        var byte: UInt8 = 0
        while !(data.range(of: Data("\r\n\r\n".utf8)).map { String(decoding: data[$0.upperBound...], as: UTF8.self).contains("}\n") } ?? false) {
            guard recv(socket, &byte, 1, 0) == 1 else { throw LoopbackHTTP.Failure(description: "connection ended: \(String(decoding: data, as: UTF8.self))") }
            data.append(byte)
        }
        XCTAssertTrue(String(decoding: data, as: UTF8.self).hasPrefix("HTTP/1.1 200"), String(decoding: data, as: UTF8.self))
        return String(decoding: data, as: UTF8.self)
    }

    private func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
        for _ in 0..<600 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("timed out waiting until \(what)")
    }
}
