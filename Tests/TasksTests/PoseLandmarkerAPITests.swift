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
        // The source outlasts a dozen frames' processing whatever this build's speed (a debug build, or qemu's
        // emulated arm64 at 20-30 times slower): results keep coming at the pipeline's own pace, the rest are dropped.
        let frames = max(400, Int((12 * (try frameSeconds(frame)) / 0.001).rounded(.up)))
        var residentAfterWarmup = 0
        for t in 0..<frames {
            try landmarker!.detectAsync(image: frame, timestampInMilliseconds: t)
            if t == 100 {
                landmarker!.waitUntilIdle()
                residentAfterWarmup = Self.residentKilobytes()
            }
            usleep(1000)  // a 1 kHz source: far faster than one frame's processing
        }
        landmarker!.waitUntilIdle()
        let residentAtEnd = Self.residentKilobytes()
        XCTAssertThrowsError(try landmarker!.detectAsync(image: frame, timestampInMilliseconds: frames - 1)) { error in
            XCTAssertEqual(error as? VisionTaskError, .nonIncreasingTimestamp(previous: frames - 1, current: frames - 1))
        }
        landmarker = nil  // clean shutdown: nothing in flight, the queues go with it
        recorder.lock.lock(); defer { recorder.lock.unlock() }
        XCTAssertGreaterThan(recorder.timestamps.count, 5)
        XCTAssertLessThan(recorder.timestamps.count, frames, "no frame was dropped")
        XCTAssertEqual(recorder.timestamps, recorder.timestamps.sorted(), "results out of order")
        XCTAssertEqual(Set(recorder.timestamps).count, recorder.timestamps.count)
        XCTAssertTrue(recorder.poses.allSatisfy { $0 == 1 }, "\(recorder.poses)")
        XCTAssertFalse(recorder.overlapped, "results must arrive one at a time, on one serial queue")
        XCTAssertLessThan(residentAtEnd - residentAfterWarmup, 20_000, "resident memory grew by \(residentAtEnd - residentAfterWarmup) kB")
    }

    /// One frame's processing in this build on this machine (the second of two image-mode detections: the first
    /// warms the caches): what the live-stream tests pace their sources by, instead of assuming a fast machine.
    private func frameSeconds(_ frame: MPImage) throws -> Double {
        let landmarker = try PoseLandmarker(options: options())
        _ = try landmarker.detect(image: frame)
        let started = DispatchTime.now().uptimeNanoseconds
        _ = try landmarker.detect(image: frame)
        return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }

    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

extension PoseLandmarkerAPITests {
    func testMissingModelPathIsATypedError() {
        let o = options()
        o.baseOptions.modelAssetPath = nil
        XCTAssertThrowsError(try PoseLandmarker(options: o)) { error in
            XCTAssertEqual(error as? VisionTaskError, .invalidOption(name: "baseOptions.modelAssetPath", reason: "no model path is set"))
        }
    }

    /// Options are copied whole at creation: later changes do not reach the task, and `copy()` keeps every value.
    func testOptionsAreCopied() throws {
        let o = options(.video)
        o.numPoses = 2
        o.minPoseDetectionConfidence = 0.25
        o.minPosePresenceConfidence = 0.3
        o.minTrackingConfidence = 0.35
        o.outputSegmentationMasks = true
        let copy = o.copy()
        XCTAssertEqual(copy.baseOptions, o.baseOptions)
        XCTAssertEqual(copy.runningMode, .video)
        XCTAssertEqual(copy.numPoses, 2)
        XCTAssertEqual(copy.minPoseDetectionConfidence, 0.25)
        XCTAssertEqual(copy.minPosePresenceConfidence, 0.3)
        XCTAssertEqual(copy.minTrackingConfidence, 0.35)
        XCTAssertTrue(copy.outputSegmentationMasks)
        let landmarker = try PoseLandmarker(options: o)
        o.runningMode = .image
        o.outputSegmentationMasks = false
        let result = try landmarker.detect(videoFrame: try image("pose1.jpg"), timestampInMilliseconds: 0)
        XCTAssertEqual(result.segmentationMasks.count, 1, "a change after creation reached the landmarker")
    }

