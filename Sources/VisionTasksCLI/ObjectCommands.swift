import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksTooling
import VisionTasks

/// The classifier fields the `object` and `classify` commands share (MediaPipe's flat options).
struct CategoryOptions: ParsableArguments {
    @Option(help: "Most results per image (default: all).") var maxResults: Int = -1
    @Option(help: "Drop results scoring below this.") var scoreThreshold: Float = 0
    @Option(help: "Only these category names (repeat the option).") var allow: [String] = []
    @Option(help: "Never these category names (repeat the option).") var deny: [String] = []

    /// Sets a task's options from the command line: model, threads, running mode and these fields.
    func apply(to options: ClassificationTaskOptions, common: TaskCommandOptions) {
        options.baseOptions.modelAssetPath = common.model
        options.baseOptions.numThreads = common.threads
        options.runningMode = common.runningMode
        options.maxResults = maxResults
        options.scoreThreshold = scoreThreshold
        options.categoryAllowlist = allow
        options.categoryDenylist = deny
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
        abstract: "Detect objects with a TFLite detector (SSD with TFLite_Detection_PostProcess and metadata) in images or video frames, as MediaPipe's Object Detector does; write MediaPipe's reference JSON and drawings.")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var categories: CategoryOptions

    func run() throws {
        let runner = try TaskCommandRunner(options: common, taskName: "object")
        let options = ObjectDetectorOptions()
        categories.apply(to: options, common: common)
        let delegate = runner.live.map(ObjectLiveStreamDelegate.init)
        options.objectDetectorLiveStreamDelegate = delegate
        let detector: ObjectDetector
        do { detector = try ObjectDetector(options: options) } catch { throw CLIError(description: "\(common.model): \(error)") }
        try withExtendedLifetime(delegate) { try runner.run(detector) }
    }
}

extension ObjectDetector: CommandTask {
    static func json(_ result: ObjectDetectorResult) -> [String: Any] { ReferenceJSON.objects(result) }
    static func summary(_ result: ObjectDetectorResult) -> String {
        "\(result.detections.count) object(s)" + (result.detections.first.map { ", best \($0.categories.first?.categoryName ?? "?")" } ?? "")
    }

    static func draw(_ result: ObjectDetectorResult, on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = max(1, Double(max(image.width, image.height)) / 600)
        for detection in result.detections {
            let box = detection.boundingBox
            canvas.drawBox(x: Double(box.minX), y: Double(box.minY), width: Double(box.width), height: Double(box.height), thickness: scale, .green)
            let text = detection.categories.map { String(format: "%@ %.2f", $0.categoryName ?? "\($0.index)", $0.score) }.joined(separator: ", ")
            guard let x = pixelCoordinate(Double(box.minX)), let y = pixelCoordinate(Double(box.minY)) else { continue }
            canvas.drawLabel(text, x: x + 2, y: max(0, y - 10 * Int(scale.rounded())), scale: Int(scale.rounded()), .white)
        }
        return canvas
    }
}

final class ObjectLiveStreamDelegate: ObjectDetectorLiveStreamDelegate {
    let collector: LiveStreamCollector
    init(_ collector: LiveStreamCollector) { self.collector = collector }

    func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                        timestampInMilliseconds timestamp: Int, error: (any Error)?) {
        collector.finished(result.map(ReferenceJSON.objects), timestamp: timestamp, error: error)
    }

    func objectDetector(_ objectDetector: ObjectDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
        collector.dropped(timestamp: timestamp)
    }
}

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Classify images or video frames with a TFLite image classifier (labels from its metadata), as MediaPipe's Image Classifier does; write MediaPipe's reference JSON.")

    @OptionGroup var common: TaskCommandOptions
    @OptionGroup var categories: CategoryOptions

    func run() throws {
        let runner = try TaskCommandRunner(options: common, taskName: "classify")
        let options = ImageClassifierOptions()
        categories.apply(to: options, common: common)
        let delegate = runner.live.map(ClassifierLiveStreamDelegate.init)
        options.imageClassifierLiveStreamDelegate = delegate
        let classifier: ImageClassifier
        do { classifier = try ImageClassifier(options: options) } catch { throw CLIError(description: "\(common.model): \(error)") }
        try withExtendedLifetime(delegate) { try runner.run(classifier) }
    }
}

extension ImageClassifier: CommandTask {
    func detect(image: MPImage) throws -> ImageClassifierResult { try classify(image: image) }
    func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> ImageClassifierResult {
        try classify(videoFrame: image, timestampInMilliseconds: timestamp)
    }
    func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try classifyAsync(image: image, timestampInMilliseconds: timestamp)
    }

    static func json(_ result: ImageClassifierResult) -> [String: Any] { ReferenceJSON.classifications(result) }
    static func summary(_ result: ImageClassifierResult) -> String {
        let best = result.classificationResult.classifications.first?.categories.first
        return best.map { String(format: "%@ %.3f", $0.categoryName ?? "\($0.index)", $0.score) } ?? "no category"
    }

    static func draw(_ result: ImageClassifierResult, on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = max(1, Int((Double(max(image.width, image.height)) / 600).rounded()))
        for (i, category) in (result.classificationResult.classifications.first?.categories.prefix(5) ?? []).enumerated() {
            canvas.drawLabel(String(format: "%@ %.3f", category.categoryName ?? "\(category.index)", category.score),
                             x: 4, y: 4 + i * 10 * scale, scale: scale, .white)
        }
        return canvas
    }
}

final class ClassifierLiveStreamDelegate: ImageClassifierLiveStreamDelegate {
    let collector: LiveStreamCollector
    init(_ collector: LiveStreamCollector) { self.collector = collector }

    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds timestamp: Int, error: (any Error)?) {
        collector.finished(result.map(ReferenceJSON.classifications), timestamp: timestamp, error: error)
    }

    func imageClassifier(_ imageClassifier: ImageClassifier, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
        collector.dropped(timestamp: timestamp)
    }
}

extension ReferenceJSON {
    /// `object.json`'s schema: pixel boxes; a labelled detection's index and display name as null, as MediaPipe's
    /// Python results give them.
    static func objects(_ result: ObjectDetectorResult) -> [String: Any] {
        // A model's NaN box is written as null, not converted (Int(_:) traps on it).
        func pixel(_ value: CGFloat) -> Any { pixelCoordinate(Double(value)).map { $0 as Any } ?? NSNull() }
        return ["detections": result.detections.map { detection -> [String: Any] in
            let box = detection.boundingBox
            return [
                "boundingBox": ["originX": pixel(box.minX), "originY": pixel(box.minY), "width": pixel(box.width), "height": pixel(box.height)],
                "categories": detection.categories.map { c -> [String: Any] in
                    ["index": c.index < 0 ? NSNull() : c.index as Any, "score": Double(c.score),
                     "categoryName": c.categoryName ?? NSNull(), "displayName": c.displayName ?? NSNull()]
                },
            ]
        }]
    }

    /// `classify.json`'s schema: one array of categories per head.
    static func classifications(_ result: ImageClassifierResult) -> [String: Any] {
        ["classifications": result.classificationResult.classifications.map { $0.categories.map(category) }]
    }
}
