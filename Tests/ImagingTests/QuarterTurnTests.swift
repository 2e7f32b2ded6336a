import VisionTasksImaging
import VisionTasksTestSupport
import XCTest

/// The pose landmarker's upright copy of a turned buffer: `QuarterTurn.upright` must undo `numpy.rot90(upright, k)`
/// (`TurnedPixels.rot90`, the same turn the MediaPipe goldens were made with) for every packed format, with a row
/// stride wider than the row, and through the generic reader for the others.
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
            let formats: [(PixelFormat, Int)] = [(.rgb8, 3), (.rgba8, 4), (.bgra8, 4), (.gray8, 1)]
            for (format, bytesPerPixel) in formats {
                let stride = turned.width * bytesPerPixel + 2
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
