import CVisionTasksJPEGDecoder
import CVisionTasksPNG

/// PNG (libpng's simplified API, which reports errors in its control structure instead of jumping) and JPEG
/// (libjpeg-turbo behind `vt_jpeg_decode`, whose error exits land inside C) decoding.
enum ImageDecoder {
    struct Decoded {
        let width: Int
        let height: Int
        let format: PixelFormat
        let pixels: [UInt8]
        let exifOrientation: Int?
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func decode(_ bytes: [UInt8]) throws(ImageError) -> Decoded {
        if bytes.count >= 8, Array(bytes[0..<8]) == pngSignature { return try decodePNG(bytes) }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return try decodeJPEG(bytes) }
        throw .unknownFormat
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    static func decodePNG(_ bytes: [UInt8]) throws(ImageError) -> Decoded {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else {
            let text = message(image)
            png_image_free(&image)
            throw .corrupt(format: "PNG", message: text)
        }
        let width = Int(image.width), height = Int(image.height)
        guard MPImage.isSupported(width: width, height: height) else {
            png_image_free(&image)
            throw .unsupportedSize(width: width, height: height)
        }
        // RGB or RGBA as the file has alpha or not; gray and palette images expand to RGB(A).
        let hasAlpha = image.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0
        image.format = hasAlpha ? PNGFormat.rgba : PNGFormat.rgb
        let format: PixelFormat = hasAlpha ? .rgba8 : .rgb8
        let rowBytes = width * format.bytesPerPixel
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        let finished = pixels.withUnsafeMutableBytes { out in
            png_image_finish_read(&image, nil, out.baseAddress, Int32(rowBytes), nil)
        }
        guard finished != 0 else {
            let text = message(image)
            png_image_free(&image)
            throw .corrupt(format: "PNG", message: text)
        }
        png_image_free(&image)
        return Decoded(width: width, height: height, format: format, pixels: pixels, exifOrientation: nil)
    }

    static func decodeJPEG(_ bytes: [UInt8]) throws(ImageError) -> Decoded {
        var image = vt_jpeg_image()
        let status = bytes.withUnsafeBufferPointer {
            vt_jpeg_decode($0.baseAddress, $0.count, UInt64(MPImage.maximumPixelCount), &image)
        }
        defer { vt_jpeg_free(&image) }
        let text = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch Int(status) {
        case VT_JPEG_OK: break
        case VT_JPEG_TOO_LARGE:
            var width: UInt32 = 0, height: UInt32 = 0
            var scratch = [CChar](repeating: 0, count: 200)
            _ = bytes.withUnsafeBufferPointer { vt_jpeg_read_size($0.baseAddress, $0.count, &width, &height, &scratch) }
            throw .unsupportedSize(width: Int(width), height: Int(height))
        case VT_JPEG_NO_MEMORY: throw .corrupt(format: "JPEG", message: "out of memory")
        default: throw .corrupt(format: "JPEG", message: text)
        }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0, let base = image.pixels else { throw .unsupportedSize(width: width, height: height) }
        let pixels = Array(UnsafeBufferPointer(start: base, count: width * height * 3))
        var orientation: Int?
        if let exif = image.exif {
            orientation = EXIF.orientation(Array(UnsafeBufferPointer(start: exif, count: image.exif_length)))
        }
        return Decoded(width: width, height: height, format: .rgb8, pixels: pixels, exifOrientation: orientation)
    }
}

/// Reads the orientation tag (0x0112) from an APP1 "Exif\0\0" segment's TIFF structure, bounds-checked.
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
        guard u16(tiff + 2) == 42, let ifd = u32(tiff + 4), let count = u16(tiff + ifd) else { return nil }
        for entry in 0..<count {
            let at = tiff + ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112, let value = u16(at + 8), (1...8).contains(value) { return value }
        }
        return nil
    }
}

/// libpng's simplified-API format codes; the header spells RGB/RGBA as macro expressions Swift cannot import.
enum PNGFormat {
    static let gray: UInt32 = 0
    static let rgb: UInt32 = 2  // PNG_FORMAT_FLAG_COLOR
    static let rgba: UInt32 = 3  // PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA
}
