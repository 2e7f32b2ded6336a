/// Why an image could not be made, decoded or processed.
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    case fileUnreadable(path: String, reason: String)
    /// The bytes are none of the formats read (PNG, JPEG, BMP, GIF, PNM, TIFF, WebP, HEIF/HEIC/AVIF); `seen` names
    /// what they look like instead ("a PDF document", "an MP4 video (ftyp brands …)", or the first bytes in hex).
    case unknownFormat(seen: String)
    /// The image file is damaged or cut short; `format` names it, `message` is the decoder's own.
    case corrupt(format: String, message: String)
    /// Width × height above ``MPImage/maximumPixelCount`` (or zero): refused before allocating.
    case unsupportedSize(width: Int, height: Int)
    /// A pixel buffer shorter than its width, height and row stride need.
    case bufferTooSmall(needed: Int, available: Int)
    /// A row stride smaller than a row, or an odd size for a subsampled YUV format.
    case invalidLayout(String)
    /// Mirrored orientations are not supported, as in MediaPipe.
    case unsupportedOrientation(String)
    /// A region of interest or output size that cannot be sampled (zero or negative sizes, non-finite values).
    case invalidRegion(String)
    case encodingFailed(String)

    public var description: String {
        switch self {
        case let .fileUnreadable(path, reason): return "cannot read image '\(path)': \(reason)"
        case let .unknownFormat(seen):
            return "not an image format that can be read (PNG, JPEG, BMP, GIF, PNM, TIFF, WebP, HEIF/HEIC/AVIF): \(seen)"
        case let .corrupt(format, message): return "corrupt \(format): \(message)"
        case let .unsupportedSize(width, height): return "unsupported image size \(width)×\(height)"
        case let .bufferTooSmall(needed, available): return "pixel buffer has \(available) bytes, needs \(needed)"
        case let .invalidLayout(reason): return "invalid pixel layout: \(reason)"
        case let .unsupportedOrientation(name): return "orientation \(name) is not supported (mirrored orientations are rejected, as in MediaPipe)"
        case let .invalidRegion(reason): return "invalid region: \(reason)"
        case let .encodingFailed(reason): return "PNG encoding failed: \(reason)"
        }
    }
}
