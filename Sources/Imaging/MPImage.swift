import Foundation

/// Pixel layouts an ``MPImage`` can wrap: the cases of a CVPixelBuffer / CMSampleBuffer on Apple platforms.
public enum PixelFormat: Sendable, Equatable {
    case rgba8, bgra8, rgb8, gray8
    /// Full-resolution Y plane, then interleaved U/V at half resolution (camera "420f"/"420v" biplanar).
    case nv12
    /// Y plane, then U and V planes at half resolution.
    case i420

    /// Bytes per pixel of the first (or only) plane.
    var bytesPerPixel: Int {
        switch self {
        case .rgba8, .bgra8: return 4
        case .rgb8: return 3
        case .gray8, .nv12, .i420: return 1
        }
    }
}

/// How the image's pixels are turned relative to the way a person would look at it (UIImage.Orientation's names).
public enum ImageOrientation: Sendable, Equatable {
    case up, down, left, right
    case upMirrored, downMirrored, leftMirrored, rightMirrored

    /// The rotation, in degrees, of the region of interest MediaPipe's iOS vision task runner makes for this
    /// orientation (`MPPVisionTaskRunner.mm`: its degrees up 0, right −90, down −180, left −270, divided by −180 to
    /// radians, so right turns the region by +90°). It is MediaPipe's `ImageProcessingOptions.rotation_degrees`
    /// negated (C++ sets the rotation to −rotation_degrees·π/180): right is rotation_degrees −90, down 180, left 90.
    /// Mirrored cases have none: they are refused (``ImageError/unsupportedOrientation(_:)``), as MediaPipe refuses them.
    package var regionRotationDegrees: Double {
        switch self {
        case .up, .upMirrored: return 0
        case .right, .rightMirrored: return 90
        case .down, .downMirrored: return 180
        case .left, .leftMirrored: return 270
        }
    }

    /// Whether the orientation turns the picture a quarter turn (width and height trade places).
    package var isQuarterTurn: Bool {
        switch self {
        case .right, .left, .rightMirrored, .leftMirrored: return true
        default: return false
        }
    }

    var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: return true
        default: return false
        }
    }
}

/// One plane of pixels: bytes, where the plane starts, and the bytes from one row to the next.
struct Plane: Sendable {
    let bytes: [UInt8]
    let offset: Int
    let rowStride: Int
}

