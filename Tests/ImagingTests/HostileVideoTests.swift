import Foundation
@testable import VisionTasksImaging
import VisionTasksTestSupport
@testable import VisionTasksTooling
import XCTest

/// Hostile video paths and damaged clips (issue #30): the path is always a file, ffmpeg's failures are typed errors
/// after the good frames, its messages cannot deadlock the reader, and absurd frame rates are refused.
final class HostileVideoTests: XCTestCase {
    private static let clip = Repository.shared.appendingPathComponent("videos/highway_traffic_bgslibrary.avi")
    private var directory: URL!

    override func setUpWithError() throws {
        // ffmpeg is a dependency tools/setup installs: without it these tests fail rather than pass unseen.
        struct MissingFFmpeg: Error, CustomStringConvertible { var description: String { "ffmpeg is not on PATH: run tools/setup" } }
        guard VideoDecoderTestSupport.ffmpegInstalled else { throw MissingFFmpeg() }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-video-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A decoder let go of before its clip's end — the worker's `maxFrames` and `endMs`, the service's gone client —
    /// stops and reaps its ffmpeg, dropped or closed: left to itself ffmpeg blocked on its full output pipe for ever,
    /// one process per truncated clip in a long-lived worker.
    func testADecoderLetGoBeforeTheClipsEndStopsFFmpeg() throws {
        let clip = Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path
        var stopped: [Int32] = []
        for closesExplicitly in [false, true, false] {
            let decoder = try VideoDecoder(path: clip)
            XCTAssertNotNil(try decoder.nextFrame())
            stopped.append(decoder.processIdentifier)
            if closesExplicitly {
                decoder.close()
                XCTAssertNil(try decoder.nextFrame(), "a closed decoder has no more frames")
            }
        }
        // Gone and reaped: kill(pid, 0) also succeeds on a zombie.
        for pid in stopped {
            XCTAssertEqual(kill(pid, 0), -1, "ffmpeg \(pid) is still there")
            XCTAssertEqual(errno, ESRCH)
        }
    }

    /// Runs `body` with the temporary directory as the current one, so paths can be relative (a relative path is
    /// what an attacker controls: `-clip.avi` on a command line).
    private func inDirectory<R>(_ body: () throws -> R) throws -> R {
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        return try body()
    }

    /// Names that ffmpeg would read as an option (`-clip.avi`) or a protocol (`concat:-clip.avi`) decode as the
    /// files they name.
    func testOptionAndProtocolLookingNamesAreFiles() throws {
        for name in ["-clip.avi", "concat:-clip.avi"] {
            try FileManager.default.copyItem(at: Self.clip, to: directory.appendingPathComponent(name))
        }
        try inDirectory {
            for name in ["-clip.avi", "concat:-clip.avi"] {
                let decoder = try VideoDecoder(path: name)
                XCTAssertEqual([decoder.width, decoder.height], [320, 240], name)
                XCTAssertEqual(decoder.framesPerSecond, 25, name)
                let first = try XCTUnwrap(try decoder.nextFrame(), name)
                XCTAssertEqual(first.label, "\(name)#0")
                XCTAssertEqual(first.timestampMs, 0)
                XCTAssertEqual(try decoder.nextFrame()?.timestampMs, 40)
            }
            // Missing files, whatever the name looks like to ffmpeg.
            for name in ["concat:a|b", "http://127.0.0.1:1/x", "-i"] {
                XCTAssertThrowsError(try VideoDecoder(path: name), name) { error in
                    XCTAssertEqual(error as? VideoDecoder.VideoError,
                                   .fileUnreadable(path: name, reason: "No such file or directory"), name)
                }
            }
        }
    }

    /// The first half of a real clip: its good frames come out, then ffmpeg's failure as a typed error naming the
    /// file and carrying ffmpeg's message, not a silent end.
    func testTruncatedClipDeliversGoodFramesThenThrows() throws {
        let bytes = try Data(contentsOf: Self.clip)
        let half = directory.appendingPathComponent("half.avi")
        try bytes.prefix(bytes.count / 2).write(to: half)
        let decoder = try VideoDecoder(path: half.path)
        var frames = 0
        do {
            while try decoder.nextFrame() != nil { frames += 1 }
            XCTFail("a clip cut in half ended silently after \(frames) frames")
        } catch let error as VideoDecoder.VideoError {
            guard case let .decodeFailed(path, frame, message) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, half.path)
            XCTAssertEqual(frame, frames)
            XCTAssertGreaterThan(frames, 100, "the good frames before the cut come out")
            XCTAssertTrue(message.hasPrefix("ffmpeg exited with status"), message)
            XCTAssertTrue(message.contains("corrupt"), message)
        }
        XCTAssertNil(try decoder.nextFrame(), "after the error, the end")
        // The whole clip still ends cleanly, with the 748 frames ffmpeg decodes (its AVI header counts 750).
        let whole = try VideoDecoder(path: Self.clip.path)
        var count = 0
        while try whole.nextFrame() != nil { count += 1 }
        XCTAssertEqual(count, 748)
    }

