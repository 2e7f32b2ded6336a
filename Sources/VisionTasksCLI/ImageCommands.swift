import ArgumentParser
import VisionTasksModelFormat
import Foundation
import VisionTasksImaging
import VisionTasksTooling

struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image", abstract: "Decode images and cut model inputs from them.",
        subcommands: [ImageDecode.self, ImageCrop.self])
}

struct ImageDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode", abstract: "Decode an image (PNG, JPEG, BMP, GIF, PNM, TIFF, WebP, HEIC, AVIF) and write it as lossless PNG (RGB, or RGBA as decoded).")

    @Argument(help: "An image file (PNG, JPEG, BMP, GIF, PNM, TIFF, WebP, HEIC, AVIF; told by content).") var image: String
    @Option(help: "The PNG to write.") var out: String
    @Flag(name: .customLong("no-exif"), help: "Keep a JPEG's pixels as stored instead of turning them upright by its EXIF orientation tag.")
    var noExif = false

    func run() throws {
        do {
            let decoded = try MPImage(contentsOfFile: image, decodingOptions: ImageDecodingOptions(appliesExifOrientation: !noExif))
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

    @Argument(help: "An image file (PNG, JPEG, BMP, GIF, PNM, TIFF, WebP, HEIC, AVIF; told by content).") var image: String
    @Option(help: "CX,CY,W,H,DEGREES: centre and size in pixels, rotation clockwise in degrees.") var roi: String
    @Option(help: "WxH of the tensor (each side 1...8192).", transform: TensorSize.parse) var size: TensorSize
    @Flag(help: "Keep the region's aspect ratio, padding with the border.") var letterbox = false
    @Option(help: "0,1 or -1,1: what pixel values 0 and 255 become.") var range: String = "0,1"
    @Option(help: "zero or replicate.") var border: String = "zero"
    @Option(help: "The .npy to write.") var out: String
    @Flag(name: .customLong("no-exif"), help: "Keep a JPEG's pixels as stored instead of turning them upright by its EXIF orientation tag.")
    var noExif = false

    /// Region coordinates beyond this many pixels are no image's: the bound keeps the sampler's arithmetic finite.
    static let regionLimit = 1e7

    func validate() throws {
        let r = roi.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        guard r.count == 5, r.allSatisfy({ $0 != nil }) else { throw ValidationError("--roi takes CX,CY,W,H,DEGREES") }
        guard r.allSatisfy({ $0!.isFinite && abs($0!) <= Self.regionLimit }) else {
            throw ValidationError("--roi: every value must be a finite number within ±\(Int(Self.regionLimit))")
        }
        guard r[2]! > 0, r[3]! > 0 else { throw ValidationError("--roi: width and height must be positive") }
        let bounds = range.split(separator: ",", omittingEmptySubsequences: false).map { Float($0) }
        guard bounds.count == 2, let low = bounds[0], let high = bounds[1], low.isFinite, high.isFinite, low < high else {
            throw ValidationError("--range takes LOW,HIGH: two finite numbers, LOW below HIGH")
        }
        guard ["zero", "replicate"].contains(border) else { throw ValidationError("--border is zero or replicate") }
    }

    func run() throws {
        let r = roi.split(separator: ",").compactMap { Double($0) }
        let s = [size.width, size.height]
        let bounds = range.split(separator: ",").compactMap { Float($0) }
        do {
            let decoded = try MPImage(contentsOfFile: image, decodingOptions: ImageDecodingOptions(appliesExifOrientation: !noExif))
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
