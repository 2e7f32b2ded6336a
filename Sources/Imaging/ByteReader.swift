/// Reads a file's bytes in order for the decoders written here (BMP, GIF, PNM). Unlike stb_image, which reads
/// zeros past the end and decodes a cut file as if it went on in black, reading past the end throws: a truncated
/// file is ``ImageError/corrupt(format:message:)``, as for every other format.
struct ByteReader {
    let bytes: [UInt8]
    let format: String
    private(set) var position = 0

    init(_ bytes: [UInt8], format: String) {
        self.bytes = bytes
        self.format = format
    }

    var isAtEnd: Bool { position >= bytes.count }

    func truncated(_ what: String) -> ImageError {
        .corrupt(format: format, message: "truncated: the data ends inside \(what)")
    }

    mutating func byte(_ what: @autoclosure () -> String = "the image data") throws(ImageError) -> UInt8 {
        guard position < bytes.count else { throw truncated(what()) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint16LE(_ what: @autoclosure () -> String = "the header") throws(ImageError) -> UInt32 {
        let low = try byte(what()), high = try byte(what())
        return UInt32(low) | UInt32(high) << 8
    }

    mutating func uint32LE(_ what: @autoclosure () -> String = "the header") throws(ImageError) -> UInt32 {
        let low = try uint16LE(what()), high = try uint16LE(what())
        return low | high << 16
    }

    /// Moves on `count` bytes; past the end only when `allowingEnd` (stb skips a last row's padding that a file may
    /// leave out).
    mutating func skip(_ count: Int, _ what: @autoclosure () -> String, allowingEnd: Bool = false) throws(ImageError) {
        guard count >= 0 else { throw ImageError.corrupt(format: format, message: "negative skip in \(what())") }
        let (target, overflow) = position.addingReportingOverflow(count)
        if overflow || target > bytes.count {
            guard allowingEnd else { throw truncated(what()) }
            position = bytes.count
            return
        }
        position = target
    }

    /// `count` bytes at once, for runs of raw samples.
    mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(ImageError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else { throw truncated(what()) }
        defer { position += count }
        return bytes[position..<position + count]
    }
}