    /// A child that writes 2 MB to stderr before its stdout: read one after the other this deadlocks once the
    /// stderr pipe (64 KiB) fills; drained concurrently, only the last 64 KiB are kept.
    func testStderrFloodIsDrainedWhileStdoutIsRead() throws {
        let flood = try VideoDecoder.run("/bin/sh", ["-c", "head -c 2000000 /dev/zero | tr '\\0' x >&2; echo done; exit 3"])
        XCTAssertEqual(flood.output, "done\n")
        XCTAssertEqual(flood.messages.utf8.count, VideoDecoder.messageTailByteCount)
        XCTAssertTrue(flood.messages.allSatisfy { $0 == "x" })
        XCTAssertEqual(flood.status, 3)
        XCTAssertEqual(flood.ending, "exited with status 3")
        let killed = try VideoDecoder.run("/bin/sh", ["-c", "kill -9 $$"])
        XCTAssertEqual(killed.ending, "killed by signal 9")
    }

    /// Frame rates of 0, negative, NaN, infinite, 1/5000 and 1e-10 fps, and above 1000 fps, are typed errors (a
    /// timestamp is round(i × 1000 / fps) ms: a tiny rate would overflow its conversion to Int).
    func testAbsurdFrameRatesAreRefused() throws {
        for text in ["0/1", "-25/1", "25/-1", "25/0", "nan/1", "inf/1", "1/5000", "1e-10/1", "1/1e10", "90000/1", "", "25", "1/2/3", "x/y"] {
            XCTAssertThrowsError(try VideoDecoder.framesPerSecond(parsing: text, path: "clip.mp4"), text) { error in
                guard case let .probeFailed("clip.mp4", message)? = error as? VideoDecoder.VideoError,
                      message.hasPrefix("frame rate '\(text)'") else { return XCTFail("\(text): \(error)") }
            }
        }
        XCTAssertEqual(try VideoDecoder.framesPerSecond(parsing: "30000/1001", path: "clip.mp4"), 30000 / 1001)
        XCTAssertEqual(try VideoDecoder.framesPerSecond(parsing: "1/10", path: "clip.mp4"), 0.1)
        // A real file that declares 1/5000 fps (two frames of a 16×16 colour, made by ffmpeg itself).
        let slow = directory.appendingPathComponent("slow.mkv").path
        let made = try VideoDecoder.run(try XCTUnwrap(VideoDecoderTestSupport.ffmpeg),
                                        ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=16x16:r=1/5000",
                                         "-frames:v", "2", slow])
        XCTAssertEqual(made.status, 0, made.messages)
        // The error quotes ffprobe's r_frame_rate, a guess from the timestamps: ffprobe 5.1 reads this file (packets
        // 5000 s apart) as 1/5000, ffprobe 7.1 as 1/2500; either is far below the range.
        let probe = try VideoDecoder.run("/usr/bin/env", [
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=r_frame_rate", "-of", "default=noprint_wrappers=1:nokey=1", slow,
        ])
        let rate = probe.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = rate.split(separator: "/").compactMap { Double($0) }
        XCTAssertEqual(parts.count, 2, rate)
        if parts.count == 2 { XCTAssertLessThan(parts[0] / parts[1], VideoDecoder.framesPerSecondRange.lowerBound, rate) }
        XCTAssertThrowsError(try VideoDecoder(path: slow)) { error in
            guard case let .probeFailed(_, message)? = error as? VideoDecoder.VideoError, message.hasPrefix("frame rate '\(rate)'") else {
                return XCTFail("\(error)")
            }
        }
    }

    /// A FIFO would block ffprobe's open forever: refused from `stat`, like directories.
    func testNonRegularFilesAreRefused() throws {
        let fifo = directory.appendingPathComponent("clip.mp4").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for path in [fifo, directory.path, "/dev/zero"] {
            XCTAssertThrowsError(try VideoDecoder(path: path)) { error in
                XCTAssertEqual(error as? VideoDecoder.VideoError, .fileUnreadable(path: path, reason: "not a regular file"))
            }
        }
    }
}

enum VideoDecoderTestSupport {
    static let ffmpeg: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/ffmpeg" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
    static var ffmpegInstalled: Bool { ffmpeg != nil }
}
