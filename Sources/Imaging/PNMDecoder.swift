/// Binary PGM (P5) and PPM (P6) as the stb_image inside MediaPipe 1.2.3 (2.28 or later, `stbi__pnm_load`) reads
/// them, written here because the truth is stb's pixels and stb's reading is its own: the header's whitespace and `#`
/// comments as it skips them, a maximum value up to 255 accepted but never used to scale (a file with maximum 15
/// keeps its samples 0…15, where Pillow would stretch them), and above 255 two-byte samples of which stb keeps the
/// second, low-order byte (it reads the big-endian samples into host-order words, then keeps each word's high byte:
/// on the little-endian hosts MediaPipe runs on, the sample's low byte; checked against MediaPipe 1.2.3). Grey comes
/// out as RGB, as for PNG and JPEG. Unlike stb 2.26, which left a cut file's samples undefined, a file cut short is
/// an error, as in stb 2.28.
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
                // stb refuses what overflows its 32-bit int.
                guard !overflow, !overflow2, sum <= Int(Int32.max) else { throw corrupt("\(what) overflows a 32-bit integer") }
                value = sum
                c = next()
            }
            return value
        }
        c = next()
        skipWhitespace()
        let width = try integer("the width")
        guard width != 0 else { throw corrupt("zero width") }
        skipWhitespace()
        let height = try integer("the height")
        guard height != 0 else { throw corrupt("zero height") }
        skipWhitespace()
        let maximum = try integer("the maximum value")
        guard maximum <= 65535 else { throw corrupt("maximum value \(maximum) is above 65535") }
        guard MPImage.isSupported(width: width, height: height) else { throw .unsupportedSize(width: width, height: height) }
        let sampleBytes = maximum > 255 ? 2 : 1
        // The samples start right after the character that ended the maximum value (stb has consumed it).
        let count = width * height * channels
        guard count * sampleBytes <= bytes.count - position else { throw corrupt("truncated: the data ends inside the samples") }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        bytes.withUnsafeBufferPointer { source in
            let samples = source.baseAddress! + position + sampleBytes - 1  // a two-byte sample's second byte
            if channels == 3 {
                for i in 0..<count { rgb[i] = samples[i * sampleBytes] }
            } else {
                for i in 0..<count {
                    let value = samples[i * sampleBytes]
                    rgb[3 * i] = value; rgb[3 * i + 1] = value; rgb[3 * i + 2] = value
                }
            }
        }
        return ImageDecoder.Decoded(width: width, height: height, format: .rgb8, pixels: rgb, exifOrientation: nil)
    }
}