/// An image for the vision tasks: decoded from a photo file (PNG, JPEG, BMP, GIF, PNM, TIFF, WebP, HEIF/HEIC, AVIF), or wrapping a caller's pixel buffer without copying it
/// (Swift arrays share storage until written), plus an orientation.
public struct MPImage: Sendable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public var orientation: ImageOrientation { orientationValue }
    private var orientationValue: ImageOrientation
    /// The orientation tag (1–8) of a JPEG's, WebP's or PNG's (`eXIf`) EXIF or a TIFF's Orientation field, when
    /// present, as stored in the file. Decoding turns the pixels upright by it (``width``, ``height`` and the pixels
    /// are the upright image's) unless ``ImageDecodingOptions/appliesExifOrientation`` is off. (MediaPipe 1.2.3
    /// applies a JPEG's and ignores a PNG's.) Nil for HEIF, whose `irot`/`imir` are always applied (its EXIF tag is
    /// then to be ignored, as the HEIF specification says).
    public let exifOrientation: Int?
    let planes: [Plane]
    /// The part of the image a task that takes one (the image classifier's `regionOfInterest:`) is to look at,
    /// normalized to the image as stored; nil for all of it. Set by the task's method, not by callers.
    package var regionOfInterest: CGRect?

    /// Images above this many pixels are refused before any memory is allocated for them (a 100k × 100k header
    /// would otherwise ask for 30 GB). 2^28 is 16384 × 16384.
    public static let maximumPixelCount = 1 << 28

    /// Whether a width × height image is within ``maximumPixelCount`` — computed without overflowing, so absurd
    /// sizes from a header or a caller are refused instead of trapping. Package-wide for VisionTasksTooling's video
    /// frames, which are refused at the probe, before ffmpeg runs.
    package static func isSupported(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0 else { return false }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && count <= maximumPixelCount
    }

    /// Bytes a plane of `rows` rows needs: `rowStride × (rows − 1) + rowBytes`, or nil when that overflows.
    static func planeByteCount(rowStride: Int, rows: Int, rowBytes: Int) -> Int? {
        let (body, overflow) = rowStride.multipliedReportingOverflow(by: rows - 1)
        let (total, overflow2) = body.addingReportingOverflow(rowBytes)
        return overflow || overflow2 ? nil : total
    }

    init(width: Int, height: Int, format: PixelFormat, planes: [Plane], orientation: ImageOrientation, exifOrientation: Int?) throws(ImageError) {
        guard !orientation.isMirrored else { throw .unsupportedOrientation("\(orientation)") }
        guard Self.isSupported(width: width, height: height) else {
            throw .unsupportedSize(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.format = format
        self.planes = planes
        self.orientationValue = orientation
        self.exifOrientation = exifOrientation
    }

    /// Wraps packed pixels (RGBA8, BGRA8, RGB8, Gray8) with `rowStride` bytes per row (default: tightly packed).
    public init(pixels: [UInt8], width: Int, height: Int, format: PixelFormat, rowStride: Int? = nil,
                orientation: ImageOrientation = .up) throws(ImageError) {
        guard format != .nv12, format != .i420 else {
            throw .invalidLayout("use init(yPlane:…) for YUV formats")
        }
        guard Self.isSupported(width: width, height: height) else {
            throw .unsupportedSize(width: width, height: height)
        }
        let stride = rowStride ?? width * format.bytesPerPixel
        guard stride >= width * format.bytesPerPixel else {
            throw .invalidLayout("row stride \(stride) is shorter than a row of \(width * format.bytesPerPixel) bytes")
        }
        guard let needed = Self.planeByteCount(rowStride: stride, rows: height, rowBytes: width * format.bytesPerPixel) else {
            throw .invalidLayout("row stride \(stride) × \(height) rows is beyond any buffer")
        }
        guard pixels.count >= needed else { throw .bufferTooSmall(needed: needed, available: pixels.count) }
        try self.init(width: width, height: height, format: format, planes: [Plane(bytes: pixels, offset: 0, rowStride: stride)],
                      orientation: orientation, exifOrientation: nil)
    }

    /// Wraps camera YUV 4:2:0: NV12 (`chroma` holds interleaved U,V) or I420 (`chroma` = U plane, `chroma2` = V plane).
    public init(yPlane: [UInt8], yRowStride: Int, chroma: [UInt8], chromaRowStride: Int, chroma2: [UInt8]? = nil,
                chroma2RowStride: Int? = nil, width: Int, height: Int, format: PixelFormat,
                orientation: ImageOrientation = .up) throws(ImageError) {
        guard Self.isSupported(width: width, height: height) else {
            throw .unsupportedSize(width: width, height: height)
        }
        let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
        func check(_ bytes: [UInt8], _ stride: Int, _ rowBytes: Int, _ rows: Int, _ name: String) throws(ImageError) {
            guard stride >= rowBytes else { throw .invalidLayout("\(name) row stride \(stride) < \(rowBytes)") }
            guard let needed = MPImage.planeByteCount(rowStride: stride, rows: rows, rowBytes: rowBytes) else {
                throw .invalidLayout("\(name) row stride \(stride) × \(rows) rows is beyond any buffer")
            }
            guard bytes.count >= needed else { throw .bufferTooSmall(needed: needed, available: bytes.count) }
        }
        try check(yPlane, yRowStride, width, height, "Y")
        var planes = [Plane(bytes: yPlane, offset: 0, rowStride: yRowStride)]
        switch format {
        case .nv12:
            try check(chroma, chromaRowStride, 2 * chromaWidth, chromaHeight, "UV")
            planes.append(Plane(bytes: chroma, offset: 0, rowStride: chromaRowStride))
        case .i420:
            guard let chroma2 else { throw .invalidLayout("I420 needs a V plane") }
            let stride2 = chroma2RowStride ?? chromaRowStride
            try check(chroma, chromaRowStride, chromaWidth, chromaHeight, "U")
            try check(chroma2, stride2, chromaWidth, chromaHeight, "V")
            planes.append(Plane(bytes: chroma, offset: 0, rowStride: chromaRowStride))
            planes.append(Plane(bytes: chroma2, offset: 0, rowStride: stride2))
        default:
            throw .invalidLayout("init(yPlane:…) takes .nv12 or .i420")
        }
        try self.init(width: width, height: height, format: format, planes: planes, orientation: orientation, exifOrientation: nil)
    }

    /// Decodes an image file, its format told by content, never by name: PNG, JPEG, BMP, GIF (its first frame),
    /// binary PGM/PPM, TIFF, WebP, HEIF/HEIC and AVIF. Where MediaPipe's `Image.create_from_file` reads the format
    /// (PNG, JPEG, BMP, GIF, PNM: it decodes with stb_image) the pixels are MediaPipe's own — JPEG's through
    /// `StbImageJPEGReconstruction`, not libjpeg-turbo's, which differ by a level or two; TIFF, WebP and HEIF are
    /// Debian's libtiff, libwebp and libheif's. A JPEG, TIFF or WebP is turned upright by its EXIF orientation as
    /// MediaPipe 1.x turns a JPEG (``ImageDecodingOptions/appliesExifOrientation``). Only
    /// regular files are read: a FIFO, device or directory is ``ImageError/fileUnreadable(path:reason:)`` at once,
    /// never a wait. `orientation` is the decoded (upright) pixels' orientation.
    public init(contentsOfFile path: String, orientation: ImageOrientation = .up,
                decodingOptions: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageError) {
        let bytes = try RegularFile.contents(atPath: path)
        try self.init(encoded: bytes, orientation: orientation, decodingOptions: decodingOptions)
    }

    /// Decodes image bytes (any format of ``init(contentsOfFile:orientation:decodingOptions:)``, told by their
    /// signature), a JPEG, TIFF or WebP turned upright by its orientation tag unless
    /// `decodingOptions` says otherwise. A truncated or corrupt JPEG scan throws unless `decodingOptions` accepts
    /// damaged data.
    public init(encoded bytes: [UInt8], orientation: ImageOrientation = .up,
                decodingOptions: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageError) {
        guard !orientation.isMirrored else { throw .unsupportedOrientation("\(orientation)") }
        let decoded = try ImageDecoder.decode(bytes, options: decodingOptions)
        try self.init(width: decoded.width, height: decoded.height, format: decoded.format,
                      planes: [Plane(bytes: decoded.pixels, offset: 0, rowStride: decoded.width * decoded.format.bytesPerPixel)],
                      orientation: orientation, exifOrientation: decoded.exifOrientation)
    }

    /// Calls `body` with a reader over the image's planes in place (no copy).
    func withPixelReader<R, E: Error>(_ body: (PixelReader) throws(E) -> R) throws(E) -> R {
        func plane(_ i: Int) -> Plane { i < planes.count ? planes[i] : planes[0] }
        let p0 = plane(0), p1 = plane(1), p2 = plane(2)
        // Through a Result: Swift 6.0's withUnsafeBufferPointer rethrows `any Error`, not the body's type.
        return try p0.bytes.withUnsafeBufferPointer { (b0) in
            p1.bytes.withUnsafeBufferPointer { (b1) in
                p2.bytes.withUnsafeBufferPointer { (b2) in
                    Result { () throws(E) -> R in
                        try body(PixelReader(
                            format: format,
                            planes: (b0.baseAddress! + p0.offset, b1.baseAddress! + p1.offset, b2.baseAddress! + p2.offset),
                            strides: (p0.rowStride, p1.rowStride, p2.rowStride)))
                    }
                }
            }
        }.get()
    }

    /// The same pixels under another orientation (the planes are shared, not copied).
    /// Mirrored orientations are refused here as at creation: one rule wherever an orientation is given.
    public func withOrientation(_ orientation: ImageOrientation) throws(ImageError) -> MPImage {
        guard !orientation.isMirrored else { throw .unsupportedOrientation("\(orientation)") }
        var copy = self
        copy.orientationValue = orientation
        return copy
    }

    /// The pixels of a rectangle (clipped to the image) as a new RGB image with this image's orientation; nil when
    /// the rectangle holds no pixel.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> MPImage? {
        let left = max(0, x), top = max(0, y)
        let right = min(width, x &+ max(cropWidth, 0)), bottom = min(height, y &+ max(cropHeight, 0))
        guard right > left, bottom > top else { return nil }
        var out = [UInt8](repeating: 0, count: (right - left) * (bottom - top) * 3)
        out.withUnsafeMutableBufferPointer { out in
            withPixelReader { reader in
                var at = 0
                for row in top..<bottom {
                    for column in left..<right {
                        let value = reader.rgb(column, row)
                        out[at] = value.x; out[at + 1] = value.y; out[at + 2] = value.z
                        at += 3
                    }
                }
            }
        }
        return try? MPImage(pixels: out, width: right - left, height: bottom - top, format: .rgb8, orientation: orientation)
    }

    /// The image as tightly packed RGB8 (a copy; used for encoding and drawing).
    public func rgbPixels() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { out in
            withPixelReader { reader in
                var at = 0
                for y in 0..<height {
                    for x in 0..<width {
                        let value = reader.rgb(x, y)
                        out[at] = value.x; out[at + 1] = value.y; out[at + 2] = value.z
                        at += 3
                    }
                }
            }
        }
        return out
    }

    /// The image as tightly packed RGBA8 (a copy); opaque formats get alpha 255.
    public func rgbaPixels() -> [UInt8] {
        var out: [UInt8] = []
        rgbaPixels(into: &out)
        return out
    }

    /// ``rgbaPixels()`` into `out`, whose memory is reused when it is large enough: a task that converts every frame
    /// keeps one buffer instead of touching a fresh megabyte each time (a page fault per 4 KiB of it).
    package func rgbaPixels(into out: inout [UInt8]) {
        let count = width * height * 4
        if out.count != count {
            out.removeAll(keepingCapacity: true)
            out.append(contentsOf: repeatElement(255, count: count))
        }
        let hasAlpha = hasAlpha
        out.withUnsafeMutableBufferPointer { out in
            withPixelReader { reader in
                // Decoded photos (RGB) and RGBA buffers row by row, with unchecked index arithmetic: through the
                // reader's per-pixel switch a 640 × 480 photo took about a millisecond, the interactive segmenter's
                // largest step before its model.
                let (width, height, stride) = (width, height, reader.strides.0)
                guard let base = out.baseAddress else { return }
                switch reader.format {
                case .rgb8:
                    for y in 0..<height {
                        let row = reader.planes.0 + y * stride, line = base + y * width * 4
                        for x in 0..<width {
                            let from = row + x &* 3, to = line + x &* 4
                            to[0] = from[0]; to[1] = from[1]; to[2] = from[2]; to[3] = 255
                        }
                    }
                    return
                case .rgba8:
                    for y in 0..<height {
                        (base + y * width * 4).update(from: reader.planes.0 + y * stride, count: width * 4)
                    }
                    return
                default: break
                }
                var at = 0
                for y in 0..<height {
                    let row = reader.planes.0 + y * reader.strides.0
                    for x in 0..<width {
                        let value = reader.rgb(x, y)
                        out[at] = value.x; out[at + 1] = value.y; out[at + 2] = value.z
                        out[at + 3] = hasAlpha ? row[4 * x + 3] : 255
                        at += 4
                    }
                }
            }
        }
    }

    /// The mean RGB of the 3 × 3 pixels around each point, read in place; nil for a point whose block is not wholly
    /// inside the buffer. For the landmark tasks' identity colours (VisionTasks' IdentityTracker), in the buffer's
    /// own pixel frame.
    package func meanRGB3x3(at points: [(x: Int, y: Int)]) -> [SIMD3<Float>?] {
        withPixelReader { reader in
            points.map { point -> SIMD3<Float>? in
                guard point.x >= 1, point.y >= 1, point.x < width - 1, point.y < height - 1 else { return nil }
                var sum = SIMD3<Float>.zero
                for dy in -1...1 {
                    for dx in -1...1 { sum += SIMD3<Float>(reader.rgb(point.x + dx, point.y + dy)) }
                }
                return sum / 9
            }
        }
    }

    /// Whether the decoded or wrapped pixels carry alpha.
    public var hasAlpha: Bool { format == .rgba8 || format == .bgra8 }
}

