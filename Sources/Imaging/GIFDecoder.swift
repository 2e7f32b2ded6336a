/// A GIF's first frame as stb_image 2.26 (MediaPipe's decoder, `stbi__gif_load`) gives it: RGBA on a transparent
/// black screen, transparent-index pixels left untouched, and, when the screen's background index is above 0, every
/// pixel the frame did not cover filled with that global palette entry, opaque — with its red and blue swapped, as
/// stb copies the entry in its stored (B, G, R) order. Written here and not through giflib because those are stb's
/// own rules (giflib hands back indices and leaves compositing to the caller) and the truth is stb's pixels. Like
/// stb, a raster must begin with a clear code and a frame must lie inside the screen; unlike stb, a file cut short is
/// an error instead of a frame finished in black.
enum GIFDecoder {
    private static func corrupt(_ message: String) -> ImageError { .corrupt(format: "GIF", message: message) }

    /// stb's LZW table entry.
    private struct Code {
        var prefix: Int16 = -1
        var first: UInt8 = 0
        var suffix: UInt8 = 0
    }

    static func decode(_ bytes: [UInt8]) throws(ImageError) -> ImageDecoder.Decoded {
        var reader = ByteReader(bytes, format: "GIF")
        let magic = try reader.take(6, "the header")
        guard magic.elementsEqual(Array("GIF87a".utf8)) || magic.elementsEqual(Array("GIF89a".utf8)) else { throw corrupt("not a GIF") }
        let width = Int(try reader.uint16LE()), height = Int(try reader.uint16LE())
        let flags = try reader.byte("the header"), backgroundIndex = Int(try reader.byte("the header"))
        _ = try reader.byte("the header")  // aspect ratio
        guard MPImage.isSupported(width: width, height: height) else { throw .unsupportedSize(width: width, height: height) }
        // Palettes as stb keeps them: (R, G, B, A) per entry, entries past the table (0, 0, 0, 0).
        var global = [SIMD4<UInt8>](repeating: .zero, count: 256)
        if flags & 0x80 != 0 { try readPalette(&reader, into: &global, count: 2 << (flags & 7), transparent: -1) }

        var transparent = -1
        var extensionFlags: UInt8 = 0
        while true {
            let tag = try reader.byte("the block list")
            switch tag {
            case 0x2C:
                let x = Int(try reader.uint16LE()), y = Int(try reader.uint16LE())
                let w = Int(try reader.uint16LE()), h = Int(try reader.uint16LE())
                guard x + w <= width, y + h <= height else { throw corrupt("a frame outside the screen") }
                let frameFlags = try reader.byte("the image descriptor")
                var palette = global
                if frameFlags & 0x80 != 0 {
                    palette = [SIMD4<UInt8>](repeating: .zero, count: 256)
                    try readPalette(&reader, into: &palette, count: 2 << (frameFlags & 7),
                                    transparent: extensionFlags & 1 != 0 ? transparent : -1)
                } else if flags & 0x80 == 0 {
                    throw corrupt("no colour table")
                }
                var out = [UInt8](repeating: 0, count: width * height * 4)
                var touched = [Bool](repeating: false, count: width * height)
                try raster(&reader, palette: palette, frame: (x, y, w, h, interlaced: frameFlags & 0x40 != 0),
                           screenWidth: width, out: &out, touched: &touched)
                if backgroundIndex > 0 {
                    // stb's copy of the entry as stored: blue, green, red, and alpha made 255.
                    let entry = global[backgroundIndex]
                    for i in 0..<width * height where !touched[i] {
                        out[4 * i] = entry.z; out[4 * i + 1] = entry.y; out[4 * i + 2] = entry.x; out[4 * i + 3] = 255
                    }
                }
                return ImageDecoder.Decoded(width: width, height: height, format: .rgba8, pixels: out, exifOrientation: nil)
            case 0x21:
                let label = try reader.byte("an extension")
                if label == 0xF9 {
                    let length = Int(try reader.byte("an extension"))
                    if length == 4 {
                        extensionFlags = try reader.byte("an extension")
                        _ = try reader.uint16LE("an extension")  // delay
                        if transparent >= 0 { global[transparent].w = 255 }
                        if extensionFlags & 1 != 0 {
                            transparent = Int(try reader.byte("an extension"))
                            global[transparent].w = 0
                        } else {
                            try reader.skip(1, "an extension")
                            transparent = -1
                        }
                    } else {
                        // stb skips a graphic control block of another size and reads on from its sub-blocks.
                        try reader.skip(length, "an extension")
                        continue
                    }
                }
                while true {
                    let length = Int(try reader.byte("an extension"))
                    if length == 0 { break }
                    try reader.skip(length, "an extension")
                }
            case 0x3B:
                throw corrupt("no image before the trailer")
            default:
                throw corrupt("unknown block 0x\(String(tag, radix: 16))")
            }
        }
    }

