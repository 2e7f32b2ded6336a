import Foundation
import VisionTasks
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// `BaseOptions.numThreads` changes how work is split, never a number: for every task, image mode on shared photos
/// and video mode (tracking, and smoothing where the task smooths) on a clip give bit-identical results at 1, 2 and 3
/// threads.
final class ThreadCountTests: XCTestCase {
    private func landmarker(_ mode: RunningMode, threads: Int) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numPoses = mode == .image ? 2 : 1
        options.outputSegmentationMasks = true
        return try PoseLandmarker(options: options)
    }

    func testPoseResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let images = try ["pose1.jpg", "multi1.jpg", "pose4.jpg"].map {
            try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\($0)").path)
        }
        var frames: [(MPImage, Int)] = []
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path)
        while frames.count < 15, let frame = try video.nextFrame() { frames.append((frame.image, frame.timestampMs)) }
        func run(threads: Int) throws -> [PoseLandmarkerResult] {
            let still = try landmarker(.image, threads: threads)
            let moving = try landmarker(.video, threads: threads)
            return try images.map { try still.detect(image: $0) }
                + frames.map { try moving.detect(videoFrame: $0.0, timestampInMilliseconds: $0.1) }
        }
        let one = try run(threads: 1)
        XCTAssertEqual(one.map(\.landmarks.count).reduce(0, +), images.count + frames.count + 1, "poses found (two in multi1.jpg at numPoses 2, one elsewhere)")
        for threads in [2, 3] {
            let other = try run(threads: threads)
            XCTAssertEqual(other.count, one.count)
            for (index, (a, b)) in zip(one, other).enumerated() {
                XCTAssertTrue(a == b, "result \(index) differs between 1 and \(threads) threads")
            }
        }
    }

    /// The face landmarker with blendshapes and matrices: image mode, and video mode with numFaces 1 (smoothing).
    func testFaceResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let images = try ["face_day13.jpg", "face_iris1.jpg"].map { try Self.image($0) }
        let frames = try Self.frames("face_head_turning.mp4", count: 10)
        func run(threads: Int) throws -> [FaceLandmarkerResult] {
            func make(_ mode: RunningMode) throws -> FaceLandmarker {
                let options = FaceLandmarkerOptions()
                options.baseOptions.modelAssetPath = Repository.modelPath("face_landmarker.task")
                options.baseOptions.numThreads = threads
                options.runningMode = mode
                options.outputFaceBlendshapes = true
                options.outputFacialTransformationMatrixes = true
                return try FaceLandmarker(options: options)
            }
            let still = try make(.image), moving = try make(.video)
            return try images.map { try still.detect(image: $0) }
                + frames.map { try moving.detect(videoFrame: $0.0, timestampInMilliseconds: $0.1) }
        }
        try Self.assertIdentical(run, found: { $0.faceLandmarks.count }, expected: images.count + frames.count)
    }

    /// The gesture recognizer (and with it the hand landmarker): image mode with numHands 2, video mode on the gesture clip.
    func testGestureResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let images = try ["hand_2hands.png", "hand_f5547.jpg"].map { try Self.image($0) }
        let frames = try Self.frames("hand_gesture_fist_thumbsup.mp4", count: 40).suffix(12)
        func run(threads: Int) throws -> [GestureRecognizerResult] {
            func make(_ mode: RunningMode) throws -> GestureRecognizer {
                let options = GestureRecognizerOptions()
                options.baseOptions.modelAssetPath = Repository.modelPath("gesture_recognizer.task")
                options.baseOptions.numThreads = threads
                options.runningMode = mode
                options.numHands = 2
                return try GestureRecognizer(options: options)
            }
            let still = try make(.image), moving = try make(.video)
            return try images.map { try still.recognize(image: $0) }
                + frames.map { try moving.recognize(videoFrame: $0.0, timestampInMilliseconds: $0.1) }
        }
        // Two hands, one, then one per frame from frame 24 on.
        try Self.assertIdentical(run, found: { $0.landmarks.count }, expected: 3 + frames.count)
    }

    static func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    static func frames(_ clip: String, count: Int) throws -> [(MPImage, Int)] {
        var frames: [(MPImage, Int)] = []
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/\(clip)").path)
        while frames.count < count, let frame = try video.nextFrame() { frames.append((frame.image, frame.timestampMs)) }
        return frames
    }

    static func assertIdentical<R: Equatable>(_ run: (Int) throws -> [R], found: (R) -> Int, expected: Int,
                                              file: StaticString = #filePath, line: UInt = #line) throws {
        let one = try run(1)
        XCTAssertEqual(one.map(found).reduce(0, +), expected, "instances found", file: file, line: line)
        for threads in [2, 3] {
            let other = try run(threads)
            XCTAssertEqual(other.count, one.count, file: file, line: line)
            for (index, (a, b)) in zip(one, other).enumerated() {
                XCTAssertTrue(a == b, "result \(index) differs between 1 and \(threads) threads", file: file, line: line)
            }
        }
    }

    func testThreadCountsOutsideTheRangeAreTypedErrors() {
        for bad in [0, -1, BaseOptions.maximumThreadCount + 1, Int.max] {
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
            options.baseOptions.numThreads = bad
            XCTAssertThrowsError(try PoseLandmarker(options: options)) { error in
                guard case .invalidOption(let name, _) = error as? VisionTaskError else { return XCTFail("\(error)") }
                XCTAssertEqual(name, "baseOptions.numThreads")
            }
        }
    }
}
