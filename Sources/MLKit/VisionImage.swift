import VisionTasksImaging

/// An image to process (ML Kit's `VisionImage`) and the orientation its pixels are to be read in.
public final class VisionImage: @unchecked Sendable {
    // @unchecked: `orientation` is set by the caller before the image is handed over, as ML Kit's guide does.
    public let image: MPImage
    public var orientation: ImageOrientation

    public init(image: MPImage) {
        self.image = image
        orientation = image.orientation
    }

    /// The pixels as `orientation` says to read them, taken when the detector is handed the image. A mirrored
    /// orientation (what a front-camera helper may give) is `ImageError.unsupportedOrientation`: the library has
    /// one rule for mirrored orientations, MediaPipe's, which refuses them (see the Orientation article).
    func oriented() throws(ImageError) -> MPImage { try image.withOrientation(orientation) }
}
