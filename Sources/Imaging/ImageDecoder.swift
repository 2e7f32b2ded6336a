import CVisionTasksImageDecoders
import CVisionTasksJPEGDecoder
import CVisionTasksPNG

/// How image decoding treats damaged data and a JPEG's EXIF orientation.
public struct ImageDecodingOptions: Sendable, Equatable {
    /// Whether a JPEG whose entropy-coded data is truncated or corrupt (libjpeg's "premature end of JPEG file",
    /// "bad Huffman code", "premature end of data segment", lost restart markers) decodes anyway, as libjpeg and
    /// stb_image decode past it: blocks after the damage come out flat or garbled. Off by default, when such a JPEG
    /// throws ``ImageError/corrupt(format:message:)`` with a message that names the damage ("truncated: premature
    /// end of JPEG data …"): a half-written or half-downloaded photo would otherwise give silently wrong results.
    /// Damage that leaves every code valid (flipped bits inside the data) cannot be detected: JPEG has no checksum.
    public var acceptsDamagedJPEGData: Bool

    /// Whether an EXIF orientation tag (2–8) — a JPEG's or WebP's EXIF, a TIFF's Orientation field — turns the
    /// decoded pixels upright, as MediaPipe 1.x's `Image.create_from_file` does for a JPEG (PIL's
    /// `ImageOps.exif_transpose` table): tag 6, a phone held upright, gives an
    /// image as tall as the stored one is wide, and results are in that upright frame. On by default; off, the
    /// pixels stay as stored, as MediaPipe 0.10 left them. ``MPImage/exifOrientation`` carries the tag either way.
    public var appliesExifOrientation: Bool

    public init(acceptsDamagedJPEGData: Bool = false, appliesExifOrientation: Bool = true) {
        self.acceptsDamagedJPEGData = acceptsDamagedJPEGData
        self.appliesExifOrientation = appliesExifOrientation
    }
}

/// Decoding by content (``ImageFormat/sniff(_:)``). Where MediaPipe's `Image.create_from_file` reads a format (it
/// decodes with stb_image), the pixels are stb_image's: PNG through libpng's low-level API with stb's reductions
/// (`vt_png_decode`), JPEG through libjpeg-turbo's entropy decoder finished as stb finishes it
/// (`StbImageJPEGReconstruction`), BMP, GIF and binary PNM by decoders written to stb's rules. TIFF, WebP and
/// HEIF/HEIC/AVIF, which MediaPipe does not read, go through Debian's libtiff, libwebp and libheif, as Pillow (and
/// pillow-heif) decode them.
enum ImageDecoder {
    struct Decoded {
        /// The size of `pixels`: upright when the EXIF orientation was applied.
        let width: Int
        let height: Int
        let format: PixelFormat
        let pixels: [UInt8]
        let exifOrientation: Int?
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The libheif release this process loaded ("1.15.1"): HEIF's pixels depend on it (its YCbCr → RGB conversion
    /// changed between Debian 12's 1.15 and 1.23), so the tests hold each release to its own measured difference.
    static let libheifVersion = String(cString: vt_heif_version())

    static func decode(_ bytes: [UInt8], options: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageError) -> Decoded {
        switch try ImageFormat.sniff(bytes) {
        case .png: return try decodePNG(bytes, options: options)
        case .jpeg: return try decodeJPEG(bytes, options: options)
        case .bmp: return try BMPDecoder.decode(bytes)
        case .gif: return try GIFDecoder.decode(bytes)
        case .pnm: return try PNMDecoder.decode(bytes)
        case .tiff: return try decodeWithLibrary(bytes, format: "TIFF", options: options, vt_tiff_decode)
        case .webp: return try decodeWithLibrary(bytes, format: "WebP", options: options, vt_webp_decode)
        case .heif: return try decodeWithLibrary(bytes, format: "HEIF", options: options, vt_heif_decode)
        }
    }

    /// PNG as stb_image gives it (see png_decoder.c): 16-bit samples reduced to their high byte, gamma and colour
    /// chunks ignored. An `eXIf` chunk's orientation is reported and applied as a JPEG's EXIF is
    /// (``ImageDecodingOptions/appliesExifOrientation``): a photo tagged upright is shown upright. That goes beyond
    /// MediaPipe 1.2.3, whose `create_from_file` (stb_image) ignores the chunk and keeps the stored pixels (checked
    /// by tools/make_format_pixel_fixtures.py): with the option off, the pixels are MediaPipe's.
    static func decodePNG(_ bytes: [UInt8], options: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageError) -> Decoded {
        try decodeWithLibrary(bytes, format: "PNG", options: options, vt_png_decode)
    }

