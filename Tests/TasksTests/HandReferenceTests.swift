import Foundation
import VisionTasksImaging
import VisionTasksTooling
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// The hand landmarker and gesture recognizer against MediaPipe 0.10.14's own output (`../shared/reference/hand.json`,
/// `gesture*.json`: numHands 2, or 1 in `gesture_video_single.json`), with issue #16's bounds: the same hand counts,
/// landmarks mean |Δx|, |Δy| ≤ 0.003, world landmarks ≤ 5 mm (mean distance), the same handedness and top gesture,
/// scores within 0.02.
final class HandReferenceTests: XCTestCase {
    struct Reference: Decodable {
        struct Point: Decodable { let x: Float; let y: Float; let z: Float }
        // MediaPipe 1.2.3 (the arm64 answers, tools/arm64) writes a gesture's empty display name as null, 0.10.14 as "".
        struct Score: Decodable { let index: Int; let score: Float; let categoryName: String; let displayName: String? }
        struct Result: Decodable {
            let handedness: [[Score]]
            let gestures: [[Score]]?
            let landmarks: [[Point]]
            let worldLandmarks: [[Point]]
        }
        struct Entry: Decodable { let image: String; let width: Int; let height: Int; let timestampMs: Int?; let result: Result }
        let model: String
        let results: [Entry]
    }

