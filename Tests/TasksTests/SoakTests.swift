import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// Memory over a long video: the pose landmarker in video mode over full_body_juggle.mp4 looped eight times
/// (1,976 frames, tracking and smoothing on) keeps its resident memory flat once warmed up.
final class SoakTests: XCTestCase {
    func testPoseVideoMemoryStopsGrowingAfterWarmUp() throws {
        let looped = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(getpid()).mp4").path
        defer { try? FileManager.default.removeItem(atPath: looped) }
        let ffmpeg = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-stream_loop", "7", "-i",
            Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path, "-c", "copy", looped,
        ])
        XCTAssertEqual(ffmpeg.status, 0, ffmpeg.stderr)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
        options.runningMode = .video
        let landmarker = try PoseLandmarker(options: options)
        let video = try VideoDecoder(path: looped)
        var samples: [(frame: Int, kilobytes: Int)] = []
        var frames = 0, poses = 0
        while let frame = try video.nextFrame() {
            poses += try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs).landmarks.count
            frames += 1
            if frames % 250 == 0 { samples.append((frames, PoseLandmarkerAPITests.residentKilobytes())) }
        }
        print("soak: \(frames) frames, \(poses) poses, resident kB by frame: \(samples.map { "\($0.frame): \($0.kilobytes)" })")
        XCTAssertEqual(frames, 1976)
        XCTAssertGreaterThan(poses, frames * 9 / 10)
        // After the first 250 frames (warm-up: buffers and caches reach their sizes), at most 4 MB more: 2 kB a
        // frame kept would already exceed it.
        let warmed = try XCTUnwrap(samples.first).kilobytes
        let growth = (samples.map(\.kilobytes).max() ?? warmed) - warmed
        XCTAssertLessThanOrEqual(growth, 4096, "resident memory grew by \(growth) kB after warm-up")
    }
}