/// Reads pixels of any ``PixelFormat`` as RGB bytes, in place. Valid only inside `MPImage.withPixelReader`;
/// callers keep (x, y) inside the image.
struct PixelReader {
    let format: PixelFormat
    let planes: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafePointer<UInt8>)
    let strides: (Int, Int, Int)

    @inline(__always)
    func rgb(_ x: Int, _ y: Int) -> SIMD3<UInt8> {
        let p = planes.0 + y * strides.0
        switch format {
        case .rgb8: return SIMD3(p[3 * x], p[3 * x + 1], p[3 * x + 2])
        case .rgba8: return SIMD3(p[4 * x], p[4 * x + 1], p[4 * x + 2])
        case .bgra8: return SIMD3(p[4 * x + 2], p[4 * x + 1], p[4 * x])
        case .gray8: return SIMD3(repeating: p[x])
        case .nv12:
            let c = planes.1 + (y / 2) * strides.1 + (x / 2) * 2
            return YUV.rgb(y: p[x], u: c[0], v: c[1])
        case .i420:
            return YUV.rgb(y: p[x], u: planes.1[(y / 2) * strides.1 + x / 2], v: planes.2[(y / 2) * strides.2 + x / 2])
        }
    }
}

/// YUV → RGB by ITU-R BT.601, full range (what camera "420f" buffers and MediaPipe's converter use), rounded
/// and clamped to bytes.
enum YUV {
    @inline(__always)
    static func rgb(y: UInt8, u: UInt8, v: UInt8) -> SIMD3<UInt8> {
        let yf = Float(y), uf = Float(u) - 128, vf = Float(v) - 128
        let r = yf + 1.402 * vf
        let g = yf - 0.344136 * uf - 0.714136 * vf
        let b = yf + 1.772 * uf
        let clamped = SIMD3(r, g, b).rounded(.toNearestOrAwayFromZero).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255))
        return SIMD3<UInt8>(truncatingIfNeeded: SIMD3<Int32>(clamped))
    }
}
