// This file speaks ML Kit: it imports VisionTasksMLKit, whose ObjectDetector is ML Kit's (MediaPipe's is in the
// files that import VisionTasks).
import ArgumentParser
import Foundation
import VisionTasksResultJSON
import VisionTasksMLKit
import VisionTasksTooling

/// `vision-tasks odt`: ML Kit's object detection and tracking, with an optional custom classifier.
struct ObjectTrackingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "odt",
        abstract: "Detect, track and classify objects as ML Kit's object detector does (stream mode tracks IDs across video frames).")

    enum Mode: String, ExpressibleByArgument { case stream, singleImage = "single-image" }

    @Argument(help: "The class-agnostic detector (.tflite with TFLite_Detection_PostProcess and metadata), e.g. Models/ssd_mobilenet_v1.tflite.")
    var detector: String
    @Argument(help: "Images, or with --video one video file.") var inputs: [String]
    @Option(help: "A custom image classifier (.tflite with labels in its metadata) that labels each object.") var classifier: String?
    @Option(help: "With --classifier: a label file (one per line, in class order) for a classifier whose metadata has none.") var labels: String?
    @Option(help: "stream (tracking IDs; the default) or single-image.") var mode: Mode = .stream
    @Flag(help: "Up to five objects (default: only the most prominent).") var multiple = false
    @Option(help: "Most labels per object.") var maxLabels: Int = 10
    @Option(help: "Least label confidence (default: the classifier's metadata threshold, else 0).") var threshold: Float?
    @Flag(help: "Label objects even without --classifier (the detector's own classes).") var classify = false
    @Flag(help: "Treat the input as one video file.") var video = false
    @Option(help: "Frames to read from a video file.") var maxFrames: Int = .max
    @Option(help: "Threads per model run (default: every core).") var threads: Int?
    @Option(help: "Write all results here as one JSON document.") var json: String?
    @Option(help: "Write annotated PNGs (boxes, tracking IDs, labels) into this directory.") var draw: String?
    @OptionGroup var orientation: OrientationOptions

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        try OptionRange.check(maxLabels, in: OptionRange.labels, option: "--max-labels")
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be positive") }
        if let threshold, !threshold.isFinite { throw ValidationError("--threshold must be a number") }
        if video, inputs.count != 1 { throw ValidationError("--video takes one video file") }
        if let threads { try OptionRange.check(threads, in: OptionRange.threads, option: "--threads") }
        if labels != nil, classifier == nil { throw ValidationError("--labels goes with --classifier") }
    }

    func run() throws {
        let options: CommonObjectDetectorOptions
        if let classifier {
            let custom = CustomObjectDetectorOptions(localModel: labels.map { LocalModel(path: classifier, labelsPath: $0) } ?? LocalModel(path: classifier))
            custom.maxPerObjectLabelCount = maxLabels
            custom.classificationConfidenceThreshold = threshold.map { NSNumber(value: $0) }
            options = custom
        } else {
            options = ObjectDetectorOptions()
        }
        options.detectorModelPath = detector
        options.detectorMode = mode == .stream ? .stream : .singleImage
        options.shouldEnableMultipleObjects = multiple
        options.shouldEnableClassification = classifier != nil || classify
        options.numThreads = threads
        let objectDetector = ObjectDetector.objectDetector(options: options)
        let output = try ResultOutput(json: json, jsonl: nil)
        if let draw { try FileManager.default.createDirectory(atPath: draw, withIntermediateDirectories: true) }
        func handle(_ image: MPImage, label: String, timestamp: Int?) throws {
            let objects: [Object]
            do { objects = try objectDetector.results(in: VisionImage(image: image)) } catch {
                throw CLIError(description: "\(label): \(error)")
            }
            try output.write(entry: ["image": label, "width": image.width, "height": image.height,
                                     "timestampMs": timestamp.map { $0 as Any } ?? NSNull(), "objects": objects.map(Self.json)])
            print("\(label): \(objects.count) object(s)" + objects.map { object in
                " [\(object.trackingID.map { "#\($0) " } ?? "")\(object.labels.first?.text ?? "unlabelled")]"
            }.joined())
            if let draw {
                var canvas = Canvas(image: image)
                let scale = max(1, Double(max(image.width, image.height)) / 600)
                for object in objects {
                    let frame = object.frame
                    canvas.drawBox(x: Double(frame.minX), y: Double(frame.minY), width: Double(frame.width), height: Double(frame.height),
                                   thickness: scale, .green)
                    let text = (object.trackingID.map { "#\($0) " } ?? "") + (object.labels.first.map { String(format: "%@ %.2f", $0.text, $0.confidence) } ?? "")
                    guard let x = pixelCoordinate(Double(frame.minX)), let y = pixelCoordinate(Double(frame.minY)) else { continue }
                    canvas.drawLabel(text, x: x + 2, y: max(0, y - 10 * Int(scale.rounded())), scale: Int(scale.rounded()), .white)
                }
                let name = (label as NSString).lastPathComponent.replacingOccurrences(of: "#", with: "_")
                try canvas.writePNG(to: (draw as NSString).appendingPathComponent((name as NSString).deletingPathExtension + ".png"))
            }
        }
        if video {
            let decoder: VideoDecoder
            do { decoder = try orientation.video(inputs[0]) } catch { throw CLIError(description: "\(inputs[0]): \(error)") }
            var frames = 0
            while frames < maxFrames, let frame = try decoder.nextFrame() {
                try handle(frame.image, label: frame.label, timestamp: frame.timestampMs)
                frames += 1
            }
        } else {
            for path in inputs {
                let image = try orientation.image(contentsOfFile: path)
                try handle(image, label: (path as NSString).lastPathComponent, timestamp: nil)
            }
        }
        try output.finish(header: ["task": "odt", "detector": (detector as NSString).lastPathComponent,
                                   "classifier": classifier.map { ($0 as NSString).lastPathComponent as Any } ?? NSNull(),
                                   "mode": mode.rawValue])
    }

    static func json(_ object: Object) -> [String: Any] {
        let frame = object.frame
        return [
            "frame": ["x": Double(frame.minX), "y": Double(frame.minY), "width": Double(frame.width), "height": Double(frame.height)],
            "trackingID": object.trackingID.map { $0.intValue as Any } ?? NSNull(),
            "labels": object.labels.map { ["text": $0.text, "confidence": Double($0.confidence), "index": $0.index] },
        ]
    }
}
