import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksResultJSON
import VisionTasksTooling
import VisionTasks

/// The classifier fields the `object` and `classify` commands share (MediaPipe's flat options).
struct CategoryOptions: ParsableArguments {
    @Option(help: "Most results per image (default: all).") var maxResults: Int = -1
    @Option(help: "Drop results scoring below this.") var scoreThreshold: Float = 0
    @Option(help: "Only these category names (repeat the option).") var allow: [String] = []
    @Option(help: "Never these category names (repeat the option).") var deny: [String] = []

    /// A task's classifier fields from the command line.
    func configured<Options: ClassificationTaskOptions>(_ options: Options) -> Options {
        options.maxResults = maxResults
        options.scoreThreshold = scoreThreshold
        options.categoryAllowlist = allow
        options.categoryDenylist = deny
        return options
    }

    func validate() throws {
        guard maxResults != 0 else { throw ValidationError("--max-results must not be 0 (negative: all)") }
        guard scoreThreshold.isFinite else { throw ValidationError("--score-threshold must be a number") }
        guard allow.isEmpty || deny.isEmpty else { throw ValidationError("--allow and --deny are exclusive") }
    }
}

struct ObjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "object",
        abstract: "Detect objects with a TFLite detector with metadata (EfficientDet-Lite, MediaPipe's default; SSD with TFLite_Detection_PostProcess) in images or video frames, as MediaPipe's Object Detector does; write MediaPipe's reference JSON and drawings.")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var categories: CategoryOptions

    func run() throws {
        try TaskCommandRunner(options: common, taskName: "object").run(ObjectDetector.self, categories.configured(ObjectDetectorOptions()))
    }
}

extension ObjectDetectorResult: CommandResult {
    var summary: String {
        "\(detections.count) object(s)" + (detections.first.map { ", best \($0.categories.first?.categoryName ?? "?")" } ?? "")
    }

    func drawing(on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = max(1, Double(max(image.width, image.height)) / 600)
        for detection in detections {
            let box = detection.boundingBox
            canvas.drawBox(x: Double(box.minX), y: Double(box.minY), width: Double(box.width), height: Double(box.height), thickness: scale, .green)
            let text = detection.categories.map { String(format: "%@ %.2f", $0.categoryName ?? "\($0.index)", $0.score) }.joined(separator: ", ")
            guard let x = pixelCoordinate(Double(box.minX)), let y = pixelCoordinate(Double(box.minY)) else { continue }
            canvas.drawLabel(text, x: x + 2, y: max(0, y - 10 * Int(scale.rounded())), scale: Int(scale.rounded()), .white)
        }
        return canvas
    }
}

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Classify images or video frames with a TFLite image classifier (labels from its metadata), as MediaPipe's Image Classifier does; write MediaPipe's reference JSON.")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var categories: CategoryOptions

    func run() throws {
        try TaskCommandRunner(options: common, taskName: "classify").run(ImageClassifier.self, categories.configured(ImageClassifierOptions()))
    }
}

extension ImageClassifierResult: CommandResult {
    var summary: String {
        let best = classificationResult.classifications.first?.categories.first
        return best.map { String(format: "%@ %.3f", $0.categoryName ?? "\($0.index)", $0.score) } ?? "no category"
    }

    func drawing(on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = max(1, Int((Double(max(image.width, image.height)) / 600).rounded()))
        for (i, category) in (classificationResult.classifications.first?.categories.prefix(5) ?? []).enumerated() {
            canvas.drawLabel(String(format: "%@ %.3f", category.categoryName ?? "\(category.index)", category.score),
                             x: 4, y: 4 + i * 10 * scale, scale: scale, .white)
        }
        return canvas
    }
}
