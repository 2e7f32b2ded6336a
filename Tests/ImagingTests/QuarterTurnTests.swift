import VisionTasksImaging
import VisionTasksTestSupport
import XCTest

/// The pose landmarker's upright copy of a turned buffer: `QuarterTurn.upright` must undo `numpy.rot90(upright, k)`
/// (`TurnedPixels.rot90`, the same turn the MediaPipe goldens were made with): tightly packed RGB8 through the JPEG
/// decoder's EXIF layout, padded rows and the other formats through the pixel reader.
final class QuarterTurnTests: XCTestCase {
    func testUprightUndoesEveryTurnInEveryFormat() throws {
        let (w, h) = (5, 3)
        // A gray-valued picture where every pixel differs, so that gray8 carries it exactly too.
        var upright: [UInt8] = []
        for i in 0..<(w * h) {
            let value = UInt8(7 * i)
            upright += [value, value, value]
        }
        for (orientation, k) in [(ImageOrientation.up, 0), (.left, 1), (.down, 2), (.right, 3)] {
            let turn = try XCTUnwrap(QuarterTurn(orientation))
            XCTAssertEqual(turn.k, k, "\(orientation)")
            let turned = TurnedPixels.rot90(upright, width: w, height: h, k)
            // rgb8 twice: tightly packed (the tiled EXIF layout) and with padded rows (the pixel reader).
            let formats: [(PixelFormat, Int, Int)] = [(.rgb8, 3, 0), (.rgb8, 3, 2), (.rgba8, 4, 2), (.bgra8, 4, 2), (.gray8, 1, 2)]
            for (format, bytesPerPixel, padding) in formats {
                let stride = turned.width * bytesPerPixel + padding
                var pixels = [UInt8](repeating: 0xEE, count: stride * turned.height)
                for y in 0..<turned.height {
                    for x in 0..<turned.width {
                        let at = (y * turned.width + x) * 3
                        let rgb: [UInt8] = [turned.pixels[at], turned.pixels[at + 1], turned.pixels[at + 2]]
                        let bytes: [UInt8]
                        switch format {
                        case .rgb8: bytes = rgb
                        case .rgba8: bytes = rgb + [255]
                        case .bgra8: bytes = [rgb[2], rgb[1], rgb[0], 255]
                        default: bytes = [rgb[0]]
                        }
                        for (c, byte) in bytes.enumerated() { pixels[y * stride + x * bytesPerPixel + c] = byte }
                    }
                }
                let image = try MPImage(pixels: pixels, width: turned.width, height: turned.height, format: format, rowStride: stride,
                                        orientation: orientation)
                let result = try turn.upright(image)
                XCTAssertEqual([result.width, result.height], [w, h], "\(orientation) \(format)")
                XCTAssertEqual(result.rgbPixels(), upright, "\(orientation) \(format)")
            }
        }
    }
}