    static func reference(_ name: String) throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Repository.mediapipeReference(name)))
    }

    struct HandError: CustomStringConvertible {
        var x: Float = 0, y: Float = 0, world: Float = 0, handedness: Float = 0, gesture: Float = 0
        var description: String {
            String(format: "mean|Δx| %.4f mean|Δy| %.4f world %.1f mm |Δhandedness| %.4f |Δgesture| %.4f", x, y, world * 1000, handedness, gesture)
        }

        func check(_ label: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertLessThanOrEqual(x, 0.003, "\(label) x", file: file, line: line)
            XCTAssertLessThanOrEqual(y, 0.003, "\(label) y", file: file, line: line)
            XCTAssertLessThanOrEqual(world, 0.005, "\(label) world", file: file, line: line)
            XCTAssertLessThanOrEqual(handedness, 0.02, "\(label) handedness score", file: file, line: line)
            XCTAssertLessThanOrEqual(gesture, 0.02, "\(label) gesture score", file: file, line: line)
        }
    }

    /// One hand against the reference; names must agree exactly.
    static func compare(landmarks: [NormalizedLandmark], world: [Landmark], handedness: [ResultCategory], gestures: [ResultCategory]?,
                        _ reference: Reference.Result, hand h: Int, label: String) -> HandError {
        var e = HandError()
        let theirs = reference.landmarks[h], theirWorld = reference.worldLandmarks[h]
        XCTAssertEqual(landmarks.count, 21, label)
        let n = Float(theirs.count)
        for (a, b) in zip(landmarks, theirs) {
            e.x += abs(a.x - b.x) / n
            e.y += abs(a.y - b.y) / n
        }
        for (a, b) in zip(world, theirWorld) {
            e.world += ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)).squareRoot() / n
        }
        let hand = reference.handedness[h]
        XCTAssertEqual(handedness.map(\.categoryName), hand.map(\.categoryName), "\(label) handedness")
        XCTAssertEqual(handedness.map(\.index), hand.map(\.index), "\(label) handedness index")
        XCTAssertEqual(handedness.map(\.displayName), hand.map(\.displayName), "\(label) handedness display name")
        if let ours = handedness.first, let their = hand.first { e.handedness = abs(ours.score - their.score) }
        if let gestures, let theirGestures = reference.gestures?[h] {
            XCTAssertEqual(gestures.map(\.categoryName), theirGestures.map(\.categoryName), "\(label) gesture")
            XCTAssertEqual(gestures.map(\.index), theirGestures.map(\.index), "\(label) gesture index")
            if let ours = gestures.first, let their = theirGestures.first { e.gesture = abs(ours.score - their.score) }
        }
        return e
    }

    func testHandLandmarkerImageModeMatchesMediaPipe() throws {
        let reference = try Self.reference("hand.json")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(reference.model)
        options.numHands = 2
        let landmarker = try HandLandmarker(options: options)
        var report: [String] = []
        for entry in reference.results {
            let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.landmarks.count, entry.result.landmarks.count, "\(entry.image): hand count")
            for h in 0..<min(result.landmarks.count, entry.result.landmarks.count) {
                let e = Self.compare(landmarks: result.landmarks[h], world: result.worldLandmarks[h], handedness: result.handedness[h],
                                     gestures: nil, entry.result, hand: h, label: "\(entry.image)#\(h)")
                report.append("\(entry.image)#\(h) \(result.handedness[h].first?.categoryName ?? "?"): \(e)")
                e.check("\(entry.image)#\(h)")
            }
        }
        print("hand landmarker image mode against MediaPipe:\n" + report.joined(separator: "\n"))
    }

    func testGestureRecognizerImageModeMatchesMediaPipe() throws {
        let reference = try Self.reference("gesture.json")
        let recognizer = try GestureRecognizer(options: Self.gestureOptions(model: reference.model, numHands: 2, runningMode: .image))
        var report: [String] = []
        for entry in reference.results {
            let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let result = try recognizer.recognize(image: image)
            XCTAssertEqual(result.landmarks.count, entry.result.landmarks.count, "\(entry.image): hand count")
            XCTAssertEqual(result.gestures.count, result.landmarks.count)
            for h in 0..<min(result.landmarks.count, entry.result.landmarks.count) {
                let e = Self.compare(landmarks: result.landmarks[h], world: result.worldLandmarks[h], handedness: result.handedness[h],
                                     gestures: result.gestures[h], entry.result, hand: h, label: "\(entry.image)#\(h)")
                report.append("\(entry.image)#\(h) \(result.gestures[h].first?.categoryName ?? "?"): \(e)")
                e.check("\(entry.image)#\(h)")
            }
        }
        print("gesture recognizer image mode against MediaPipe:\n" + report.joined(separator: "\n"))
    }

    static func gestureOptions(model: String, numHands: Int, runningMode: RunningMode) -> GestureRecognizerOptions {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(model)
        options.numHands = numHands
        options.runningMode = runningMode
        return options
    }

    /// The whole gesture clip (fist, then thumbs-up) in video mode with numHands 2: the detector runs while fewer
    /// than two hands are tracked, and MediaPipe's deduplication drops a palm found again on the tracked hand.
    func testGestureVideoModeMatchesMediaPipe() throws {
        try checkVideo(reference: "gesture_video.json", numHands: 2)
    }

    /// numHands 1: the detector idles while the hand is tracked (MediaPipe smooths no hand landmarks).
    func testGestureVideoModeSingleHandMatchesMediaPipe() throws {
        try checkVideo(reference: "gesture_video_single.json", numHands: 1)
    }

    /// Every frame must have MediaPipe's hand count, handedness and top gesture. Numbers, frame by frame, cannot
    /// all be held to issue #16's per-image bounds: each frame's region comes from the last frame's landmarks, and
    /// that loop amplifies last-bit differences — MediaPipe against itself, with one pixel of each frame changed by
    /// one level (12 such nudges), moves landmarks by up to 0.008 of the image, world landmarks by up to 7.7 mm,
    /// handedness and gesture scores by up to 0.10 and 0.07, and once flips a gesture
    /// (`tools/mediapipe_gesture_tracking_spread.py` → `Tests/Fixtures/gesture_tracking_spread.json`). Our kernels
    /// round differently from XNNPACK, so on every measure our clip mean must be within that spread's mean, and
    /// within the issue's bounds (landmarks 0.003, world 5 mm, scores 0.02). Worst frames are reported, not held:
    /// measured, ours are inside MediaPipe's spread on x, handedness and gesture, and beyond it on y (0.0072 against
    /// 0.0066) and world landmarks (8.7 mm against 7.7 mm).
    ///
    /// The clip's truth depends on the platform's `atan2f`, through the tracked region's rotation (PlatformLibm):
    /// MediaPipe as it answers on this libm, with its spread on the same libm.
    private func checkVideo(reference name: String, numHands: Int) throws {
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: PlatformLibm.videoReference(name)))
        let recognizer = try GestureRecognizer(options: Self.gestureOptions(model: reference.model, numHands: numHands, runningMode: .video))
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/hand_gesture_fist_thumbsup.mp4").path)
        var errors: [HandError] = [], frames = 0
        for entry in reference.results {
            let frame = try XCTUnwrap(try video.nextFrame(), "video ended before \(entry.image)")
            XCTAssertEqual(frame.label, entry.image)
            let result = try recognizer.recognize(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
            XCTAssertEqual(result.landmarks.count, entry.result.landmarks.count, "\(entry.image): hand count")
            for h in 0..<min(result.landmarks.count, entry.result.landmarks.count) {
                errors.append(Self.compare(landmarks: result.landmarks[h], world: result.worldLandmarks[h], handedness: result.handedness[h],
                                           gestures: result.gestures[h], entry.result, hand: h, label: entry.image))
            }
            frames += 1
        }
        XCTAssertEqual(frames, 195)
        struct Spread: Decodable {
            struct Frame: Decodable { let x: Float; let y: Float; let world: Float; let handedness: Float; let gesture: Float }
            struct Nudge: Decodable { let frames: [Frame] }
            let nudges: [Nudge]
        }
        let spread = try JSONDecoder().decode(Spread.self, from: Data(contentsOf: PlatformLibm.trackingSpread("gesture_tracking_spread.json")))
        func mean(_ values: [Float]) -> Float { values.reduce(0, +) / Float(max(values.count, 1)) }
        let measures: [(String, KeyPath<HandError, Float>, KeyPath<Spread.Frame, Float>, Float)] = [
            ("x", \.x, \.x, 0.003), ("y", \.y, \.y, 0.003), ("world", \.world, \.world, 0.005),
            ("handedness", \.handedness, \.handedness, 0.02), ("gesture", \.gesture, \.gesture, 0.02),
        ]
        var report: [String] = []
        for (measure, ours, theirs, bound) in measures {
            let ourMean = mean(errors.map { $0[keyPath: ours] }), ourWorst = errors.map { $0[keyPath: ours] }.max() ?? 0
            let spreadMean = spread.nudges.map { mean($0.frames.map { $0[keyPath: theirs] }) }.max() ?? 0
            let spreadWorst = spread.nudges.map { $0.frames.map { $0[keyPath: theirs] }.max() ?? 0 }.max() ?? 0
            report.append(String(format: "%@: ours mean %.5f worst %.5f, MediaPipe's one-pixel spread mean %.5f worst %.5f",
                                 measure, ourMean, ourWorst, spreadMean, spreadWorst))
            XCTAssertLessThanOrEqual(ourMean, spreadMean, "\(measure): clip mean beyond MediaPipe's own spread")
            XCTAssertLessThanOrEqual(ourMean, bound, "\(measure): clip mean beyond issue #16's bound")
        }
        print("gesture video mode (numHands \(numHands)) against MediaPipe (\(PlatformLibm.description)):\n" + report.joined(separator: "\n"))
    }
}
