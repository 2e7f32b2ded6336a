import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksResultJSON
import VisionTasksTooling
import VisionTasks

struct FaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "face",
        abstract: "Detect face landmarks, blendshapes and transformation matrices in images or video frames; write MediaPipe's reference JSON and drawings (contours, irises, top blendshapes).")

    @OptionGroup var common: TaskCommandOptions
    @Option(help: "Most faces to find.") var numFaces: Int = 2
    @Flag(inversion: .prefixedNo, help: "Compute the 52 blendshape scores of each face.") var blendshapes = true
    @Flag(inversion: .prefixedNo, help: "Compute each face's transformation from the canonical face model.") var transformationMatrixes = true

    func validate() throws {
        try OptionRange.check(numFaces, in: OptionRange.instances, option: "--num-faces")
    }

    func run() throws {
        try TaskCommandRunner(options: common, taskName: "face").run(FaceLandmarker.self, taskOptions)
    }

    /// The task's options from the command line (the worker builds its tasks from the same parsed commands).
    var taskOptions: FaceLandmarkerOptions {
        let options = FaceLandmarkerOptions()
        options.numFaces = numFaces
        options.outputFaceBlendshapes = blendshapes
        options.outputFacialTransformationMatrixes = transformationMatrixes
        options.landmarkSmoothing = common.smoothing
        return options
    }
}

extension FaceLandmarkerResult: CommandResult {
    func drawing(on image: MPImage) -> Canvas { FaceDrawing.draw(self, on: image) }
    var summary: String { "\(faceLandmarks.count) face(s)" }
}

/// The face contours and irises (MediaPipe's connection sets) over the image, and the strongest blendshapes.
enum FaceDrawing {
    static func draw(_ result: FaceLandmarkerResult, on image: MPImage) -> Canvas {
        var canvas = Canvas(image: image)
        let scale = Double(max(image.width, image.height)) / 600
        let irises = Set(FaceLandmarker.leftIrisConnections() + FaceLandmarker.rightIrisConnections())
        for (f, face) in result.faceLandmarks.enumerated() {
            let points = face.map { (x: Double($0.x) * Double(image.width), y: Double($0.y) * Double(image.height)) }
            for connection in FaceLandmarker.contoursConnections() {
                let a = Int(connection.start), b = Int(connection.end)
                guard a < points.count, b < points.count else { continue }
                canvas.drawLine(from: points[a], to: points[b], thickness: max(1, scale), irises.contains(connection) ? .blue : .green)
            }
            guard f < result.faceBlendshapes.count else { continue }
            // The three strongest, beside the face (`_neutral` is a placeholder class, not an expression).
            let top = result.faceBlendshapes[f].categories.filter { $0.categoryName != "_neutral" }.sorted { $0.score > $1.score }.prefix(3)
            // Finite points only: a NaN landmark is not drawn (Canvas skips it) and must not place the label.
            let x = (pixelCoordinate(points.map(\.x).filter(\.isFinite).max() ?? 0) ?? 0) + 4
            let y = pixelCoordinate(points.map(\.y).filter(\.isFinite).min() ?? 0) ?? 0
            let size = max(1, Int(scale.rounded()))
            for (i, category) in top.enumerated() {
                canvas.drawLabel(String(format: "%@ %.2f", category.categoryName ?? "?", category.score), x: x, y: y + i * 10 * size, scale: size, .white)
            }
        }
        return canvas
    }
}
