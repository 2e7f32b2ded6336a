import ArgumentParser
import VisionTasksModelFormat
import Foundation
import VisionTasksImaging

struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image", abstract: "Decode images and cut model inputs from them.",
        subcommands: [ImageDecode.self, ImageCrop.self])
}

struct ImageDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode", abstract: "Decode a PNG or JPEG and write it as lossless PNG (RGB, or RGBA as decoded).")

    @Argument(help: "A PNG or JPEG file.") var image: String
    @Option(help: "The PNG to write.") var out: String

    func run() throws {
        do {
            let decoded = try MPImage(contentsOfFile: image)
            try PNGEncoder.write(decoded, to: out)
            let exif = decoded.exifOrientation.map { " exif_orientation=\($0)" } ?? ""
            print("\(decoded.width)x\(decoded.height) \(decoded.hasAlpha ? "RGBA" : "RGB")\(exif)")
        } catch {
            throw CLIError(description: "\(image): \(error)")
        }
    }
}

struct ImageCrop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crop",
        abstract: "Sample a rotated region into a float32 H×W×3 tensor (.npy), as MediaPipe's ImageToTensorCalculator does.")

    @Argument(help: "A PNG or JPEG file.") var image: String
    @Option(help: "CX,CY,W,H,DEGREES: centre and size in pixels, rotation clockwise in degrees.") var roi: String
    @Option(help: "WxH of the tensor.") var size: String
    @Flag(help: "Keep the region's aspect ratio, padding with the border.") var letterbox = false
    @Option(help: "0,1 or -1,1: what pixel values 0 and 255 become.") var range: String = "0,1"
    @Option(help: "zero or replicate.") var border: String = "zero"
    @Option(help: "The .npy to write.") var out: String

    func run() throws {
        let r = roi.split(separator: ",").compactMap { Double($0) }
        let s = size.lowercased().split(separator: "x").compactMap { Int($0) }
        let bounds = range.split(separator: ",").compactMap { Float($0) }
        guard r.count == 5 else { throw ValidationError("--roi takes CX,CY,W,H,DEGREES") }
        guard s.count == 2, s[0] > 0, s[1] > 0 else { throw ValidationError("--size takes WxH") }
        guard bounds.count == 2, bounds[0] < bounds[1] else { throw ValidationError("--range takes LOW,HIGH") }
        guard ["zero", "replicate"].contains(border) else { throw ValidationError("--border is zero or replicate") }
        do {
            let decoded = try MPImage(contentsOfFile: image)
            let options = ImageToTensorOptions(width: s[0], height: s[1], keepAspectRatio: letterbox,
                                               border: border == "zero" ? .zero : .replicate, range: bounds[0]...bounds[1])
            let region = RegionOfInterest(centerX: r[0], centerY: r[1], width: r[2], height: r[3], rotationDegrees: r[4])
            let (values, _) = try ImageToTensor.floats(from: decoded, region: region, options: options)
            try Data(NumPyArray(float32: values, shape: [s[1], s[0], 3]).npyData).write(to: URL(fileURLWithPath: out))
        } catch let error as ImageError {
            throw CLIError(description: "\(image): \(error)")
        }
    }
}