    final class WaitingDelegate: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
        let lock = NSLock()
        var delivered: [Int] = []
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            poseLandmarker.waitUntilIdle()  // from the delivery queue: must not wait for itself
            lock.lock(); delivered.append(timestampInMilliseconds); lock.unlock()
        }
    }

    /// `waitUntilIdle()` inside a callback returns (it once deadlocked on its own queue), and `close()` finishes
    /// what was accepted, then refuses input with a typed error.
    func testWaitUntilIdleFromTheDelegateAndClose() throws {
        let delegate = WaitingDelegate()
        let o = options(.liveStream)
        o.poseLandmarkerLiveStreamDelegate = delegate
        let landmarker = try PoseLandmarker(options: o)
        let frame = try image("pose1.jpg")
        for t in 0..<3 {
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: t)
            landmarker.waitUntilIdle()
        }
        landmarker.close()
        delegate.lock.lock()
        XCTAssertEqual(delegate.delivered, [0, 1, 2])
        delegate.lock.unlock()
        XCTAssertThrowsError(try landmarker.detectAsync(image: frame, timestampInMilliseconds: 10)) { error in
            XCTAssertEqual(error as? VisionTaskError, .taskClosed)
        }
    }

    func testClassifierOptionsRefuseAllowAndDenyTogether() {
        let both = ClassifierOptions(categoryAllowlist: ["cat"], categoryDenylist: ["dog"])
        XCTAssertThrowsError(try both.validate(as: "classifierOptions")) { error in
            guard case .invalidOption(let name, _) = error as? VisionTaskError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "classifierOptions.categoryAllowlist")
        }
        let categories = [Category(index: 0, score: 0.9, categoryName: "cat"), Category(index: 1, score: 0.6, categoryName: "dog"),
                          Category(index: 2, score: 0.2, categoryName: "bird")]
        XCTAssertEqual(ClassifierOptions(maxResults: 1).filter(categories).map(\.index), [0])
        XCTAssertEqual(ClassifierOptions(scoreThreshold: 0.5).filter(categories).map(\.index), [0, 1])
        XCTAssertEqual(ClassifierOptions(categoryDenylist: ["cat"]).filter(categories).map(\.index), [1, 2])
        XCTAssertEqual(ClassifierOptions(categoryAllowlist: ["bird"]).filter(categories).map(\.index), [2])
    }
}

extension PoseLandmarkerAPITests {
    /// Holds every result until the test opens the gate; records results and dropped frames in arrival order.
    final class GatedDelegate: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
        let gate = DispatchSemaphore(value: 0)
        let lock = NSLock()
        var answers: [(timestamp: Int, kind: String)] = []
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            gate.wait()
            lock.lock(); answers.append((timestampInMilliseconds, result != nil ? "result" : "error")); lock.unlock()
        }
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            lock.lock(); answers.append((timestamp, "dropped")); lock.unlock()
        }
    }

    /// Every `detectAsync` call is answered exactly once — a result, an error or a dropped-frame notice — in
    /// timestamp order, and a delegate stuck in its first callback does not hold up the caller: all frames are
    /// submitted while the gate is still closed (no timing is asserted; a blocked caller would never finish).
    func testEveryLiveStreamFrameIsAnsweredAndASlowDelegateNeverBlocksTheCaller() throws {
        let delegate = GatedDelegate()
        let o = options(.liveStream)
        o.poseLandmarkerLiveStreamDelegate = delegate
        let landmarker = try PoseLandmarker(options: o)
        let frame = try image("pose1.jpg")
        let frames = 60
        let submitted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for t in 0..<frames { try? landmarker.detectAsync(image: frame, timestampInMilliseconds: t) }
            submitted.signal()
        }
        // A liveness bound, not a timing claim: the caller is blocked only if this never returns.
        XCTAssertEqual(submitted.wait(timeout: .now() + 120), .success, "detectAsync waited for the delegate")
        for _ in 0..<frames { delegate.gate.signal() }
        landmarker.waitUntilIdle()
        delegate.lock.lock(); defer { delegate.lock.unlock() }
        XCTAssertEqual(delegate.answers.map(\.timestamp), Array(0..<frames), "each call answered once, in order")
        XCTAssertTrue(delegate.answers.contains { $0.kind == "dropped" }, "frames sent while one was in flight")
        XCTAssertEqual(delegate.answers.first?.kind, "result")
        // MediaPipe's flow limiter (max_in_queue 1) keeps the newest frame sent during processing and runs it next.
        XCTAssertEqual(delegate.answers.last?.kind, "result", "the last frame sent waited and was processed")
        XCTAssertFalse(delegate.answers.contains { $0.kind == "error" })
    }
}