    /// One of the C shims' decoders (image_decoders.h): the pixel budget is checked there before any pixel memory
    /// is allocated. TIFF's Orientation tag and WebP's and PNG's EXIF orientation turn the pixels upright as a JPEG's do;
    /// HEIF's irot/imir are applied by libheif itself, and a HEIF's EXIF orientation is then ignored, as the HEIF
    /// specification asks and pillow-heif does.
    private static func decodeWithLibrary(
        _ bytes: [UInt8], format: String, options: ImageDecodingOptions,
        _ decoder: (UnsafePointer<UInt8>?, Int, UInt64, UnsafeMutablePointer<vt_image>?) -> Int32
    ) throws(ImageError) -> Decoded {
        var image = vt_image()
        let status = bytes.withUnsafeBufferPointer { decoder($0.baseAddress, $0.count, UInt64(MPImage.maximumPixelCount), &image) }
        defer { vt_image_free(&image) }
        let text = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch Int(status) {
        case VT_IMAGE_OK: break
        case VT_IMAGE_TOO_LARGE: throw .unsupportedSize(width: Int(image.width), height: Int(image.height))
        case VT_IMAGE_NO_MEMORY: throw .corrupt(format: format, message: "out of memory")
        case VT_IMAGE_UNSUPPORTED: throw .corrupt(format: format, message: "not supported: \(text)")
        default: throw .corrupt(format: format, message: text.isEmpty ? "cannot be decoded" : text)
        }
        let width = Int(image.width), height = Int(image.height), channels = Int(image.channels)
        guard MPImage.isSupported(width: width, height: height), channels == 3 || channels == 4, let base = image.pixels else {
            throw .unsupportedSize(width: width, height: height)
        }
        var tag: Int?
        if image.orientation != 0 { tag = Int(image.orientation) }
        if let exif = image.exif {
            var payload = Array(UnsafeBufferPointer(start: exif, count: image.exif_length))
            // WebP's EXIF and PNG's eXIf chunks hold the TIFF structure alone; some writers keep JPEG's "Exif\0\0" before it.
            if !payload.starts(with: Array("Exif\0\0".utf8)) { payload = Array("Exif\0\0".utf8) + payload }
            tag = EXIF.orientation(payload)
        }
        let layout = UprightLayout(tag: options.appliesExifOrientation ? tag : nil, width: width, height: height)
        let pixels = layout.upright(base, bytesPerPixel: channels)
        return Decoded(width: layout.uprightWidth, height: layout.uprightHeight, format: channels == 4 ? .rgba8 : .rgb8,
                       pixels: pixels, exifOrientation: tag)
    }

    /// MediaPipe's pixels for a JPEG: stb_image's reconstruction over libjpeg-turbo's coefficients; libjpeg-turbo's
    /// own decode for what stb would not read (12-bit samples, two components, fractional sampling ratios).
    static func decodeJPEG(_ bytes: [UInt8], options: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageError) -> Decoded {
        var coefficients = vt_jpeg_coefficients()
        let strict: Int32 = options.acceptsDamagedJPEGData ? 0 : 1
        let status = bytes.withUnsafeBufferPointer {
            vt_jpeg_read_coefficients($0.baseAddress, $0.count, UInt64(MPImage.maximumPixelCount), strict, &coefficients)
        }
        defer { vt_jpeg_free_coefficients(&coefficients) }
        if Int(status) == VT_JPEG_UNSUPPORTED { return try decodeJPEGWithLibjpeg(bytes, options: options) }
        try check(status, message: coefficients.message, bytes)
        let width = Int(coefficients.width), height = Int(coefficients.height)
        guard MPImage.isSupported(width: width, height: height) else { throw .unsupportedSize(width: width, height: height) }
        let count = Int(coefficients.component_count)
        let components = withUnsafeBytes(of: coefficients.components) { raw in
            raw.bindMemory(to: vt_jpeg_component.self).prefix(count).map { c in
                StbImageJPEGReconstruction.Component(
                    blockRows: c.block_rows.map { rows in (0..<Int(c.height_in_blocks)).map { UnsafePointer(rows[$0]) } } ?? [],
                    quantization: withUnsafeBytes(of: c.quantization) { Array($0.bindMemory(to: UInt16.self)) },
                    widthInBlocks: Int(c.width_in_blocks), heightInBlocks: Int(c.height_in_blocks),
                    horizontalSampling: Int(c.horizontal_sampling), verticalSampling: Int(c.vertical_sampling), id: Int(c.id))
            }
        }
        let reconstruction = StbImageJPEGReconstruction(width: width, height: height, components: components,
                                                         sawJFIF: coefficients.saw_jfif != 0,
                                                         adobeTransform: Int(coefficients.adobe_transform))
        guard reconstruction.isSupported else { return try decodeJPEGWithLibjpeg(bytes, options: options) }
        let tag = orientation(coefficients.exif, coefficients.exif_length)
        let layout = UprightLayout(tag: options.appliesExifOrientation ? tag : nil, width: width, height: height)
        return Decoded(width: layout.uprightWidth, height: layout.uprightHeight, format: .rgb8,
                       pixels: reconstruction.rgbPixels(exifOrientation: layout.tag), exifOrientation: tag)
    }

