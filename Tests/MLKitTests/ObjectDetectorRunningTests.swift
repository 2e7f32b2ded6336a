import Foundation
import Synchronization
import VisionTasksMLKit
import VisionTasksTestSupport
import XCTest

/// How ML Kit's detector runs its calls, now on the running-mode machinery MediaPipe's tasks share: every
/// `process` call answered once, in the order of the calls; in stream mode a frame that comes while one is processed
/// is dropped, in single-image mode none is; the options are read when the detector is made.
final class ObjectDetectorRunningTests: XCTestCase {
    private static func answers(of detector: ObjectDetector, calls: Int) throws -> [(call: Int, outcome: String)] {
        let image = try ObjectDetectionTests.image("obj_cat.jpg")
        let answers = Mutex<[(call: Int, outcome: String)]>([])
        let done = DispatchSemaphore(value: 0)
        for call in 0..<calls {
            detector.process(image) { objects, error in
                let outcome = error.map { "\($0)" } ?? "\(objects?.count ?? -1) object(s)"
                answers.withLock { $0.append((call, outcome)) }
                done.signal()
            }
        }
        for _ in 0..<calls { done.wait() }
        return answers.withLock { $0 }
    }

    func testStreamAnswersEveryCallInTheOrderOfTheCallsAndTakesTheFirstFrame() throws {
        let detector = ObjectDetector.objectDetector(options: ObjectDetectionTests.options(classifier: nil, mode: .stream, multiple: true))
        let answers = try Self.answers(of: detector, calls: 6)
        XCTAssertEqual(answers.map(\.call), Array(0..<6), "\(answers)")
        // An idle detector takes the frame it is given; the calls right behind it find it busy.
        XCTAssertFalse(answers[0].outcome.contains("frame dropped"), "\(answers)")
        XCTAssertTrue(answers.dropFirst().contains { $0.outcome.contains("frame dropped") }, "\(answers)")
    }

    func testSingleImageModeProcessesEveryCallInOrder() throws {
        let detector = ObjectDetector.objectDetector(options: ObjectDetectionTests.options(classifier: nil, mode: .singleImage, multiple: true))
        let answers = try Self.answers(of: detector, calls: 4)
        XCTAssertEqual(answers.map(\.call), Array(0..<4), "\(answers)")
        let expected = try detector.results(in: try ObjectDetectionTests.image("obj_cat.jpg")).count
        XCTAssertGreaterThan(expected, 0)
        for answer in answers { XCTAssertEqual(answer.outcome, "\(expected) object(s)") }
    }

    func testOptionsChangedAfterTheDetectorIsMadeDoNotChangeIt() throws {
        let options = ObjectDetectionTests.options(classifier: nil, mode: .singleImage, multiple: true)
        let detector = ObjectDetector.objectDetector(options: options)
        options.detectorMode = .stream
        options.shouldEnableMultipleObjects = false
        options.shouldEnableClassification = false
        options.detectorModelPath = "/nonexistent/detector.tflite"
        let objects = try detector.results(in: try ObjectDetectionTests.image("obj_cat.jpg"))
        XCTAssertFalse(objects.isEmpty)
        XCTAssertTrue(objects.allSatisfy { $0.trackingID == nil }, "still single-image mode")
        XCTAssertTrue(objects.allSatisfy { !$0.labels.isEmpty }, "still classifying")
        // Made now, from the changed options: a detector whose model is missing.
        XCTAssertThrowsError(try ObjectDetector.objectDetector(options: options).results(in: try ObjectDetectionTests.image("obj_cat.jpg")))
    }
}
