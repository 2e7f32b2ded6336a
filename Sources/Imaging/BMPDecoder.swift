/// BMP as the stb_image inside MediaPipe 1.2.3 (2.28 or later: its `stbi__bmp_set_mask_defaults` is in
/// libmediapipe.so) decodes it, written here rather than taken from a library because the truth is stb's pixels,
/// quirks included: its header sizes (12, 40, 56, 108, 124), its palette size from the pixel-data offset (for
/// 12-byte OS/2 headers, `(offset − 38) / 3` entries), bit-field channels widened by its bit-replication table, an
/// all-zero alpha channel in a 32-bit BI_RGB file read as opaque, V4/V5 masks replaced by the defaults unless
/// BI_BITFIELDS. RLE and embedded JPEG/PNG are refused, as stb refuses them. Unlike stb, a file cut short is an
/// error, not black rows. A top-down file (negative height) decodes top-down; MediaPipe 1.2.3 refuses it (its
/// `stbi_info` call reports the negative height), so there the photo's pixels are the truth.
enum BMPDecoder {
    private static func corrupt(_ message: String) -> ImageError { .corrupt(format: "BMP", message: message) }

    static func decode(_ bytes: [UInt8]) throws(ImageError) -> ImageDecoder.Decoded {
        var reader = ByteReader(bytes, format: "BMP")
        guard try reader.byte() == UInt8(ascii: "B"), try reader.byte() == UInt8(ascii: "M") else { throw corrupt("not a BMP") }
        _ = try reader.uint32LE()  // file size
        _ = try reader.uint32LE()  // two reserved words
        let offset = Int(Int32(bitPattern: try reader.uint32LE()))
        let headerSize = Int(try reader.uint32LE())
        guard offset >= 0 else { throw corrupt("negative pixel data offset") }
        guard [12, 40, 56, 108, 124].contains(headerSize) else {
            throw corrupt("a \(headerSize)-byte info header, which stb_image (MediaPipe's decoder) does not read")
        }
        var extraRead = 14
        let rawWidth: UInt32, rawHeight: UInt32
        if headerSize == 12 {
            rawWidth = try reader.uint16LE()
            rawHeight = try reader.uint16LE()
        } else {
            rawWidth = try reader.uint32LE()
            rawHeight = try reader.uint32LE()
        }
        guard try reader.uint16LE() == 1 else { throw corrupt("planes is not 1") }
        let bitsPerPixel = Int(try reader.uint16LE())
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) = (0, 0, 0, 0)
        var allAlpha: UInt32 = 255
        // stb's `stbi__bmp_set_mask_defaults` for BI_RGB.
        func defaultMasks() {
            switch bitsPerPixel {
            case 16: (masks.red, masks.green, masks.blue) = (31 << 10, 31 << 5, 31)
            case 32:
                masks = (0xFF << 16, 0xFF << 8, 0xFF, 0xFF << 24)
                allAlpha = 0  // still 0 at the end: the alpha bytes were all 0, and stb makes them 255
            default: masks = (0, 0, 0, 0)
            }
        }
        if headerSize != 12 {
            let compression = try reader.uint32LE()
            if compression == 1 || compression == 2 { throw corrupt("RLE compression, which stb_image does not read") }
            if compression >= 4 { throw corrupt("compression \(compression) (embedded JPEG or PNG), which stb_image does not read") }
            if compression == 3, bitsPerPixel != 16, bitsPerPixel != 32 { throw corrupt("bit fields at \(bitsPerPixel) bits per pixel") }
            try reader.skip(20, "the header")  // image size, resolutions, colours used and important
            if headerSize == 40 || headerSize == 56 {
                if headerSize == 56 { try reader.skip(16, "the header") }
                if bitsPerPixel == 16 || bitsPerPixel == 32 {
                    if compression == 0 {
                        defaultMasks()
                    } else {
                        masks.red = try reader.uint32LE()
                        masks.green = try reader.uint32LE()
                        masks.blue = try reader.uint32LE()
                        extraRead += 12
                        if masks.red == masks.green && masks.green == masks.blue { throw corrupt("equal channel masks") }
                    }
                }
            } else {
                masks.red = try reader.uint32LE()
                masks.green = try reader.uint32LE()
                masks.blue = try reader.uint32LE()
                masks.alpha = try reader.uint32LE()
                if compression != 3 { defaultMasks() }
                try reader.skip(4 + 36 + (headerSize == 124 ? 16 : 0), "the header")  // colour space, its end points
            }
        }
        // A negative height is a top-down file; stb takes the magnitude of the 32-bit value.
        let signedHeight = Int(Int32(bitPattern: rawHeight))
        let flipsVertically = signedHeight > 0
        let width = Int(rawWidth), height = signedHeight.magnitude > Int32.max.magnitude ? Int.max : abs(signedHeight)
        guard MPImage.isSupported(width: width, height: height) else { throw .unsupportedSize(width: width, height: height) }