    /// libjpeg-turbo's complete decode (islow IDCT, fancy upsampling), for JPEGs stb_image would not read.
    static func decodeJPEGWithLibjpeg(_ bytes: [UInt8], options: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageError) -> Decoded {
        var image = vt_jpeg_image()
        let strict: Int32 = options.acceptsDamagedJPEGData ? 0 : 1
        let status = bytes.withUnsafeBufferPointer {
            vt_jpeg_decode($0.baseAddress, $0.count, UInt64(MPImage.maximumPixelCount), strict, &image)
        }
        defer { vt_jpeg_free(&image) }
        try check(status, message: image.message, bytes)
        let width = Int(image.width), height = Int(image.height)
        // The C side allocated width × height × 3 bytes after the same budget check.
        guard MPImage.isSupported(width: width, height: height), let base = image.pixels else {
            throw .unsupportedSize(width: width, height: height)
        }
        let tag = orientation(image.exif, image.exif_length)
        let layout = UprightLayout(tag: options.appliesExifOrientation ? tag : nil, width: width, height: height)
        // The pixels are copied out of C's buffer anyway: turning them upright is that same copy.
        let pixels = layout.tag == 1 ? Array(UnsafeBufferPointer(start: base, count: width * height * 3)) : layout.upright(base)
        return Decoded(width: layout.uprightWidth, height: layout.uprightHeight, format: .rgb8, pixels: pixels, exifOrientation: tag)
    }

    private static func check<Message>(_ status: Int32, message: Message, _ bytes: [UInt8]) throws(ImageError) {
        let text = withUnsafeBytes(of: message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch Int(status) {
        case VT_JPEG_OK: return
        case VT_JPEG_TOO_LARGE:
            var width: UInt32 = 0, height: UInt32 = 0
            var scratch = [CChar](repeating: 0, count: 200)
            _ = bytes.withUnsafeBufferPointer { vt_jpeg_read_size($0.baseAddress, $0.count, &width, &height, &scratch) }
            throw .unsupportedSize(width: Int(width), height: Int(height))
        case VT_JPEG_NO_MEMORY: throw .corrupt(format: "JPEG", message: "out of memory")
        default: throw .corrupt(format: "JPEG", message: text)
        }
    }

    private static func orientation(_ exif: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int? {
        guard let exif else { return nil }
        return EXIF.orientation(Array(UnsafeBufferPointer(start: exif, count: length)))
    }
}

/// Reads the orientation tag (0x0112) from an APP1 "Exif\0\0" segment's TIFF structure, bounds-checked: a
/// damaged or hostile segment gives nil, never a read outside it.
enum EXIF {
    static func orientation(_ segment: [UInt8]) -> Int? {
        guard segment.count >= 14, Array(segment[0..<6]) == Array("Exif\0\0".utf8) else { return nil }
        let tiff = 6
        let little: Bool
        switch (segment[tiff], segment[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= segment.count else { return nil }
            return little ? Int(segment[at]) | Int(segment[at + 1]) << 8 : Int(segment[at]) << 8 | Int(segment[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(little ? at + 2 : at), let low = u16(little ? at : at + 2) else { return nil }
            return high << 16 | low
        }
        // The IFD offset is a file's UInt32 (up to 2^32 − 1): refused past the segment (at most 65,533 bytes, an APP1
        // marker's length) before it is added to anything, so every position below stays small.
        guard u16(tiff + 2) == 42, let ifd = u32(tiff + 4), ifd <= segment.count - tiff,
              let count = u16(tiff + ifd) else { return nil }
        for entry in 0..<count {
            let at = tiff + ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let value = u16(at + 8), (1...8).contains(value) { return value }
        }
        return nil
    }
}

/// libpng's simplified-API format codes; the header spells RGB/RGBA as macro expressions Swift cannot import.
/// Package-wide for the PNG writer in VisionTasksTooling.
package enum PNGFormat {
    package static let gray: UInt32 = 0
    package static let rgb: UInt32 = 2  // PNG_FORMAT_FLAG_COLOR
    package static let rgba: UInt32 = 3  // PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA
}
