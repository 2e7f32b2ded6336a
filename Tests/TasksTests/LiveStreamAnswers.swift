import Foundation
import VisionTasks
import VisionTasksImaging
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// A task's live-stream answers, for tests that feed one frame per answer (so nothing is dropped) and compare the
/// results with video mode's. A task's delegate forwards its two callbacks here.
final class LiveStreamAnswers<Result: Sendable>: @unchecked Sendable {
    private let answered = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var results: [Int: Result] = [:]
    private var failures: [String] = []

    func finished(_ result: Result?, timestamp: Int, error: (any Error)?) {
        lock.lock()
        if let result { results[timestamp] = result } else { failures.append("\(timestamp): \(String(describing: error))") }
        lock.unlock()
        answered.signal()
    }

    func dropped(timestamp: Int) {
        lock.lock(); failures.append("\(timestamp): dropped"); lock.unlock()
        answered.signal()
    }

    /// Sends each frame once the previous one is answered; returns the results by timestamp after checking that
    /// every frame gave one.
    func feed(_ frames: [(image: MPImage, timestamp: Int)], send: (MPImage, Int) throws -> Void,
              file: StaticString = #filePath, line: UInt = #line) throws -> [Int: Result] {
        for frame in frames {
            try send(frame.image, frame.timestamp)
            XCTAssertEqual(answered.wait(timeout: .now() + 60), .success, "no answer for \(frame.timestamp)", file: file, line: line)
        }
        lock.lock(); defer { lock.unlock() }
        XCTAssertEqual(failures, [], file: file, line: line)
        return results
    }
}

/// The first `count` frames of one of the shared clips, with their timestamps.
func videoFrames(_ clip: String, count: Int) throws -> [(image: MPImage, timestamp: Int)] {
    var frames: [(image: MPImage, timestamp: Int)] = []
    let decoder = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/\(clip)").path)
    while frames.count < count, let frame = try decoder.nextFrame() { frames.append((frame.image, frame.timestampMs)) }
    XCTAssertEqual(frames.count, count, clip)
    return frames
}
