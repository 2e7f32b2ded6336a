/// Where each decoded pixel of a JPEG goes so that the image comes out upright by its EXIF orientation tag, as
/// MediaPipe 1.x's `Image.create_from_file` turns it (PIL's `ImageOps.exif_transpose` table, which MediaPipe
/// matches: `tools/mediapipe_exif_pixels.py` checks it on every tag):
///
/// | tag | stored → upright | PIL's method |
/// |---|---|---|
/// | 1 | as stored | — |
/// | 2 | mirrored left ↔ right | FLIP_LEFT_RIGHT |
/// | 3 | turned 180° | ROTATE_180 |
/// | 4 | mirrored top ↔ bottom | FLIP_TOP_BOTTOM |
/// | 5 | transposed (x ↔ y) | TRANSPOSE |
/// | 6 | turned 90° clockwise | ROTATE_270 (PIL turns counter-clockwise) |
/// | 7 | transposed across the other diagonal | TRANSVERSE |
/// | 8 | turned 90° counter-clockwise | ROTATE_90 |
///
/// Every tag moves stored pixel (x, y) to upright pixel index `origin + y · rowStep + x · columnStep`: a decoder
/// places each row, or a band of rows, as it produces them, and the upright image is the only full-size buffer.
/// Packed RGB8 for the JPEG paths; `upright(_:bytesPerPixel:)` for RGB or RGBA from the TIFF and WebP decoders.
struct UprightLayout {
    /// The EXIF tag, 1…8 (anything else is treated as 1).
    let tag: Int
    /// The stored (decoded) size.
    let width: Int
    let height: Int
    /// Upright pixel index of stored pixel (0, 0), and the index steps from one stored row and one stored column to
    /// the next.
    let origin: Int
    let rowStep: Int
    let columnStep: Int

    init(tag: Int?, width w: Int, height h: Int) {
        let tag = tag.map { (1...8).contains($0) ? $0 : 1 } ?? 1
        self.tag = tag
        width = w
        height = h
        // (origin, rowStep, columnStep); the upright image is w wide for tags 1–4 and h wide for 5–8.
        switch tag {
        case 2: (origin, rowStep, columnStep) = (w - 1, w, -1)                  // (x, y) → (w−1−x, y)
        case 3: (origin, rowStep, columnStep) = ((h - 1) * w + w - 1, -w, -1)   // (x, y) → (w−1−x, h−1−y)
        case 4: (origin, rowStep, columnStep) = ((h - 1) * w, -w, 1)            // (x, y) → (x, h−1−y)
        case 5: (origin, rowStep, columnStep) = (0, 1, h)                       // (x, y) → (y, x)
        case 6: (origin, rowStep, columnStep) = (h - 1, -1, h)                  // (x, y) → (h−1−y, x)
        case 7: (origin, rowStep, columnStep) = ((w - 1) * h + h - 1, -1, -h)   // (x, y) → (h−1−y, w−1−x)
        case 8: (origin, rowStep, columnStep) = ((w - 1) * h, 1, -h)            // (x, y) → (y, w−1−x)
        default: (origin, rowStep, columnStep) = (0, w, 1)                      // (x, y) → (x, y)
        }
    }

    /// Tags 5–8 swap the axes: a stored row becomes an upright column.
    var swapsAxes: Bool { tag >= 5 }
    var uprightWidth: Int { swapsAxes ? height : width }
    var uprightHeight: Int { swapsAxes ? width : height }

    /// Whether stored rows land as upright rows in order, left to right (tags 1 and 4): a decoder can then write a
    /// row straight into its place.
    var keepsRowsContiguous: Bool { columnStep == 1 }

    /// The upright pixel index of stored pixel (0, y).
    func rowStart(_ y: Int) -> Int { origin + y * rowStep }

    /// Places `count` stored rows, packed RGB8 starting with row `firstRow`, into the upright image `output`.
    /// For the transposing tags a stored row is an upright column: the band is walked in tiles of `tileColumns`
    /// columns, so that a tile's upright rows are a few cache lines filled together instead of one line per pixel.
    func place(rows: UnsafePointer<UInt8>, firstRow: Int, count: Int, into output: UnsafeMutablePointer<UInt8>) {
        let rowBytes = width * 3, first = rowStart(firstRow)
        if swapsAxes {
            for x0 in stride(from: 0, to: width, by: Self.tileColumns) {
                let x1 = min(x0 + Self.tileColumns, width)
                for b in 0..<count {
                    let source = rows + b * rowBytes, start = first + b * rowStep
                    for x in x0..<x1 {
                        let target = output + 3 * (start + x * columnStep)
                        target[0] = source[3 * x]; target[1] = source[3 * x + 1]; target[2] = source[3 * x + 2]
                    }
                }
            }
        } else {
            for b in 0..<count {
                let source = rows + b * rowBytes
                let start = first + b * rowStep
                if columnStep == 1 {
                    (output + 3 * start).update(from: source, count: rowBytes)
                    continue
                }
                for x in 0..<width {
                    let target = output + 3 * (start + x * columnStep)
                    target[0] = source[3 * x]; target[1] = source[3 * x + 1]; target[2] = source[3 * x + 2]
                }
            }
        }
    }

    /// A whole stored image, packed RGB8, upright (a decoder that produced every row first: libjpeg's own decode),
    /// placed a band of `bandRows` rows at a time.
    func upright(_ stored: UnsafePointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height * 3) { output, initialized in
            var y = 0
            while y < height {
                let count = min(Self.bandRows, height - y)
                place(rows: stored + y * width * 3, firstRow: y, count: count, into: output.baseAddress!)
                y += count
            }
            initialized = width * height * 3
        }
    }

    /// A whole stored image of `bytesPerPixel`-byte pixels (RGB or RGBA from the TIFF and WebP decoders), upright:
    /// a plain per-pixel walk, as these decoders are not the hot path the JPEG's banded placement is for.
    func upright(_ stored: UnsafePointer<UInt8>, bytesPerPixel: Int) -> [UInt8] {
        let count = width * height * bytesPerPixel
        if tag == 1 { return Array(UnsafeBufferPointer(start: stored, count: count)) }
        return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            var source = stored
            for y in 0..<height {
                let start = rowStart(y)
                for x in 0..<width {
                    let target = output.baseAddress! + bytesPerPixel * (start + x * columnStep)
                    for c in 0..<bytesPerPixel { target[c] = source[c] }
                    source += bytesPerPixel
                }
            }
            initialized = count
        }
    }

    /// Stored rows placed together (the stb path's band buffer holds this many converted rows), and the columns of a
    /// tile when the axes swap: 32 rows are 96 bytes of each of a tile's 16 upright rows. On a 6010 × 4180 photo,
    /// bands of 16 or 64 rows and an untiled walk were no faster.
    static let bandRows = 32
    static let tileColumns = 16
}
