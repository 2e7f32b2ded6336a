import Foundation

/// The encodings ``MPImage`` decodes, recognised by content (signatures, and for HEIF/AVIF the `ftyp` box's
/// brands), never by a file's name.
package enum ImageFormat: Equatable, Sendable {
    case png, jpeg, bmp, gif, pnm, tiff, webp, heif

    /// The format of `bytes`, or ``ImageError/unknownFormat(seen:)`` naming what they look like instead.
    package static func sniff(_ bytes: [UInt8]) throws(ImageError) -> ImageFormat {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts(ImageDecoder.pngSignature) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if ascii("GIF87a") || ascii("GIF89a") { return .gif }
        if ascii("BM"), bytes.count >= 18 { return .bmp }
        if ascii("P5") || ascii("P6") { return .pnm }
        if ascii("II*\0") || ascii("MM\0*") || ascii("II+\0") || ascii("MM\0+") { return .tiff }
        if ascii("RIFF"), ascii("WEBP", at: 8) { return .webp }
        if ascii("ftyp", at: 4), let brands = Self.brands(bytes) {
            if !brands.isDisjoint(with: Self.heifBrands) { return .heif }
            throw .unknownFormat(seen: Self.describeISOBMFF(brands))
        }
        throw .unknownFormat(seen: describe(bytes))
    }

    /// Brands of HEIF still images and sequences (HEVC, AVC, AV1 and the structural `mif1`/`msf1`) that libheif reads.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "heif", "mif1", "msf1", "avif", "avis", "avci"]

    /// The major and compatible brands of a leading `ftyp` box (bounded by the box's size and the bytes).
    static func brands(_ bytes: [UInt8]) -> Set<String>? {
        guard bytes.count >= 16 else { return nil }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, size < 16 ? 16 : size)
        var brands: Set<String> = []
        var at = 8
        while at + 4 <= end {
            if at != 12 { brands.insert(String(decoding: bytes[at..<at + 4], as: UTF8.self)) }  // 12..<16: minor version
            at += 4
        }
        return brands
    }

    private static func describeISOBMFF(_ brands: Set<String>) -> String {
        let listed = brands.sorted().map { "'\($0)'" }.joined(separator: ", ")
        if brands.contains("qt  ") { return "a QuickTime movie (ftyp brands \(listed))" }
        if brands.contains("crx ") { return "a Canon CR3 raw photo (ftyp brands \(listed))" }
        if brands.contains("jp2 ") || brands.contains("jpx ") { return "a JPEG 2000 image (ftyp brands \(listed))" }
        if !brands.isDisjoint(with: ["M4A ", "M4B ", "M4P "]) { return "an MPEG-4 audio file (ftyp brands \(listed))" }
        if !brands.isDisjoint(with: ["isom", "iso2", "mp41", "mp42", "avc1", "3gp4", "3gp5", "3g2a", "M4V ", "dash"]) {
            return "an MP4 video (ftyp brands \(listed))"
        }
        return "an ISO media file that is not HEIF or AVIF (ftyp brands \(listed))"
    }

    /// What a file that is none of the formats looks like: a name for common ones, else its first bytes in hex.
    static func describe(_ bytes: [UInt8]) -> String {
        func ascii(_ text: String, at offset: Int = 0) -> Bool {
            let prefix = Array(text.utf8)
            return bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        if bytes.isEmpty { return "an empty file" }
        let known: [(String, String)] = [
            ("%PDF", "a PDF document"), ("PK\u{3}\u{4}", "a zip archive"), ("8BPS", "a Photoshop document"),
            ("#?RADIANCE", "a Radiance HDR image"), ("#?RGBE", "a Radiance HDR image"), ("qoif", "a QOI image"),
            ("OggS", "an Ogg stream"), ("fLaC", "a FLAC audio file"),
            ("ID3", "an MP3 audio file"), ("<svg", "an SVG document"), ("<?xml", "an XML document (an SVG?)"),
            ("\u{0}\u{0}\u{1}\u{0}", "a Windows icon"), ("\u{0}\u{0}\u{0}\u{C}jP  ", "a JPEG 2000 image"),
            ("\u{0}\u{0}\u{0}\u{C}JXL ", "a JPEG XL image"),
            ("BM", "a BMP too short for its header"), ("GIF8", "a GIF of an unknown version"),
        ]
        for (prefix, name) in known where ascii(prefix) {
            return name
        }
        // Signatures with bytes above 0x7F, which the ASCII table above cannot spell.
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return "a Matroska or WebM video" }
        if bytes.starts(with: [0xFF, 0x0A]) { return "a JPEG XL image" }
        if bytes.starts(with: [0xFF, 0xD8]) { return "a JPEG without a marker after its start" }
        if ascii("RIFF") {
            let kind = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : "?"
            return kind == "AVI " ? "an AVI video" : kind == "WAVE" ? "a WAV audio file" : "a RIFF file of type '\(kind)'"
        }
        if bytes[0] == UInt8(ascii: "P"), bytes.count >= 2, (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]) {
            return "a PNM of type P\(Character(UnicodeScalar(bytes[1]))) (only binary P5 and P6 are read, as by MediaPipe's stb_image)"
        }
        let head = bytes.prefix(16).map { String($0, radix: 16).count == 1 ? "0\(String($0, radix: 16))" : String($0, radix: 16) }
        let text = bytes.prefix(16).allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        let shown = head.joined(separator: " ") + (bytes.count > 16 ? " …" : "")
        return text ? "text starting \"\(String(decoding: bytes.prefix(16).map { $0 < 0x20 ? UInt8(ascii: " ") : $0 }, as: UTF8.self))\" (bytes \(shown))"
            : "bytes \(shown)"
    }
}

extension ImageFormat {
    /// Whether the file at `path` starts as an image this library decodes (by its first bytes, never its name), or
    /// nil when it cannot be read. For the CLI and the worker, which run a photo in image mode and a clip in video
    /// mode: a HEIC saved as `.dat` is a photo.
    package static func fileIsImage(atPath path: String) -> Bool? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // A HEIF ftyp box lists its brands within its first few dozen bytes; 256 covers long brand lists.
        guard let head = try? handle.read(upToCount: 256) else { return nil }
        return (try? sniff(Array(head))) != nil
    }
}
