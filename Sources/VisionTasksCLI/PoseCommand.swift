import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksResultJSON
import VisionTasksTooling
import VisionTasks

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect pose landmarks in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, mask).")

    @OptionGroup var common: TaskCommandOptions
    @Option(help: "Most poses to find.") var numPoses: Int = 2
    @Flag(inversion: .prefixedNo, help: "Compute segmentation masks.") var segmentation = true

    func validate() throws {
        try OptionRange.check(numPoses, in: OptionRange.instances, option: "--num-poses")
    }

    /// The task's options from the command line (the worker builds its tasks from the same parsed commands).
    var taskOptions: PoseLandmarkerOptions {
        let options = PoseLandmarkerOptions()
        options.numPoses = numPoses
        options.outputSegmentationMasks = segmentation
        options.landmarkSmoothing = common.smoothing
        return options
    }

    func run() throws {
        try TaskCommandRunner(options: common, taskName: "pose").run(PoseLandmarker.self, taskOptions)
    }
}

extension PoseLandmarkerResult: CommandResult {
    func drawing(on image: MPImage) -> Canvas { PoseDrawing.draw(self, on: image) }
    var summary: String { "\(landmarks.count) pose(s)" }
}

/// The skeleton (MediaPipe's 33-point pose connections) and mask over the image.
enum PoseDrawing {
    static func draw(_ result: PoseLandmarkerResult, on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        for mask in result.segmentationMasks {
            canvas.overlay(mask: mask.float32Values, maskWidth: mask.width, maskHeight: mask.height, .blue, opacity: 0.4)
        }
        let scale = Double(max(image.width, image.height)) / 300
        for pose in result.landmarks {
            let points = pose.map { (x: Double($0.x) * Double(image.width), y: Double($0.y) * Double(image.height)) }
            for connection in PoseLandmarker.poseLandmarks {
                let a = Int(connection.start), b = Int(connection.end)
                guard a < points.count, b < points.count else { continue }
                canvas.drawLine(from: points[a], to: points[b], thickness: max(1.5, scale), .green)
            }
            for (i, p) in points.enumerated() where (pose[i].visibility?.floatValue ?? 1) > 0.5 {
                canvas.drawPoint(x: p.x, y: p.y, radius: max(2, scale * 1.5), .red)
            }
        }
        return canvas
    }
}
