/// Binary PGM (P5) and PPM (P6) as stb_image 2.26 (MediaPipe's decoder, `stbi__pnm_load`) reads them, written here
/// because the truth is stb's pixels and stb's reading is its own: the header's whitespace and `#` comments as it
/// skips them, a maximum value up to 255 accepted but never used to scale (a file with maximum 15 keeps its samples
/// 0…15, where Pillow would stretch them), 16-bit files refused. Grey comes out as RGB, as for PNG and JPEG. Unlike
/// stb, which leaves a cut file's missing samples undefined, a file cut short is an error.
enum PNMDecoder {
    private static func corrupt(_ message: String) -> ImageError { .corrupt(format: "PNM", message: message) }

    static func decode(_ bytes: [UInt8]) throws(ImageError) -> ImageDecoder.Decoded {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "5") || bytes[1] == UInt8(ascii: "6") else {
            throw corrupt("not a binary PGM or PPM")
        }
        let channels = bytes[1] == UInt8(ascii: "6") ? 3 : 1
        // stb's reader: one current character `c`, read ahead; at the end of the bytes it stops advancing.
        var position = 2
        var c: UInt8 = 0
        func next() -> UInt8 {
            guard position < bytes.count else { return 0 }
            defer { position += 1 }
            return bytes[position]
        }
        var atEnd: Bool { position >= bytes.count }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (0x09...0x0D).contains(c) }
        func skipWhitespace() {
            while true {
                while !atEnd && isSpace(c) { c = next() }
                if atEnd || c != UInt8(ascii: "#") { break }
                while !atEnd && c != 0x0A && c != 0x0D { c = next() }
            }
        }
        func integer(_ what: String) throws(ImageError) -> Int {
            var value = 0
            while !atEnd && (0x30...0x39).contains(c) {
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(c - 0x30))
                // stb's int would overflow long before; anything past its 2^24 dimension limit is refused anyway.
                guard !overflow, !overflow2, sum <= Int(Int32.max) else { throw corrupt("\(what) is out of range") }
                value = sum
                c = next()
            }
            return value
        }
        c = next()
        skipWhitespace()
        let width = try integer("the width")
        skipWhitespace()
        let height = try integer("the height")
        skipWhitespace()
        let maximum = try integer("the maximum value")
        guard maximum <= 255 else { throw corrupt("maximum value \(maximum): 16-bit samples, which stb_image (MediaPipe's decoder) does not read") }
        guard MPImage.isSupported(width: width, height: height) else { throw .unsupportedSize(width: width, height: height) }
        // The samples start right after the character that ended the maximum value (stb has consumed it).
        let count = width * height * channels
        guard count <= bytes.count - position else { throw corrupt("truncated: the data ends inside the samples") }
        let samples = bytes[position..<position + count]
        if channels == 3 {
            return ImageDecoder.Decoded(width: width, height: height, format: .rgb8, pixels: Array(samples), exifOrientation: nil)
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var i = 0
        for value in samples {
            rgb[i] = value; rgb[i + 1] = value; rgb[i + 2] = value
            i += 3
        }
        return ImageDecoder.Decoded(width: width, height: height, format: .rgb8, pixels: rgb, exifOrientation: nil)
    }
}
