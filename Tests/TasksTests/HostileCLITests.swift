import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// Issue #30 on `vision-tasks`: extreme numbers on the command line are usage errors from the argument parser that
/// name the option (exit status 64), never a trap; a clip whose frame rate is 1/5000 is paced without sleeping
/// for hours.
final class HostileCLITests: XCTestCase {
    private let binary = ChildProcess.buildDirectory.appendingPathComponent("vision-tasks")
    private let pose = Repository.modelPath("pose_landmarker_lite.task")
    private let image = Repository.shared.appendingPathComponent("images/pose1.jpg").path

    private struct Outcome {
        let reason: Process.TerminationReason
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the command with both pipes drained concurrently and a deadline: a command that hangs (or sleeps for
    /// hours) fails the test instead of stalling it.
    private func run(_ arguments: [String], deadline: TimeInterval = 120, file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let drained = DispatchGroup()
        // Drained at once: a child writing more than a pipe's 64 KB to one stream would otherwise stall.
        let read = Locked<[Int: Data]>([:])
        for (index, pipe) in [out, err].enumerated() {
            DispatchQueue.global().async(group: drained) {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                read.withLock { $0[index] = data }
            }
        }
        if exited.wait(timeout: .now() + deadline) == .timedOut {
            process.terminate()
            XCTFail("\(arguments.joined(separator: " ")) ran past \(deadline) s", file: file, line: line)
            exited.wait()
        }
        drained.wait()
        return Outcome(reason: process.terminationReason, status: process.terminationStatus,
                       stdout: String(decoding: read.withLock { $0[0] ?? Data() }, as: UTF8.self),
                       stderr: String(decoding: read.withLock { $0[1] ?? Data() }, as: UTF8.self))
    }

    /// Each hostile number: refused by the parser (ArgumentParser's usage status, 64), a message naming the
    /// option, nothing on standard output, and an exit — not a signal.
    func testExtremeNumbersAreUsageErrorsNamingTheOption() throws {
        let detector = Repository.modelPath("ssd_mobilenet_v1.tflite")
        let crop = ["image", "crop", image, "--out", "/nonexistent/never.npy"]
        let cases: [(arguments: [String], option: String)] = [
            (["model", "run", detector, "--repeat", "9223372036854775807"], "--repeat"),
            (["model", "run", detector, "--repeat", "9223372036854775806"], "--repeat"),
            (["model", "run", detector, "--profile", "--top=-1"], "--top"),
            (["model", "run", detector, "--threads", "9223372036854775807"], "--threads"),
            (crop + ["--roi", "10,10,10,10,0", "--size", "4294967296x4294967296"], "--size"),
            (crop + ["--roi", "10,10,10,10,0", "--size", "8192x8192"], "--size"),
            (crop + ["--roi", "10,10,10,10,0", "--size", "0x8"], "--size"),
            (crop + ["--roi", "nan,10,10,10,0", "--size", "8x8"], "--roi"),
            (crop + ["--roi", "10,10,1e300,10,0", "--size", "8x8"], "--roi"),
            (crop + ["--roi", "10,10,10,10,0", "--size", "8x8", "--range", "0,inf"], "--range"),
            (["pose", pose, image, image, "--video", "--fps", "1e-10"], "--fps"),
            (["pose", pose, image, image, "--video", "--fps", "nan"], "--fps"),
            (["pose", pose, image, image, "--video", "--fps", "1e300"], "--fps"),
            (["pose", pose, image, "--num-poses", "9223372036854775807"], "--num-poses"),
            (["pose", pose, image, "--num-poses=-1"], "--num-poses"),
            (["face", Repository.modelPath("face_landmarker.task"), image, "--num-faces", "9223372036854775807"], "--num-faces"),
            (["hand", Repository.modelPath("hand_landmarker.task"), image, "--num-hands", "9223372036854775807"], "--num-hands"),
            (["object", detector, image, "--score-threshold", "nan"], "--score-threshold"),
            (["odt", detector, image, "--max-labels", "9223372036854775807"], "--max-labels"),
            (["odt", detector, image, "--threads", "9223372036854775807"], "--threads"),
        ]
        for (arguments, option) in cases {
            let outcome = try run(arguments)
            let command = arguments.joined(separator: " ")
            XCTAssertEqual(outcome.reason, .exit, "\(command): killed by signal \(outcome.status)")
            XCTAssertEqual(outcome.status, 64, "\(command): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(option), "\(command): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "", command)
        }
    }

    /// The largest values in range still run: the ranges refuse only the absurd.
    func testNumbersAtTheTopOfTheirRangeRun() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-cli-\(getpid()).npy").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let crop = try run(["image", "crop", image, "--roi", "10,10,10,10,0", "--size", "8192x8", "--out", out])
        XCTAssertEqual(crop.status, 0, crop.stderr)
        let video = try run(["pose", pose, image, image, "--video", "--fps", "0.001", "--num-poses", "1000", "--jsonl", "-", "--quiet"])
        XCTAssertEqual(video.status, 0, video.stderr)
        let timestamps = video.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["timestampMs"] as? Int
        }
        XCTAssertEqual(timestamps, [0, 1_000_000])
    }

