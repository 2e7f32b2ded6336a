import Foundation
@testable import VisionTasks
import VisionTasksImaging
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Issue #30 on the running-mode core: timestamps a caller may pass by mistake (nanosecond uptime, epoch
/// microseconds), concurrent live-stream callers, NaN landmarks and extreme options — typed errors, never a trap,
/// a hang or a huge allocation.
final class HostileTaskInputTests: XCTestCase {
    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    private func poseOptions(_ mode: RunningMode) -> PoseLandmarkerOptions {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
        options.runningMode = mode
        return options
    }

    /// 9.3·10^12 ms: epoch microseconds in 2264, or uptime in nanoseconds after 2.6 hours.
    private let hostileTimestamp = 9_300_000_000_000

    private func assertOutOfRange(_ timestamp: Int, _ call: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try call(), file: file, line: line) { error in
            XCTAssertEqual(error as? VisionTaskError, .timestampOutOfRange(timestamp, accepted: VisionTaskError.acceptedTimestamps),
                           file: file, line: line)
            XCTAssertTrue("\(error)".contains("\(timestamp) ms"), "\(error)", file: file, line: line)
        }
    }

    /// Video mode with default options (numPoses 1: MediaPipe's smoothing on): the smoother multiplied milliseconds
    /// by 10^6 and trapped. Out-of-range timestamps are refused at admission and lose nothing; the extremes of the
    /// accepted range are smoothed — from the lowest to the highest, an interval that itself exceeds Int64.
    func testVideoTimestampsBeyondNanosecondRangeAreTypedErrors() throws {
        let frame = try image("pose1.jpg")
        let landmarker = try PoseLandmarker(options: poseOptions(.video))
        let accepted = VisionTaskError.acceptedTimestamps
        XCTAssertEqual(accepted.upperBound, 9_223_372_036_854)
        for timestamp in [hostileTimestamp, -hostileTimestamp, .max, .min, accepted.upperBound + 1, accepted.lowerBound - 1] {
            assertOutOfRange(timestamp) { _ = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: timestamp) }
        }
        for timestamp in [accepted.lowerBound, accepted.lowerBound + 1, accepted.upperBound - 1, accepted.upperBound] {
            let result = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: timestamp)
            XCTAssertEqual(result.landmarks.count, 1, "\(timestamp)")
            XCTAssertTrue(result.landmarks.joined().allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "\(timestamp)")
            XCTAssertEqual(result.timestampInMilliseconds, timestamp)
        }
        XCTAssertThrowsError(try landmarker.detect(videoFrame: frame, timestampInMilliseconds: accepted.upperBound)) { error in
            XCTAssertEqual(error as? VisionTaskError, .nonIncreasingTimestamp(previous: accepted.upperBound, current: accepted.upperBound))
        }
    }

    final class PoseAnswers: PoseLandmarkerLiveStreamDelegate, Sendable {
        let answers = Locked<[(timestamp: Int, poses: Int?)]>([])
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                            timestampInMilliseconds timestamp: Int, error: (any Error)?) {
            answers.withLock { $0.append((timestamp, result?.landmarks.count)) }
        }
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answers.withLock { $0.append((timestamp, nil)) }
        }
    }

    /// Live stream, default options: refused synchronously by `detectAsync`; the largest accepted timestamp is
    /// processed and answered.
    func testLiveStreamTimestampsBeyondNanosecondRangeAreTypedErrors() throws {
        let frame = try image("pose1.jpg")
        let answers = PoseAnswers()
        let options = poseOptions(.liveStream)
        options.poseLandmarkerLiveStreamDelegate = answers
        let landmarker = try PoseLandmarker(options: options)
        let accepted = VisionTaskError.acceptedTimestamps
        assertOutOfRange(hostileTimestamp) { try landmarker.detectAsync(image: frame, timestampInMilliseconds: hostileTimestamp) }
        try landmarker.detectAsync(image: frame, timestampInMilliseconds: accepted.upperBound - 1)
        landmarker.waitUntilIdle()
        try landmarker.detectAsync(image: frame, timestampInMilliseconds: accepted.upperBound)
        assertOutOfRange(.max) { try landmarker.detectAsync(image: frame, timestampInMilliseconds: .max) }
        landmarker.close()
        let answered = answers.answers.withLock { $0 }
        XCTAssertEqual(answered.map(\.timestamp), [accepted.upperBound - 1, accepted.upperBound])
        XCTAssertEqual(answered.map(\.poses), [1, 1])
    }

    /// The smoothing arithmetic cannot trap on its own either: the nanosecond clock saturates, and intervals across
    /// zero are measured in doubles.
    func testSmoothingClockSaturatesInsteadOfTrapping() {
        XCTAssertEqual(LandmarksSmoother.nanoseconds(milliseconds: 1234), 1_234_000_000)
        XCTAssertEqual(LandmarksSmoother.nanoseconds(milliseconds: .max), .max)
        XCTAssertEqual(LandmarksSmoother.nanoseconds(milliseconds: .min), .min)
        XCTAssertEqual(LandmarksSmoother.nanoseconds(milliseconds: hostileTimestamp), .max)
        var filter = OneEuroFilter(minCutoff: 0.05, beta: 80, derivativeCutoff: 1)
        XCTAssertEqual(filter.apply(1, timestampNanoseconds: .min + 1, valueScale: 1), 1)
        XCTAssertTrue(filter.apply(2, timestampNanoseconds: .max, valueScale: 1).isFinite)
        // Saturated twice: not after the last, so passed through unfiltered.
        XCTAssertEqual(filter.apply(3, timestampNanoseconds: .max, valueScale: 1), 3)
    }

    /// A NaN or infinite landmark (a hostile model's output) passes through without entering the filter: the
    /// frames after it are smoothed from finite state, not NaN for ever.
    func testNonFiniteLandmarksDoNotPoisonTheSmoother() {
        var smoother = LandmarksSmoother(.init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .landmarkExtent),
                                         visibilityAlpha: 0.1)
        func frame(_ x: Float) -> [NormalizedLandmark] {
            [NormalizedLandmark(x: x, y: 0.5, z: 0, visibility: 0.9, presence: 0.9), NormalizedLandmark(x: 0.2, y: 0.2, z: 0)]
        }
        _ = smoother.smooth(frame(0.5), region: nil, imageWidth: 100, imageHeight: 100, timestampMilliseconds: 0)
        _ = smoother.smooth(frame(0.51), region: nil, imageWidth: 100, imageHeight: 100, timestampMilliseconds: 33)
        for bad in [Float.nan, .infinity, -.infinity] {
            let out = smoother.smooth(frame(bad), region: nil, imageWidth: 100, imageHeight: 100, timestampMilliseconds: 66)
            XCTAssertFalse(out[0].x.isFinite, "\(bad)")
        }
        let after = smoother.smooth(frame(0.52), region: nil, imageWidth: 100, imageHeight: 100, timestampMilliseconds: 100)
        XCTAssertTrue(after.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "\(after)")
        var world = LandmarksSmoother(.init(minCutoff: 0.1, beta: 40, derivativeCutoff: 1, valueScale: .none), visibilityAlpha: nil)
        _ = world.smooth([Landmark(x: 0, y: 0, z: 0)], timestampMilliseconds: 0)
        _ = world.smooth([Landmark(x: .nan, y: .infinity, z: 0)], timestampMilliseconds: 33)
        XCTAssertTrue(world.smooth([Landmark(x: 0.1, y: 0.1, z: 0)], timestampMilliseconds: 66).allSatisfy { $0.x.isFinite && $0.y.isFinite })
    }

    /// Drawing NaN or far-away results (what `--draw` does with a hostile model's landmarks) draws nothing there
    /// and never converts a non-finite or huge coordinate to Int.
    func testDrawingNonFiniteAndFarCoordinatesDrawsNothing() {
        var canvas = Canvas(width: 8, height: 8)
        let blank = canvas.pixels
        for value in [Double.nan, .infinity, -.infinity, 1e300, -1e300] {
            canvas.drawPoint(x: value, y: 4, radius: 2, .red)
            canvas.drawPoint(x: 4, y: value, radius: 2, .red)
            canvas.drawLine(from: (value, 4), to: (4, 4), thickness: 2, .green)
            canvas.drawBox(x: value, y: value, width: 2, height: 2, thickness: 1, .green)
        }
        for (x, y) in [(Int.max, 0), (Int.min, 0), (0, Int.max), (0, Int.min), (Int.max, Int.max)] {
            canvas.drawLabel("nan", x: x, y: y, scale: 1, .white)
        }
        canvas.drawLabel("x", x: 0, y: 0, scale: .max, .white)
        XCTAssertEqual(canvas.pixels, blank)
        canvas.drawPoint(x: 4, y: 4, radius: 2, .red)
        XCTAssertNotEqual(canvas.pixels, blank, "a finite point is still drawn")
    }

    /// Extreme options: typed errors where MediaPipe refuses them, and no allocation sized by a count
    /// (numPoses / numFaces / numHands Int.max run as any count above the instances found).
    func testExtremeOptionsAreTypedErrorsOrHarmless() throws {
        let frame = try image("pose1.jpg")
        for mode in [RunningMode.image, .video] {
            let options = poseOptions(mode)
            options.numPoses = .max
            let landmarker = try PoseLandmarker(options: options)
            let result = mode == .image ? try landmarker.detect(image: frame) : try landmarker.detect(videoFrame: frame, timestampInMilliseconds: 0)
            XCTAssertEqual(result.landmarks.count, 1)
        }
        for change in [{ (o: PoseLandmarkerOptions) in o.numPoses = .min }, { $0.minPoseDetectionConfidence = .nan },
                       { $0.minPosePresenceConfidence = .infinity }, { $0.baseOptions.numThreads = .max }] {
            let options = poseOptions(.image)
            change(options)
            XCTAssertThrowsError(try PoseLandmarker(options: options)) { error in
                guard case .invalidOption = error as? VisionTaskError else { return XCTFail("\(error)") }
            }
        }
        let face = FaceLandmarkerOptions()
        face.baseOptions.modelAssetPath = Repository.modelPath("face_landmarker.task")
        face.numFaces = .max
        face.runningMode = .video
        _ = try FaceLandmarker(options: face).detect(videoFrame: try image("face_day13.jpg"), timestampInMilliseconds: 1)
        face.minFaceDetectionConfidence = .nan
        XCTAssertThrowsError(try FaceLandmarker(options: face)) { error in
            XCTAssertEqual(error as? VisionTaskError, .invalidOption(name: "minFaceDetectionConfidence", reason: "nan is outside [0.0, 1.0]"))
        }
        let hand = HandLandmarkerOptions()
        hand.baseOptions.modelAssetPath = Repository.modelPath("hand_landmarker.task")
        hand.numHands = .max
        _ = try HandLandmarker(options: hand).detect(image: frame)

        let classifier = ImageClassifierOptions()
        classifier.baseOptions.modelAssetPath = Repository.modelPath("bird_classifier.tflite")
        classifier.maxResults = .min
        XCTAssertFalse(try ImageClassifier(options: classifier).classify(image: frame).classificationResult.classifications.isEmpty)
        classifier.maxResults = .max
        XCTAssertFalse(try ImageClassifier(options: classifier).classify(image: frame).classificationResult.classifications.isEmpty)
        classifier.scoreThreshold = .nan
        XCTAssertThrowsError(try ImageClassifier(options: classifier)) { error in
            XCTAssertEqual(error as? VisionTaskError, .invalidOption(name: "scoreThreshold", reason: "NaN"))
        }
        let detector = ObjectDetectorOptions()
        detector.baseOptions.modelAssetPath = Repository.modelPath("ssd_mobilenet_v1.tflite")
        detector.maxResults = .max
        _ = try ObjectDetector(options: detector).detect(image: frame)
        detector.maxResults = 0
        XCTAssertThrowsError(try ObjectDetector(options: detector)) { error in
            guard case .invalidOption(name: "maxResults", _) = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
    }
}

