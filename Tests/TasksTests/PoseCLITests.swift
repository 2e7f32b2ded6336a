import Foundation
import VisionTasksTestSupport
import XCTest

/// `vision-tasks pose` as a user runs it (the debug binary beside this bundle): streamed JSON lines, the live stream
/// answered frame by frame, and bad arguments refused before any work.
final class PoseCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
    private let model = Repository.modelPath("pose_landmarker_lite.task")
    private let clip = Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path

    private func lines(_ outcome: ChildProcess.Outcome) throws -> [[String: Any]] {
        try outcome.output.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func testVideoStreamsOneJSONLinePerFrame() throws {
        let outcome = try ChildProcess.run(binary, ["pose", model, clip, "--video", "--max-frames", "4", "--jsonl", "-", "--no-segmentation"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let entries = try lines(outcome)
        XCTAssertEqual(entries.compactMap { $0["image"] as? String }, (0..<4).map { "full_body_juggle.mp4#\($0)" })
        XCTAssertEqual(entries.compactMap { $0["timestampMs"] as? Int }, [0, 42, 83, 125])
        for entry in entries {
            let landmarks = try XCTUnwrap((entry["result"] as? [String: Any])?["landmarks"] as? [[Any]])
            XCTAssertEqual(landmarks.map(\.count), [33])
            // Our identities beside MediaPipe's fields: the one person is 0 in every frame.
            XCTAssertEqual((entry["result"] as? [String: Any])?["identities"] as? [Int], [0])
        }
        // Image mode has none, and no key.
        let photo = try ChildProcess.run(binary, ["pose", model, Repository.shared.appendingPathComponent("images/pose1.jpg").path,
                                                  "--jsonl", "-", "--no-segmentation", "--quiet"])
        XCTAssertEqual(photo.status, 0, photo.stderr)
        XCTAssertNil(try lines(photo).first.flatMap { ($0["result"] as? [String: Any])?["identities"] })
    }

    /// Every frame fed through the live stream is answered by one line — a result or `"dropped": true` — in order,
    /// and the summary's counts add up.
    func testLiveStreamAnswersEveryFrame() throws {
        let outcome = try ChildProcess.run(binary, ["pose", model, clip, "--live-stream", "--no-pacing", "--max-frames", "20",
                                                    "--jsonl", "-", "--no-segmentation"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let entries = try lines(outcome)
        XCTAssertEqual(entries.compactMap { $0["timestampMs"] as? Int }, (0..<20).map { Int((Double($0) * 1000 / 24).rounded(.toNearestOrEven)) })
        let dropped = entries.filter { $0["dropped"] as? Bool == true }.count
        let results = entries.filter { $0["result"] != nil }.count
        XCTAssertEqual(results + dropped, 20)
        XCTAssertGreaterThan(results, 0)
        // Identities in the live stream too: the one person is 0 in every answered frame, dropped frames between.
        for entry in entries where entry["result"] != nil {
            XCTAssertEqual((entry["result"] as? [String: Any])?["identities"] as? [Int], [0])
        }
        XCTAssertTrue(outcome.stderr.contains("frames 20, results \(results), dropped \(dropped)"), outcome.stderr)
    }

    /// `--jsonl` and `--json` to a pipe or a device (`/dev/stdout`, `/dev/null`) write into it. Foundation's
    /// `createFile` and atomic writes rename a temporary file over the path: run as root, that once replaced
    /// /dev/null itself with a regular file. Checked on a FIFO of our own: it must still be one, and carry the lines.
    func testJSONOutputsWriteIntoPipesInsteadOfReplacingThem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pose-cli-fifo-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for option in ["--jsonl", "--json"] {
            let fifo = directory.appendingPathComponent("out\(option)").path
            XCTAssertEqual(mkfifo(fifo, 0o600), 0)
            let read = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var received = Data()
            Thread {
                // Blocks until the command opens the pipe for writing; reads until it closes it.
                if let handle = FileHandle(forReadingAtPath: fifo) { received = handle.readDataToEndOfFile() }
                read.signal()
            }.start()
            let outcome = try ChildProcess.run(binary, ["pose", model, clip, "--video", "--max-frames", "2", option, fifo, "--no-segmentation", "--quiet"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            XCTAssertEqual(read.wait(timeout: .now() + 30), .success, "\(option): nothing was written into the pipe")
            var status = stat()
            XCTAssertEqual(stat(fifo, &status), 0)
            XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "\(option) replaced the pipe")
            let text = String(decoding: received, as: UTF8.self)
            XCTAssertEqual(text.components(separatedBy: "full_body_juggle.mp4#").count - 1, 2, "\(option): \(text.prefix(200))")
            // A device of our own, where we may make one (root, as CI runs): the null device's numbers under a
            // temporary name (Linux numbers major 1, minor 3 as 1 << 8 | 3; makedev is a macro Swift does not see).
            // (Before the fix `--json` replaced both the FIFO and the device with regular files; `--jsonl`, through
            // Foundation's createFile, replaced /dev/null in a manual run but not these in the test.)
            let device = directory.appendingPathComponent("null\(option)").path
            if mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 {
                let outcome = try ChildProcess.run(binary, ["pose", model, clip, "--video", "--max-frames", "1", option, device, "--no-segmentation", "--quiet"])
                XCTAssertEqual(outcome.status, 0, outcome.stderr)
                XCTAssertEqual(stat(device, &status), 0)
                XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "\(option) replaced the device")
            }
        }
    }

    func testBadArgumentsFailBeforeAnyWork() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pose-cli-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jsonl = directory.appendingPathComponent("out.jsonl").path
        for (arguments, message) in [
            (["--threads", "0", "--jsonl", jsonl], "--threads must be between 1 and"),
            (["--threads", "100000", "--jsonl", jsonl], "--threads must be between 1 and"),
            (["--jsonl", "/nonexistent-directory/out.jsonl"], "--jsonl: cannot write"),
            (["--json", "/nonexistent-directory/out.json"], "--json: cannot write"),
            (["--live-stream", "--video"], "two running modes"),
        ] {
            let outcome = try ChildProcess.run(binary, ["pose", model, clip] + arguments)
            XCTAssertNotEqual(outcome.status, 0, "\(arguments)")
            XCTAssertTrue(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stdout.isEmpty, "\(arguments): wrote \(outcome.output)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: jsonl), "\(arguments): a file was written")
        }
    }
}