    private func slowClip(framesPerSecond rate: String) throws -> String {
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("slow-\(getpid())-\(rate.replacingOccurrences(of: "/", with: "_")).mp4").path
        let ffmpeg = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=gray:s=64x64:r=\(rate)", "-frames:v", "2",
            "-pix_fmt", "yuv420p", clip,
        ])
        XCTAssertEqual(ffmpeg.status, 0, ffmpeg.stderr)
        return clip
    }

    private func timestamps(_ outcome: Outcome) -> [Int] {
        outcome.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["timestampMs"] as? Int
        }
    }

    /// Clips crafted here with ffmpeg. One frame every 90 s (within what the decoder reads): its second frame is due
    /// 90 s after the first, and live-stream pacing waits at most a second for a frame, so the run ends well inside
    /// a 60 s deadline with both frames answered. One frame every 5000 s (83 minutes): answered the same way, or
    /// refused by the decoder with a message naming the frame rate — never a sleep for hours.
    func testLiveStreamPacingOfVerySlowClipsIsCapped() throws {
        let slow = try slowClip(framesPerSecond: "1/90")
        defer { try? FileManager.default.removeItem(atPath: slow) }
        let outcome = try run(["pose", pose, slow, "--live-stream", "--jsonl", "-", "--no-segmentation", "--quiet"], deadline: 60)
        XCTAssertEqual(outcome.reason, .exit)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(timestamps(outcome), [0, 90_000])

        let slower = try slowClip(framesPerSecond: "1/5000")
        defer { try? FileManager.default.removeItem(atPath: slower) }
        let refusedOrPaced = try run(["pose", pose, slower, "--live-stream", "--jsonl", "-", "--no-segmentation", "--quiet"], deadline: 60)
        XCTAssertEqual(refusedOrPaced.reason, .exit)
        if refusedOrPaced.status == 0 {
            XCTAssertEqual(timestamps(refusedOrPaced), [0, 5_000_000])
        } else {
            XCTAssertTrue(refusedOrPaced.stderr.contains("1/5000"), refusedOrPaced.stderr)
        }
    }

    /// One-character output paths: Foundation's `deletingLastPathComponent` traps on "-", "x" or "x/" on Linux, and
    /// `--json -` once ended the command with SIGILL. `--json -` now writes the document to standard output; "x/"
    /// is a message naming the directory it cannot write.
    func testOneCharacterOutputPathsAreNoTrap() throws {
        let toStandardOutput = try run(["pose", pose, image, "--json", "-", "--no-segmentation", "--quiet"])
        XCTAssertEqual(toStandardOutput.reason, .exit)
        XCTAssertEqual(toStandardOutput.status, 0, toStandardOutput.stderr)
        let document = try JSONSerialization.jsonObject(with: Data(toStandardOutput.stdout.utf8)) as? [String: Any]
        XCTAssertEqual((document?["results"] as? [Any])?.count, 1)
        let both = try run(["pose", pose, image, "--json", "-", "--jsonl", "-"])
        XCTAssertEqual(both.reason, .exit)
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("standard output"), both.stderr)
        let directory = try run(["pose", pose, image, "--json", "nonexistent-x/"])
        XCTAssertEqual(directory.reason, .exit)
        XCTAssertNotEqual(directory.status, 0)
        XCTAssertTrue(directory.stderr.contains("no writable directory nonexistent-x"), directory.stderr)
        let oneCharacter = try run(["pose", pose, image, "--json", "x/"])
        XCTAssertEqual(oneCharacter.reason, .exit)
        XCTAssertTrue(oneCharacter.stderr.contains("no writable directory x"), oneCharacter.stderr)
    }
}
