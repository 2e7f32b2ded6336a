import Foundation
import VisionTasksImaging
import VisionTasks
import VisionTasksTestSupport
import XCTest

final class PoseLandmarkerAPITests: XCTestCase {
    private func options(_ mode: RunningMode = .image) -> PoseLandmarkerOptions {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
        options.runningMode = mode
        return options
    }

    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    func testOptionsOutOfRangeAreTypedErrors() {
        let cases: [(PoseLandmarkerOptions) -> Void] = [
            { $0.numPoses = 0 }, { $0.minPoseDetectionConfidence = 1.5 }, { $0.minPosePresenceConfidence = -0.1 },
            { $0.minTrackingConfidence = .nan },
        ]
        for change in cases {
            let o = options()
            change(o)
            XCTAssertThrowsError(try PoseLandmarker(options: o)) { error in
                guard case .invalidOption = error as? VisionTaskError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertThrowsError(try PoseLandmarker(options: options(.liveStream))) { error in
            XCTAssertEqual(error as? VisionTaskError, .missingLiveStreamDelegate)
        }
    }

    func testWrongModelAndMissingFileAreTypedErrors() {
        let o = options()
        o.baseOptions.modelAssetPath = Repository.modelPath("face_landmarker.task")
        XCTAssertThrowsError(try PoseLandmarker(options: o)) { error in
            guard case .wrongModel = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        o.baseOptions.modelAssetPath = "/nonexistent/pose.task"
        XCTAssertThrowsError(try PoseLandmarker(options: o)) { error in
            guard case .model = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
    }

    func testMethodsMustMatchTheRunningModeAndTimestampsIncrease() throws {
        let frame = try image("pose1.jpg")
        let imageMode = try PoseLandmarker(options: options())
        XCTAssertThrowsError(try imageMode.detect(videoFrame: frame, timestampInMilliseconds: 0)) { error in
            guard case .wrongRunningMode = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        let video = try PoseLandmarker(options: options(.video))
        XCTAssertThrowsError(try video.detect(image: frame))
        _ = try video.detect(videoFrame: frame, timestampInMilliseconds: 10)
        XCTAssertThrowsError(try video.detect(videoFrame: frame, timestampInMilliseconds: 10)) { error in
            XCTAssertEqual(error as? VisionTaskError, .nonIncreasingTimestamp(previous: 10, current: 10))
        }
        // A rejected frame loses nothing: the next good one still tracks.
        XCTAssertEqual(try video.detect(videoFrame: frame, timestampInMilliseconds: 20).landmarks.count, 1)
    }

    final class Recorder: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
        let lock = NSLock()
        var timestamps: [Int] = []
        var poses: [Int] = []
        var inside = false
        var overlapped = false
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            lock.lock()
            if inside { overlapped = true }
            inside = true
            timestamps.append(timestampInMilliseconds)
            poses.append(result?.landmarks.count ?? -1)
            lock.unlock()
            usleep(500)  // long enough for a second, concurrent delivery to show itself
            lock.lock(); inside = false; lock.unlock()
        }
    }

    /// Frames sent faster than they can be processed: results arrive in timestamp order, busy-time frames are
    /// dropped, memory does not grow, and the landmarker shuts down cleanly.
    func testLiveStreamDropsFramesAndDeliversInOrder() throws {
        let recorder = Recorder()
        let o = options(.liveStream)
        o.poseLandmarkerLiveStreamDelegate = recorder
        var landmarker: PoseLandmarker? = try PoseLandmarker(options: o)
        let frame = try image("pose4.jpg")
        var residentAfterWarmup = 0
        for t in 0..<400 {
            try landmarker!.detectAsync(image: frame, timestampInMilliseconds: t)
            if t == 100 {
                landmarker!.waitUntilIdle()
                residentAfterWarmup = Self.residentKilobytes()
            }
            usleep(1000)  // a 1 kHz source: far faster than one frame's processing
        }
        landmarker!.waitUntilIdle()
        let residentAtEnd = Self.residentKilobytes()
        XCTAssertThrowsError(try landmarker!.detectAsync(image: frame, timestampInMilliseconds: 399)) { error in
            XCTAssertEqual(error as? VisionTaskError, .nonIncreasingTimestamp(previous: 399, current: 399))
        }
        landmarker = nil  // clean shutdown: nothing in flight, the queues go with it
        recorder.lock.lock(); defer { recorder.lock.unlock() }
        XCTAssertGreaterThan(recorder.timestamps.count, 5)
        XCTAssertLessThan(recorder.timestamps.count, 400, "no frame was dropped")
        XCTAssertEqual(recorder.timestamps, recorder.timestamps.sorted(), "results out of order")
        XCTAssertEqual(Set(recorder.timestamps).count, recorder.timestamps.count)
        XCTAssertTrue(recorder.poses.allSatisfy { $0 == 1 }, "\(recorder.poses)")
        XCTAssertFalse(recorder.overlapped, "results must arrive one at a time, on one serial queue")
        XCTAssertLessThan(residentAtEnd - residentAfterWarmup, 20_000, "resident memory grew by \(residentAtEnd - residentAfterWarmup) kB")
    }

    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