extension PoseLandmarkerAPITests {
    /// While the delegate is stuck in a callback, at most two results wait for it; later frames are not processed:
    /// the newest waits, the ones it replaces are dropped (and said so), so nothing piles up in memory. Frames come
    /// every 30 ms, slower than one is processed, so without the bound every one of them would be processed and
    /// queued. The waiting frame — the last one — starts once the delegate has taken a result.
    func testResultsWaitingForASlowDelegateAreBounded() throws {
        let delegate = GatedDelegate()
        let o = options(.liveStream)
        o.poseLandmarkerLiveStreamDelegate = delegate
        let landmarker = try PoseLandmarker(options: o)
        let frame = try image("pose1.jpg")
        let frames = 20
        // Frames come at 30 ms, or half again one frame's processing where that is longer (qemu's emulated arm64):
        // the pipeline is idle when each frame arrives, so only the stuck delegate decides what waits.
        let interval = max(0.030, 1.5 * (try frameSeconds(frame)))
        for t in 0..<frames {
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: t)
            usleep(UInt32(interval * 1e6))
        }
        for _ in 0..<frames { delegate.gate.signal() }
        landmarker.waitUntilIdle()
        delegate.lock.lock(); defer { delegate.lock.unlock() }
        XCTAssertEqual(delegate.answers.map(\.timestamp), Array(0..<frames))
        let results = delegate.answers.filter { $0.kind == "result" }.map(\.timestamp)
        // Which frame gives the second result depends on how long the first took (the debug build: 30–60 ms here).
        XCTAssertEqual(results.count, 3, "two results wait for the stuck delegate, then the newest frame: \(results)")
        XCTAssertEqual(results.first, 0)
        XCTAssertEqual(results.last, frames - 1)
    }
}

extension PoseLandmarkerAPITests {
    final class Answers: PoseLandmarkerLiveStreamDelegate, Sendable {
        let answers = LiveStreamAnswers<PoseLandmarkerResult>()
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            answers.finished(result, timestamp: timestampInMilliseconds, error: error)
        }
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answers.dropped(timestamp: timestamp)
        }
    }

    /// In live stream the segmentation masks are projected on the delivery queue, after the pipeline has moved on
    /// to the next frame; fed one frame per answer (nothing dropped), the results are video mode's, value for value.
    func testLiveStreamProjectsMasksAsVideoModeDoes() throws {
        let decoded = try videoFrames("full_body_juggle.mp4", count: 6)
        let video = options(.video), live = options(.liveStream)
        video.outputSegmentationMasks = true
        live.outputSegmentationMasks = true
        let delegate = Answers()
        live.poseLandmarkerLiveStreamDelegate = delegate
        let videoLandmarker = try PoseLandmarker(options: video), liveLandmarker = try PoseLandmarker(options: live)
        let results = try delegate.answers.feed(decoded) { try liveLandmarker.detectAsync(image: $0, timestampInMilliseconds: $1) }
        for frame in decoded {
            let expected = try videoLandmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            let result = try XCTUnwrap(results[frame.timestamp])
            XCTAssertEqual(expected.segmentationMasks.count, 1, "\(frame.timestamp)")
            XCTAssertEqual(result.landmarks, expected.landmarks, "\(frame.timestamp)")
            XCTAssertEqual(result.worldLandmarks, expected.worldLandmarks, "\(frame.timestamp)")
            XCTAssertEqual(result.segmentationMasks, expected.segmentationMasks, "\(frame.timestamp)")
        }
    }
}
