import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasks

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect pose landmarks in images or video frames; write MediaPipe's reference JSON and drawings.")

    @Argument(help: "A pose landmarker bundle (.task).") var model: String
    @Argument(help: "Images, or with --video a video file (or frame images at --fps).") var inputs: [String]
    @Option(help: "Write results here as JSON, in the schema of MediaPipe's reference results (one document for all inputs).") var json: String?
    @Option(help: "Write annotated PNGs (skeleton, mask) into this directory.") var draw: String?
    @Flag(help: "Treat the inputs as one video: a video file, or frame images in order.") var video = false
    @Option(help: "Frame rate of frame-image input (video files use their own).") var fps: Double = 30
    @Option(help: "Frames to read from a video file.") var maxFrames: Int = .max
    @Option(help: "Most poses to find.") var numPoses: Int = 2
    @Flag(inversion: .prefixedNo, help: "Compute segmentation masks.") var segmentation = true
    @Option(help: "Threads to use (default: every core); results are the same for any count.") var threads: Int?

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard fps > 0, fps.isFinite else { throw ValidationError("--fps must be positive") }
        guard maxFrames > 0 else { throw ValidationError("--max-frames must be positive") }
        if let threads, !(1...BaseOptions.maximumThreadCount).contains(threads) {
            throw ValidationError("--threads must be between 1 and \(BaseOptions.maximumThreadCount)")
        }
    }

    func run() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = model
        options.runningMode = video ? .video : .image
        options.numPoses = numPoses
        options.outputSegmentationMasks = segmentation
        options.baseOptions.numThreads = threads
        let landmarker: PoseLandmarker
        do { landmarker = try PoseLandmarker(options: options) } catch { throw CLIError(description: "\(model): \(error)") }
        if let draw { try FileManager.default.createDirectory(atPath: draw, withIntermediateDirectories: true) }
        var entries: [[String: Any]] = []
        func handle(_ image: MPImage, label: String, timestamp: Int?) throws {
            let result: PoseLandmarkerResult
            do {
                result = try timestamp.map { try landmarker.detect(videoFrame: image, timestampInMilliseconds: $0) }
                    ?? landmarker.detect(image: image)
            } catch { throw CLIError(description: "\(label): \(error)") }
            entries.append(["image": label, "width": image.width, "height": image.height,
                            "timestampMs": timestamp.map { $0 as Any } ?? NSNull(), "result": ReferenceJSON.pose(result)])
            if let draw {
                let name = label.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "#", with: "_") + ".png"
                try PoseDrawing.draw(result, on: image).writePNG(to: (draw as NSString).appendingPathComponent(name))
            }
            print("\(label): \(result.landmarks.count) pose(s)")
        }
        if video, inputs.count == 1, !Self.isImage(inputs[0]) {
            let decoder: VideoDecoder
            do { decoder = try VideoDecoder(path: inputs[0]) } catch { throw CLIError(description: "\(error)") }
            var count = 0
            while count < maxFrames, let frame = try decoder.nextFrame() {
                try handle(frame.image, label: frame.label, timestamp: frame.timestampMs)
                count += 1
            }
        } else {
            for (index, path) in inputs.enumerated() {
                let image: MPImage
                do { image = try MPImage(contentsOfFile: path) } catch { throw CLIError(description: "\(path): \(error)") }
                let label = (path as NSString).lastPathComponent
                try handle(image, label: label, timestamp: video ? Int((Double(index) * 1000 / fps).rounded(.toNearestOrEven)) : nil)
            }
        }
        if let json {
            let document: [String: Any] = [
                "task": "pose", "model": (model as NSString).lastPathComponent, "runningMode": video ? "VIDEO" : "IMAGE",
                "mediapipeVersion": ReferenceJSON.mirroredVersion, "results": entries,
            ]
            let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
            try data.write(to: URL(fileURLWithPath: json))
        }
    }

    static func isImage(_ path: String) -> Bool {
        ["png", "jpg", "jpeg"].contains((path as NSString).pathExtension.lowercased())
    }
}

/// Results in the schema of the MediaPipe reference results (what MediaPipe's Python results give, field for field).
enum ReferenceJSON {
    /// The MediaPipe release whose outputs and schema these results mirror.
    static let mirroredVersion = "0.10.14"

    static func pose(_ result: PoseLandmarkerResult) -> [String: Any] {
        func point(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> [String: Any] {
            ["x": Double(x), "y": Double(y), "z": Double(z), "visibility": Double(visibility ?? 0), "presence": Double(presence ?? 0)]
        }
        var out: [String: Any] = [
            "landmarks": result.landmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
            "worldLandmarks": result.worldLandmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
        ]
        out["segmentationMasks"] = (result.segmentationMasks ?? []).map { mask -> [String: Any] in
            let count = Double(max(mask.float32Data.count, 1))
            return ["width": mask.width, "height": mask.height,
                    "mean": mask.float32Data.reduce(0) { $0 + Double($1) } / count,
                    "fractionAbove0.5": Double(mask.float32Data.filter { $0 > 0.5 }.count) / count]
        }
        return out
    }
}

/// The skeleton (MediaPipe's 33-point pose connections) and mask over the image.
enum PoseDrawing {
    static func draw(_ result: PoseLandmarkerResult, on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        for mask in result.segmentationMasks ?? [] {
            canvas.overlay(mask: mask.float32Data, maskWidth: mask.width, maskHeight: mask.height, .blue, opacity: 0.4)
        }
        let scale = Double(max(image.width, image.height)) / 300
        for pose in result.landmarks {
            let points = pose.map { (x: Double($0.x) * Double(image.width), y: Double($0.y) * Double(image.height)) }
            for (a, b) in PoseLandmarker.poseLandmarks where a < points.count && b < points.count {
                canvas.drawLine(from: points[a], to: points[b], thickness: max(1.5, scale), .green)
            }
            for (i, p) in points.enumerated() where (pose[i].visibility ?? 1) > 0.5 {
                canvas.drawPoint(x: p.x, y: p.y, radius: max(2, scale * 1.5), .red)
            }
        }
        return canvas
    }
}