        var paletteSize = 0
        if headerSize == 12 {
            if bitsPerPixel < 24 { paletteSize = (offset - extraRead - 24) / 3 }
        } else if bitsPerPixel < 16 {
            paletteSize = (offset - extraRead - headerSize) >> 2
        }
        if paletteSize == 0 {
            // stb accepts up to 1 KiB between the header and the pixel data, and nothing before the header's end.
            guard offset >= reader.position, offset - reader.position <= 1024 else {
                throw corrupt("the pixel data offset \(offset) is not just after the header")
            }
            try reader.skip(offset - reader.position, "the gap before the pixel data")
        }

        let channels = bitsPerPixel == 24 && masks.alpha == 0xFF00_0000 ? 3 : (masks.alpha != 0 ? 4 : 3)
        var out = [UInt8](repeating: 0, count: width * height * channels)
        var z = 0
        if bitsPerPixel < 16 {
            guard paletteSize > 0, paletteSize <= 256 else { throw corrupt("palette of \(paletteSize) entries") }
            // stb leaves entries past the palette unset (stack contents); black here.
            var palette = [SIMD4<UInt8>](repeating: SIMD4(0, 0, 0, 255), count: 256)
            for i in 0..<paletteSize {
                let blue = try reader.byte("the palette"), green = try reader.byte("the palette"), red = try reader.byte("the palette")
                if headerSize != 12 { _ = try reader.byte("the palette") }
                palette[i] = SIMD4(red, green, blue, 255)
            }
            let skip = offset - extraRead - headerSize - paletteSize * (headerSize == 12 ? 3 : 4)
            guard skip >= 0 else { throw corrupt("the pixel data offset \(offset) is inside the palette") }
            try reader.skip(skip, "the gap before the pixel data")
            let rowBytes: Int
            switch bitsPerPixel {
            case 1: rowBytes = (width + 7) >> 3
            case 4: rowBytes = (width + 1) >> 1
            case 8: rowBytes = width
            default: throw corrupt("\(bitsPerPixel) bits per pixel")
            }
            let pad = (-rowBytes) & 3
            func put(_ index: Int) {
                let colour = palette[index]
                out[z] = colour.x; out[z + 1] = colour.y; out[z + 2] = colour.z
                if channels == 4 { out[z + 3] = 255 }
                z += channels
            }
            for _ in 0..<height {
                if bitsPerPixel == 1 {
                    var bit = 7, value = Int(try reader.byte())
                    for x in 0..<width {
                        put((value >> bit) & 1)
                        if x + 1 == width { break }
                        bit -= 1
                        if bit < 0 { bit = 7; value = Int(try reader.byte()) }
                    }
                } else {
                    var x = 0
                    while x < width {
                        var value = Int(try reader.byte()), second = 0
                        if bitsPerPixel == 4 { second = value & 15; value >>= 4 }
                        put(value)
                        if x + 1 == width { break }
                        put(bitsPerPixel == 8 ? Int(try reader.byte()) : second)
                        x += 2
                    }
                }
                try reader.skip(pad, "row padding", allowingEnd: true)
            }
        } else {
            // stb skips the gap between header and pixels here a second time (the check above already skipped
            // it): a file with such a gap is read that many bytes late, as MediaPipe reads it.
            let skip = offset - extraRead - headerSize
            guard skip >= 0 else { throw corrupt("the pixel data offset \(offset) is inside the header") }
            try reader.skip(skip, "the gap before the pixel data")
            let rowBytes = bitsPerPixel == 24 ? 3 * width : bitsPerPixel == 16 ? 2 * width : 0
            let pad = (-rowBytes) & 3
            var easy = 0
            if bitsPerPixel == 24 {
                easy = 1
            } else if bitsPerPixel == 32, masks == (0x00FF_0000, 0xFF00, 0xFF, 0xFF00_0000) {
                easy = 2
            }
            var fields: [(mask: UInt32, shift: Int, count: Int)] = []
            if easy == 0 {
                guard masks.red != 0, masks.green != 0, masks.blue != 0 else { throw corrupt("a zero channel mask") }
                guard bitsPerPixel == 16 || bitsPerPixel == 32 else { throw corrupt("\(bitsPerPixel) bits per pixel") }
                fields = [masks.red, masks.green, masks.blue, masks.alpha].map { mask in
                    (mask, highBit(mask) - 7, mask.nonzeroBitCount)
                }
                guard fields.allSatisfy({ $0.count <= 8 }) else { throw corrupt("a channel mask wider than 8 bits") }
            }
            for _ in 0..<height {
                if easy != 0 {
                    let pixelBytes = easy == 2 ? 4 : 3
                    let row = try reader.take(width * pixelBytes, "the pixel data")
                    var i = row.startIndex
                    for _ in 0..<width {
                        out[z + 2] = row[i]; out[z + 1] = row[i + 1]; out[z] = row[i + 2]
                        let alpha: UInt8 = easy == 2 ? row[i + 3] : 255
                        allAlpha |= UInt32(alpha)
                        if channels == 4 { out[z + 3] = alpha }
                        z += channels
                        i += pixelBytes
                    }
                } else {
                    for _ in 0..<width {
                        let value = bitsPerPixel == 16 ? try reader.uint16LE("the pixel data") : try reader.uint32LE("the pixel data")
                        for c in 0..<3 { out[z + c] = UInt8(truncatingIfNeeded: widen(value & fields[c].mask, fields[c].shift, fields[c].count)) }
                        let alpha = masks.alpha != 0 ? widen(value & masks.alpha, fields[3].shift, fields[3].count) : 255
                        allAlpha |= alpha
                        if channels == 4 { out[z + 3] = UInt8(truncatingIfNeeded: alpha) }
                        z += channels
                    }
                }
                try reader.skip(pad, "row padding", allowingEnd: true)
            }
        }
        if channels == 4, allAlpha == 0 {
            for i in stride(from: 3, to: out.count, by: 4) { out[i] = 255 }
        }
        if flipsVertically {
            let rowBytes = width * channels
            out.withUnsafeMutableBufferPointer { buffer in
                for y in 0..<height / 2 {
                    let top = y * rowBytes, bottom = (height - 1 - y) * rowBytes
                    for i in 0..<rowBytes { buffer.swapAt(top + i, bottom + i) }
                }
            }
        }
        return ImageDecoder.Decoded(width: width, height: height, format: channels == 4 ? .rgba8 : .rgb8, pixels: out,
                                    exifOrientation: nil)
    }

    /// stb's `stbi__high_bit`: 0…31 for the highest set bit, −1 for zero.
    private static func highBit(_ value: UInt32) -> Int { value == 0 ? -1 : 31 - value.leadingZeroBitCount }

    /// stb's `stbi__shiftsigned`: the masked field moved so its top bit is bit 7, cut to `bits` bits and widened to
    /// 8 by bit replication (multiply and shift by stb's tables).
    private static func widen(_ masked: UInt32, _ shift: Int, _ bits: Int) -> UInt32 {
        let multipliers: [UInt32] = [0, 0xFF, 0x55, 0x49, 0x11, 0x21, 0x41, 0x81, 0x01]
        let shifts: [UInt32] = [0, 0, 0, 1, 0, 2, 4, 6, 0]
        var v = shift < 0 ? masked << UInt32(-shift) : masked >> UInt32(shift)
        v >>= UInt32(8 - bits)
        return (v &* multipliers[bits]) >> shifts[bits]
    }
}
