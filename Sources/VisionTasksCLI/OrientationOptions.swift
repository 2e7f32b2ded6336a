import ArgumentParser
import Foundation
import VisionTasksImaging
import VisionTasksTooling

/// How the task commands' inputs are oriented: MediaPipe's `rotation_degrees` or an `MPImage` orientation (one or
/// the other), and whether a JPEG's EXIF orientation turns it upright. The commands only give the images their
/// orientation; how a task honours it is the task's.
struct OrientationOptions: ParsableArguments {
    @Option(name: .customLong("rotation-degrees"), parsing: .unconditional,
            help: ArgumentHelp("MediaPipe's ImageProcessingOptions.rotation_degrees: the rotation to apply to the image, clockwise, a multiple of 90 (negative allowed). Sets the images' MPImage orientation.",
                               valueName: "degrees"))
    var rotationDegrees: Int?
    @Option(help: ArgumentHelp("The images' MPImage orientation: \(Self.orientationNames.map(\.name).joined(separator: ", ")).",
                               valueName: "orientation"),
            transform: OrientationOptions.orientation(named:))
    var orientation: ImageOrientation?
    @Flag(name: .customLong("no-exif"), help: "Keep a JPEG's pixels as stored instead of turning them upright by its EXIF orientation tag.")
    var noExif = false

    static let orientationNames: [(name: String, orientation: ImageOrientation)] = [
        ("up", .up), ("right", .right), ("down", .down), ("left", .left),
        ("upMirrored", .upMirrored), ("rightMirrored", .rightMirrored), ("downMirrored", .downMirrored), ("leftMirrored", .leftMirrored),
    ]

    static func orientation(named name: String) throws -> ImageOrientation {
        guard let match = orientationNames.first(where: { $0.name == name }) else {
            throw ValidationError("--orientation takes one of \(orientationNames.map(\.name).joined(separator: ", ")) (got '\(name)')")
        }
        return match.orientation
    }

    func validate() throws {
        guard rotationDegrees == nil || orientation == nil else {
            throw ValidationError("--rotation-degrees and --orientation both set the images' orientation: give one")
        }
        if let rotationDegrees, ImageOrientation(rotationDegrees: rotationDegrees) == nil {
            throw ValidationError("--rotation-degrees must be a multiple of 90 (got \(rotationDegrees))")
        }
    }

    /// The orientation every input image or frame gets.
    var imageOrientation: ImageOrientation {
        orientation ?? rotationDegrees.flatMap { ImageOrientation(rotationDegrees: $0) } ?? .up
    }

    var decodingOptions: ImageDecodingOptions { ImageDecodingOptions(appliesExifOrientation: !noExif) }

    /// An image file, decoded (upright by its EXIF tag unless --no-exif) and given the orientation.
    func image(contentsOfFile path: String) throws -> MPImage {
        do { return try MPImage(contentsOfFile: path, orientation: imageOrientation, decodingOptions: decodingOptions) } catch {
            throw CLIError(description: "\(path): \(error)")
        }
    }

    /// A video file's frames, each given the orientation (the decoder's errors as they are, for the caller to word).
    func video(_ path: String) throws -> VideoDecoder {
        try VideoDecoder(path: path, orientation: imageOrientation)
    }
}