    private static func readPalette(_ reader: inout ByteReader, into palette: inout [SIMD4<UInt8>], count: Int, transparent: Int) throws(ImageError) {
        for i in 0..<count {
            let red = try reader.byte("a colour table"), green = try reader.byte("a colour table"), blue = try reader.byte("a colour table")
            palette[i] = SIMD4(red, green, blue, transparent == i ? 0 : 255)
        }
    }

    /// stb's `stbi__process_gif_raster` and `stbi__out_gif_code`: LZW codes to pixels, rows in interlaced order when
    /// asked, pixels past the frame dropped, entries with alpha at most 128 not drawn (but counted as touched).
    private static func raster(_ reader: inout ByteReader, palette: [SIMD4<UInt8>],
                               frame: (x: Int, y: Int, width: Int, height: Int, interlaced: Bool), screenWidth: Int,
                               out: inout [UInt8], touched: inout [Bool]) throws(ImageError) {
        let minimumCodeSize = Int(try reader.byte("the image data"))
        guard minimumCodeSize <= 12 else { throw corrupt("LZW code size \(minimumCodeSize)") }
        let clear = 1 << minimumCodeSize
        var codes = [Code](repeating: Code(), count: 8192)
        for i in 0..<clear { codes[i] = Code(prefix: -1, first: UInt8(truncatingIfNeeded: i), suffix: UInt8(truncatingIfNeeded: i)) }
        var codeSize = minimumCodeSize + 1, codeMask = (1 << codeSize) - 1
        var available = clear + 2, oldCode = -1, sawClear = false
        var bits = 0, validBits = 0, blockLeft = 0

        // Where the next pixel goes, in pixels (stb counts bytes; the same positions).
        var column = frame.x, row = frame.y
        let right = frame.x + frame.width, bottom = frame.y + frame.height
        // stb's guard against a zero-width frame, which would otherwise never finish a row.
        if frame.width == 0 { row = bottom }
        var step = frame.interlaced ? 8 : 1, pass = frame.interlaced ? 3 : 0
        var stack: [UInt8] = []
        stack.reserveCapacity(4096)

        func emit(_ code: Int) {
            // The prefix chain, last pixel first.
            stack.removeAll(keepingCapacity: true)
            var c = code
            while c >= 0 { stack.append(codes[c].suffix); c = Int(codes[c].prefix) }
            for index in stack.reversed() {
                if row >= bottom { return }
                let at = row * screenWidth + column
                touched[at] = true
                let colour = palette[Int(index)]
                if colour.w > 128 {
                    out[4 * at] = colour.x; out[4 * at + 1] = colour.y; out[4 * at + 2] = colour.z; out[4 * at + 3] = colour.w
                }
                column += 1
                if column >= right {
                    column = frame.x
                    row += step
                    while row >= bottom && pass > 0 {
                        step = 1 << pass
                        row = frame.y + step / 2
                        pass -= 1
                    }
                }
            }
        }

        while true {
            if validBits < codeSize {
                if blockLeft == 0 {
                    blockLeft = Int(try reader.byte("the image data"))
                    if blockLeft == 0 { return }
                }
                blockLeft -= 1
                bits |= Int(try reader.byte("the image data")) << validBits
                validBits += 8
                continue
            }
            let code = bits & codeMask
            bits >>= codeSize
            validBits -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                codeMask = (1 << codeSize) - 1
                available = clear + 2
                oldCode = -1
                sawClear = true
            } else if code == clear + 1 {
                try reader.skip(blockLeft, "the image data")
                while true {
                    let length = Int(try reader.byte("the image data"))
                    if length == 0 { break }
                    try reader.skip(length, "the image data")
                }
                return
            } else if code <= available {
                guard sawClear else { throw corrupt("no clear code at the start of the image data") }
                if oldCode >= 0 {
                    guard available < 8192 else { throw corrupt("too many LZW codes") }
                    let first = codes[oldCode].first
                    codes[available] = Code(prefix: Int16(oldCode), first: first, suffix: first)
                    // For the code being defined (KwKwK) this reads the entry just written: its first byte, as in stb.
                    codes[available].suffix = codes[code].first
                    available += 1
                } else if code == available {
                    throw corrupt("an LZW code not yet defined")
                }
                emit(code)
                if available & codeMask == 0, available <= 0x0FFF {
                    codeSize += 1
                    codeMask = (1 << codeSize) - 1
                }
                oldCode = code
            } else {
                throw corrupt("an LZW code not yet defined")
            }
        }
    }
}
