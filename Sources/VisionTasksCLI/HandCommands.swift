import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksTooling
import VisionTasks

/// What `hand` and `gesture` share beyond the common task options.
struct HandCommandOptions: ParsableArguments {
    @Option(help: "Most hands to find.") var numHands: Int = 2

    func validate() throws {
        try OptionRange.check(numHands, in: OptionRange.instances, option: "--num-hands")
    }
}

struct HandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand",
        abstract: "Detect hand landmarks and handedness in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, handedness).")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var hands: HandCommandOptions

    func run() throws {
        let runner = try TaskCommandRunner(options: common, taskName: "hand")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = common.model
        options.baseOptions.numThreads = common.threads
        options.runningMode = common.runningMode
        options.numHands = hands.numHands
        options.landmarkSmoothing = common.smoothing
        let delegate = runner.live.map(HandLiveStreamDelegate.init)
        options.handLandmarkerLiveStreamDelegate = delegate
        let landmarker: HandLandmarker
        do { landmarker = try HandLandmarker(options: options) } catch { throw CLIError(description: "\(common.model): \(error)") }
        try withExtendedLifetime(delegate) { try runner.run(landmarker) }
    }
}

struct GestureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Recognize hand gestures in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, handedness, gesture).")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var hands: HandCommandOptions

    func run() throws {
        let runner = try TaskCommandRunner(options: common, taskName: "gesture")
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = common.model
        options.baseOptions.numThreads = common.threads
        options.runningMode = common.runningMode
        options.numHands = hands.numHands
        options.landmarkSmoothing = common.smoothing
        let delegate = runner.live.map(GestureLiveStreamDelegate.init)
        options.gestureRecognizerLiveStreamDelegate = delegate
        let recognizer: GestureRecognizer
        do { recognizer = try GestureRecognizer(options: options) } catch { throw CLIError(description: "\(common.model): \(error)") }
        try withExtendedLifetime(delegate) { try runner.run(recognizer) }
    }
}

extension HandLandmarker: CommandTask {
    static func json(_ result: HandLandmarkerResult) -> [String: Any] {
        ReferenceJSON.hands(handedness: result.handedness, gestures: nil, landmarks: result.landmarks, world: result.worldLandmarks)
    }
    static func draw(_ result: HandLandmarkerResult, on image: MPImage) -> Canvas {
        HandDrawing.draw(landmarks: result.landmarks, labels: result.handedness.map { $0.first?.categoryName ?? "" }, on: image)
    }
    static func summary(_ result: HandLandmarkerResult) -> String { "\(result.landmarks.count) hand(s)" }
}

extension GestureRecognizer: CommandTask {
    func detect(image: MPImage) throws -> GestureRecognizerResult { try recognize(image: image) }
    func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> GestureRecognizerResult {
        try recognize(videoFrame: image, timestampInMilliseconds: timestamp)
    }
    func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try recognizeAsync(image: image, timestampInMilliseconds: timestamp)
    }
    static func json(_ result: GestureRecognizerResult) -> [String: Any] {
        ReferenceJSON.hands(handedness: result.handedness, gestures: result.gestures, landmarks: result.landmarks, world: result.worldLandmarks)
    }
    static func draw(_ result: GestureRecognizerResult, on image: MPImage) -> Canvas {
        let labels = zip(result.handedness, result.gestures).map { handedness, gestures in
            [handedness.first?.categoryName, gestures.first?.categoryName].compactMap { $0 }.joined(separator: " ")
        }
        return HandDrawing.draw(landmarks: result.landmarks, labels: labels, on: image)
    }
    static func summary(_ result: GestureRecognizerResult) -> String {
        "\(result.landmarks.count) hand(s)" + (result.gestures.isEmpty ? "" : ": " + result.gestures.map { $0.first?.categoryName ?? "-" }.joined(separator: ", "))
    }
}

/// The `--live-stream` delegates: each hands its answers to the collector.
final class HandLiveStreamDelegate: HandLandmarkerLiveStreamDelegate {
    let collector: LiveStreamCollector
    init(_ collector: LiveStreamCollector) { self.collector = collector }

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds timestamp: Int, error: (any Error)?) {
        collector.finished(result.map(HandLandmarker.json), timestamp: timestamp, error: error)
    }

    func handLandmarker(_ handLandmarker: HandLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
        collector.dropped(timestamp: timestamp)
    }
}

final class GestureLiveStreamDelegate: GestureRecognizerLiveStreamDelegate {
    let collector: LiveStreamCollector
    init(_ collector: LiveStreamCollector) { self.collector = collector }

    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds timestamp: Int, error: (any Error)?) {
        collector.finished(result.map(GestureRecognizer.json), timestamp: timestamp, error: error)
    }

    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
        collector.dropped(timestamp: timestamp)
    }
}

extension ReferenceJSON {
    /// `hand.json` / `gesture.json`: handedness, gestures (gesture recognizer only), landmarks and world landmarks.
    static func hands(handedness: [[ResultCategory]], gestures: [[ResultCategory]]?, landmarks: [[NormalizedLandmark]],
                      world: [[Landmark]]) -> [String: Any] {
        var out: [String: Any] = [
            "handedness": handedness.map { $0.map(category) },
            "landmarks": landmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
            "worldLandmarks": world.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
        ]
        if let gestures { out["gestures"] = gestures.map { $0.map(category) } }
        return out
    }
}

/// The hand skeleton (MediaPipe's hand connections), and a label per hand (handedness, gesture).
enum HandDrawing {
    static func draw(landmarks: [[NormalizedLandmark]], labels: [String], on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = Double(max(image.width, image.height)) / 400
        for (h, hand) in landmarks.enumerated() {
            let points = hand.map { (x: Double($0.x) * Double(image.width), y: Double($0.y) * Double(image.height)) }
            for (a, b) in HandLandmarker.handConnections where a < points.count && b < points.count {
                canvas.drawLine(from: points[a], to: points[b], thickness: max(1.5, scale), .green)
            }
            for p in points { canvas.drawPoint(x: p.x, y: p.y, radius: max(2, scale * 1.5), .red) }
            if h < labels.count, let wrist = points.first, let x = pixelCoordinate(wrist.x), let y = pixelCoordinate(wrist.y) {
                canvas.drawLabel(labels[h], x: x, y: y + 6, scale: max(1, Int(scale.rounded())), .white)
            }
        }
        return canvas
    }
}
