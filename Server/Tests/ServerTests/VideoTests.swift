import Foundation
@testable import VisionTasksServer
import XCTest

/// `POST /v1/{task}/video`: the NDJSON lines equal the CLI's `--jsonl` lines for the same clip and options, byte for
/// byte; and SIGTERM drains: a clip being answered is finished before the server exits.
final class VideoTests: XCTestCase {
    private func cliLines(_ arguments: [String]) throws -> [String] {
        let outcome = try runProgram(try Paths.cli(), arguments + ["--jsonl", "-", "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.errors)
        return String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testPoseVideoEqualsCLIJSONLines() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let frames = 12
        let expected = try cliLines(["pose", Paths.model("pose_landmarker_lite.task"), Paths.video("full_body_juggle.mp4"),
                                     "--video", "--max-frames", "\(frames)", "--num-poses", "1", "--no-segmentation"])
        XCTAssertEqual(expected.count, frames)
        let answer = try server.post("/v1/pose/video?model=pose_landmarker_lite.task&name=full_body_juggle.mp4&maxFrames=\(frames)&numPoses=1",
                                     file: Paths.video("full_body_juggle.mp4"), type: "video/mp4")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("content-type"), "application/x-ndjson")
        // Streamed as computed: chunked, not one body with a length.
        XCTAssertEqual(answer.header("transfer-encoding"), "chunked")
        let lines = answer.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, frames)
        for (index, (line, cli)) in zip(lines, expected).enumerated() { XCTAssertEqual(line, cli, "frame \(index)") }
        XCTAssertTrue(lines.allSatisfy { $0.contains("\"landmarks\":[[{") }, "a frame without its pose")
    }

    func testHandVideoEqualsCLIJSONLines() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let frames = 6
        let expected = try cliLines(["gesture", Paths.model("gesture_recognizer.task"), Paths.video("hand_gesture_fist_thumbsup.mp4"),
                                     "--video", "--max-frames", "\(frames)"])
        let answer = try server.post("/v1/gesture/video?name=hand_gesture_fist_thumbsup.mp4&maxFrames=\(frames)&numHands=2",
                                     file: Paths.video("hand_gesture_fist_thumbsup.mp4"), type: "video/mp4")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text.split(separator: "\n").map(String.init), expected)
    }

    /// The real executable: SIGTERM while a clip is streamed lets the clip finish, then the process exits 0 and the
    /// port is closed.
    func testSIGTERMDrainsTheRequestsInFlight() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.serverBinary())
        process.arguments = ["serve", "--models", Paths.models, "--port", "0", "--slots", "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        while !text.contains("\n") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let port = try XCTUnwrap(text.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, text)
        for _ in 0..<1200 where (try? LoopbackHTTP.request(port: port, path: "/readyz").status) != 200 { usleep(100_000) }
        let frames = 24
        let clip = try Data(contentsOf: URL(fileURLWithPath: Paths.video("full_body_juggle.mp4")))
        let socket = try LoopbackHTTP.connect(port: port)
        defer { close(socket) }
        try LoopbackHTTP.send(socket, LoopbackHTTP.head(method: "POST", path: "/v1/pose/video?maxFrames=\(frames)&numPoses=1",
                                                       headers: ["Content-Type": "video/mp4"], contentLength: clip.count) + clip)
        // The first line has come: the request is in flight.
        var received = Data()
        var byte: UInt8 = 0
        while !String(decoding: received, as: UTF8.self).contains("}\n") {
            guard recv(socket, &byte, 1, 0) == 1 else { break }
            received.append(byte)
        }
        kill(process.processIdentifier, SIGTERM)
        received.append(try LoopbackHTTP.readAll(socket))
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        let answer = try LoopbackHTTP.parse(received)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text.split(separator: "\n").count, frames, "the clip was cut short by the shutdown")
        XCTAssertThrowsError(try LoopbackHTTP.connect(port: port), "still listening after the drain")
    }
}
