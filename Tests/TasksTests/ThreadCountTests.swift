import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// `BaseOptions.numThreads` changes how work is split, never a number: image mode on shared photos and video mode
/// (tracking and smoothing, numPoses 1) on a clip give bit-identical results at 1, 2 and 3 threads.
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
