import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksResultJSON
import VisionTasksTooling
import VisionTasks

/// What `hand` and `gesture` share beyond the common task options.
struct HandCommandOptions: ParsableArguments {
    @Option(help: "Most hands to find.") var numHands: Int = 2

    func validate() throws {
        try OptionRange.check(numHands, in: OptionRange.instances, option: "--num-hands")
    }

    /// The hand-finding options of either task, from the command line.
    func configured<Options: HandTaskOptions>(_ options: Options, common: TaskCommandOptions) -> Options {
        options.numHands = numHands
        options.landmarkSmoothing = common.smoothing
        return options
    }
}

struct HandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand",
        abstract: "Detect hand landmarks and handedness in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, handedness).")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var hands: HandCommandOptions

    func run() throws {
        try TaskCommandRunner(options: common, taskName: "hand")
            .run(HandLandmarker.self, hands.configured(HandLandmarkerOptions(), common: common))
    }
}

struct GestureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Recognize hand gestures in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, handedness, gesture).")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var hands: HandCommandOptions

    func run() throws {
        try TaskCommandRunner(options: common, taskName: "gesture")
            .run(GestureRecognizer.self, hands.configured(GestureRecognizerOptions(), common: common))
    }
}

extension HandLandmarkerResult: CommandResult {
    func drawing(on image: MPImage) -> Canvas {
        HandDrawing.draw(landmarks: landmarks, labels: handedness.map { $0.first?.categoryName ?? "" }, on: image)
    }
    var summary: String { "\(landmarks.count) hand(s)" }
}

extension GestureRecognizerResult: CommandResult {
    func drawing(on image: MPImage) -> Canvas {
        let labels = zip(handedness, gestures).map { handedness, gestures in
            [handedness.first?.categoryName, gestures.first?.categoryName].compactMap { $0 }.joined(separator: " ")
        }
        return HandDrawing.draw(landmarks: landmarks, labels: labels, on: image)
    }
    var summary: String {
        "\(landmarks.count) hand(s)" + (gestures.isEmpty ? "" : ": " + gestures.map { $0.first?.categoryName ?? "-" }.joined(separator: ", "))
    }
}

/// The hand skeleton (MediaPipe's hand connections), and a label per hand (handedness, gesture).
enum HandDrawing {
    static func draw(landmarks: [[NormalizedLandmark]], labels: [String], on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = Double(max(image.width, image.height)) / 400
        for (h, hand) in landmarks.enumerated() {
            let points = hand.map { (x: Double($0.x) * Double(image.width), y: Double($0.y) * Double(image.height)) }
            for connection in HandLandmarker.handConnections {
                let a = Int(connection.start), b = Int(connection.end)
                guard a < points.count, b < points.count else { continue }
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
