import Foundation

/// How a buffer with an orientation relates to its upright picture: the buffer is the upright picture turned `k`
/// quarter turns counter-clockwise (`numpy.rot90(upright, k)`). A task that works on the upright picture (the pose
/// landmarker, whose MediaPipe graph has no way to turn its detector's input back) takes ``upright(_:)`` and carries
/// its results into the buffer's frame with these maps, so that they are in the frame MediaPipe gives results in.
package struct QuarterTurn: Sendable, Equatable {
    /// Counter-clockwise quarter turns from the upright picture to the buffer, 0...3.
    package let k: Int

    /// nil for a mirrored orientation (refused before it gets here).
    package init?(_ orientation: ImageOrientation) {
        guard !orientation.isMirrored else { return nil }
        // The region MediaPipe turns by r undoes a buffer turned r the other way: r 270 (left) is one quarter turn.
        k = (4 - Int(orientation.regionRotationDegrees) / 90) % 4
    }

    /// A point of the upright picture, normalized to it, in the buffer, normalized to the buffer.
    @inline(__always)
    package func point(x: Float, y: Float) -> (x: Float, y: Float) {
        switch k {
        case 1: return (y, 1 - x)
        case 2: return (1 - x, 1 - y)
        case 3: return (1 - y, x)
        default: return (x, y)
        }
    }

    /// A direction in the upright picture's axes (x right, y down; metric, as world landmarks) in the buffer's axes.
    @inline(__always)
    package func direction(x: Float, y: Float) -> (x: Float, y: Float) {
        switch k {
        case 1: return (y, -x)
        case 2: return (-x, -y)
        case 3: return (-y, x)
        default: return (x, y)
        }
    }

    /// A sampling transform of the upright picture (`width` × `height` pixels) as the same transform of the buffer.
    package func transform(_ transform: TensorToImageTransform, uprightWidth width: Int, uprightHeight height: Int) -> TensorToImageTransform {
        let r = transform.region
        // Pixel centres in Double, not through the Float normalized map: the mask is sampled per buffer pixel.
        let (cx, cy): (Double, Double)
        switch k {
        case 1: (cx, cy) = (r.centerY, Double(width) - r.centerX)
        case 2: (cx, cy) = (Double(width) - r.centerX, Double(height) - r.centerY)
        case 3: (cx, cy) = (Double(height) - r.centerY, r.centerX)
        default: (cx, cy) = (r.centerX, r.centerY)
        }
        let region = RegionOfInterest(centerX: cx, centerY: cy, width: r.width, height: r.height,
                                      rotationDegrees: r.rotationDegrees - Double(90 * k))
        return TensorToImageTransform(region: region, padding: transform.padding)
    }

    /// The upright picture of `image` as tightly packed RGB8 (a copy: one pass over the buffer; other formats and
    /// padded rows through the pixel reader).
    package func upright(_ image: MPImage) throws(ImageError) -> MPImage {
        let w = image.width, h = image.height
        let plane = image.planes[0]
        if image.format == .rgb8, plane.rowStride == w * 3 {
            // Tightly packed RGB8 (decoded files, most buffers): the JPEG decoder's tiled EXIF turn does it. The buffer
            // turned k quarters counter-clockwise is stored as EXIF tags 6 (k 1), 3 (k 2) and 8 (k 3) describe.
            let layout = UprightLayout(tag: [1, 6, 3, 8][k], width: w, height: h)
            let pixels = plane.bytes.withUnsafeBufferPointer { layout.upright($0.baseAddress! + plane.offset) }
            return try MPImage(pixels: pixels, width: layout.uprightWidth, height: layout.uprightHeight, format: .rgb8)
        }
        let (outW, outH) = k % 2 == 0 ? (w, h) : (h, w)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        out.withUnsafeMutableBufferPointer { out in
            image.withPixelReader { reader in
                var at = 0
                for row in 0..<outH {
                    for column in 0..<outW {
                        // The upright pixel (column, row) is the buffer pixel this turn put it at.
                        let (x, y): (Int, Int)
                        switch k {
                        case 1: (x, y) = (row, h - 1 - column)
                        case 2: (x, y) = (w - 1 - column, h - 1 - row)
                        case 3: (x, y) = (w - 1 - row, column)
                        default: (x, y) = (column, row)
                        }
                        let value = reader.rgb(x, y)
                        out[at] = value.x; out[at + 1] = value.y; out[at + 2] = value.z
                        at += 3
                    }
                }
            }
        }
        return try MPImage(pixels: out, width: outW, height: outH, format: .rgb8)
    }
}