/// Issue #30's race: `detectAsync` checked the timestamp and enqueued the frame in two critical sections, so two
/// threads could enqueue out of timestamp order, and `waitUntilIdle`/`close()` then waited for ever. Several threads
/// send interleaved increasing timestamps at once: every call is accepted or refused with the typed timestamp error,
/// every accepted frame is answered once, in order, and both waits return (bounded: the test fails, not hangs).
final class LiveStreamAdmissionRaceTests: XCTestCase {
    final class Answers: ImageClassifierLiveStreamDelegate, Sendable {
        let answered = Locked<[Int]>([])
        func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                             timestampInMilliseconds timestamp: Int, error: (any Error)?) {
            answered.withLock { $0.append(timestamp) }
        }
        func imageClassifier(_ imageClassifier: ImageClassifier, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answered.withLock { $0.append(timestamp) }
        }
    }

    private func waitBounded(_ what: String, _ body: @escaping @Sendable () -> Void) {
        let done = expectation(description: what)
        Thread { body(); done.fulfill() }.start()
        wait(for: [done], timeout: 120)
    }

    /// Five rounds, each on a fresh classifier: one round of 1600 calls met the race in one run of three before the fix.
    func testConcurrentDetectAsyncKeepsTimestampOrderAndWaitsReturn() throws {
        for _ in 0..<5 { try hammer() }
    }

    private func hammer() throws {
        let answers = Answers()
        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("bird_classifier.tflite")
        options.baseOptions.numThreads = 1
        options.runningMode = .liveStream
        options.imageClassifierLiveStreamDelegate = answers
        let classifier = try ImageClassifier(options: options)
        // A small frame: admission, not inference, is what the threads contend for.
        let frame = try MPImage(pixels: [UInt8](repeating: 128, count: 16 * 16 * 3), width: 16, height: 16, format: .rgb8)
        let senders = 4, callsEach = 400
        let accepted = Locked<[Int]>([]), unexpected = Locked<[String]>([])
        let start = DispatchGroup(), finished = DispatchGroup()
        start.enter()
        for sender in 0..<senders {
            finished.enter()
            Thread {
                start.wait()
                for call in 0..<callsEach {
                    let timestamp = call * senders + sender
                    do {
                        try classifier.classifyAsync(image: frame, timestampInMilliseconds: timestamp)
                        accepted.withLock { $0.append(timestamp) }
                    } catch let error as VisionTaskError {
                        guard case let .nonIncreasingTimestamp(previous, current) = error, current == timestamp, previous >= timestamp else {
                            unexpected.withLock { $0.append("\(timestamp): \(error)") }
                            continue
                        }
                    } catch {
                        unexpected.withLock { $0.append("\(timestamp): \(error)") }
                    }
                }
                finished.leave()
            }.start()
        }
        start.leave()
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success, "the senders did not finish")
        waitBounded("waitUntilIdle") { classifier.waitUntilIdle() }
        waitBounded("close") { classifier.close() }
        XCTAssertEqual(unexpected.withLock { $0 }, [])
        let sent = accepted.withLock { $0 }.sorted()
        XCTAssertFalse(sent.isEmpty)
        let answered = answers.answered.withLock { $0 }
        XCTAssertEqual(answered, answered.sorted(), "answers out of timestamp order")
        XCTAssertEqual(answered, sent, "every accepted frame is answered exactly once")
        XCTAssertThrowsError(try classifier.classifyAsync(image: frame, timestampInMilliseconds: .max / 2)) { error in
            XCTAssertEqual(error as? VisionTaskError, .taskClosed)
        }
    }
}
