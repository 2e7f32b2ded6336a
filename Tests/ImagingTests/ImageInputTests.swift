import CVisionTasksZlib
import Foundation
import VisionTasksImaging
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

final class ImageInputTests: XCTestCase {
    private func shared(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Repository.root.deletingLastPathComponent().appendingPathComponent("shared/images/\(name)")))
    }

    func testMirroredOrientationsAreRejected() throws {
        let bytes = try shared("pose1.jpg")
        for orientation in [ImageOrientation.upMirrored, .downMirrored, .leftMirrored, .rightMirrored] {
            XCTAssertThrowsError(try MPImage(encoded: bytes, orientation: orientation)) { error in
                guard case .unsupportedOrientation = error as? ImageError else { return XCTFail("\(error)") }
            }
        }
        let upright = try MPImage(encoded: bytes)
        for orientation in [ImageOrientation.up, .down, .left, .right] {
            XCTAssertEqual(try MPImage(encoded: bytes, orientation: orientation).orientation, orientation)
            XCTAssertEqual(try upright.withOrientation(orientation).orientation, orientation)
        }
        // One rule: an orientation given later is refused as one given at creation.
        for orientation in [ImageOrientation.upMirrored, .downMirrored, .leftMirrored, .rightMirrored] {
            XCTAssertThrowsError(try upright.withOrientation(orientation)) { error in
                XCTAssertEqual(error as? ImageError, .unsupportedOrientation("\(orientation)"))
            }
        }
    }

    /// MPPVisionTaskRunner.mm's degrees (right −90, down −180, left −270) divided by −180 to radians: the region
    /// turns by +90°, +180°, +270°, which is C++'s rotation_degrees −90, 180 (−180), 90 (its rotation is
    /// −rotation_degrees·π/180).
    func testOrientationsTurnTheRegionAsMediaPipesIOSRunner() {
        let iOSDegrees: [(ImageOrientation, Double)] = [(.up, 0), (.right, -90), (.down, -180), (.left, -270)]
        for (orientation, degrees) in iOSDegrees {
            XCTAssertEqual(orientation.regionRotationDegrees * .pi / 180, degrees * .pi / -180, accuracy: 1e-12, "\(orientation)")
            XCTAssertEqual(orientation.isQuarterTurn, Int(degrees) % 180 != 0, "\(orientation)")
        }
    }

    func testRawBuffersAreValidated() {
        XCTAssertThrowsError(try MPImage(pixels: [UInt8](repeating: 0, count: 11), width: 2, height: 2, format: .rgb8)) { error in
            XCTAssertEqual(error as? ImageError, .bufferTooSmall(needed: 12, available: 11))
        }
        XCTAssertThrowsError(try MPImage(pixels: [UInt8](repeating: 0, count: 64), width: 4, height: 2, format: .rgba8, rowStride: 8)) { error in
            guard case .invalidLayout = error as? ImageError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MPImage(pixels: [], width: 0, height: 0, format: .gray8)) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedSize(width: 0, height: 0))
        }
        XCTAssertThrowsError(try MPImage(yPlane: [0], yRowStride: 1, chroma: [], chromaRowStride: 2, width: 1, height: 1, format: .nv12))
    }

    func testStridedBGRAReadsInPlace() throws {
        // Two BGRA pixels per row, padded to 12 bytes: the padding must never be read as pixels.
        let pixels: [UInt8] = [1, 2, 3, 255, 4, 5, 6, 255, 99, 99, 99, 99,
                               7, 8, 9, 255, 10, 11, 12, 255, 99, 99, 99, 99]
        let image = try MPImage(pixels: pixels, width: 2, height: 2, format: .bgra8, rowStride: 12)
        XCTAssertEqual(image.rgbPixels(), [3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10])
    }

    /// RGB, RGBA and BGRA copies of one photo (the last two with padded rows) sample to the same tensor, rotated or
    /// not, with replicated or zero borders: the 4-byte neighbour reads, the red/blue swap and the guard on the last
    /// pixel of a tightly packed RGB buffer (whose 4-byte read would pass the end) change nothing.
    func testPixelLayoutsSampleAlike() throws {
        let photo = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/pose1.jpg").path)
        let w = photo.width, h = photo.height, rgb = photo.rgbPixels()
        var rgba = [UInt8](repeating: 7, count: h * (w * 4 + 8)), bgra = rgba
        for y in 0..<h {
            for x in 0..<w {
                let s = (y * w + x) * 3, d = y * (w * 4 + 8) + x * 4
                rgba[d] = rgb[s]; rgba[d + 1] = rgb[s + 1]; rgba[d + 2] = rgb[s + 2]; rgba[d + 3] = 200
                bgra[d] = rgb[s + 2]; bgra[d + 1] = rgb[s + 1]; bgra[d + 2] = rgb[s]; bgra[d + 3] = 200
            }
        }
        let images = [try MPImage(pixels: rgb, width: w, height: h, format: .rgb8),
                      try MPImage(pixels: rgba, width: w, height: h, format: .rgba8, rowStride: w * 4 + 8),
                      try MPImage(pixels: bgra, width: w, height: h, format: .bgra8, rowStride: w * 4 + 8)]
        let regions = [RegionOfInterest(centerX: Double(w) / 2, centerY: Double(h) / 2, width: Double(w), height: Double(h)),
                       // One tensor pixel per image pixel: the bottom-right neighbours are the buffer's last pixel.
                       RegionOfInterest(centerX: Double(w) / 2 - 0.5, centerY: Double(h) / 2 - 0.5, width: Double(w), height: Double(h)),
                       RegionOfInterest(centerX: 120, centerY: 90, width: 150, height: 120, rotationDegrees: 33),
                       RegionOfInterest(centerX: Double(w) - 10, centerY: Double(h) - 10, width: 80, height: 60, rotationDegrees: -100)]
        for region in regions {
            for border in [ImageToTensorOptions.Border.zero, .replicate] {
                let options = ImageToTensorOptions(width: region.rotationDegrees == 0 ? w : 96, height: region.rotationDegrees == 0 ? h : 80,
                                                   keepAspectRatio: false, border: border)
                let tensors = try images.map { try ImageToTensor.bytes(from: $0, region: region, options: options).values }
                XCTAssertEqual(tensors[1], tensors[0], "RGBA vs RGB, \(region) \(border)")
                XCTAssertEqual(tensors[2], tensors[0], "BGRA vs RGB, \(region) \(border)")
            }
        }
    }

    /// PNG with a rewritten IHDR size (CRC fixed so libpng reads it) and JPEG with a rewritten SOF size.
    func testAbsurdSizesAreRefusedBeforeAllocating() throws {
        var png = PNGEncoder.encodeForTests(width: 4, height: 4)
        func setIHDR(width: UInt32, height: UInt32) {
            for (k, value) in [width, height].enumerated() {
                for b in 0..<4 { png[16 + 4 * k + b] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(b))) }
            }
            let crc = png[12..<29].withContiguousStorageIfAvailable { UInt32(crc32(0, $0.baseAddress, 17)) }!
            for b in 0..<4 { png[29 + b] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(b))) }
        }
        for (width, height) in [(100_000, 100_000), (0, 0), (0x7FFF_FFFF, 1), (16385, 16385)] as [(UInt32, UInt32)] {
            setIHDR(width: width, height: height)
            XCTAssertThrowsError(try MPImage(encoded: png), "\(width)x\(height)") { error in
                switch error as? ImageError {
                case .unsupportedSize?, .corrupt?: break
                default: XCTFail("\(width)x\(height): \(error)")
                }
            }
        }
        var jpeg = try shared("pose1.jpg")
        let sof = try XCTUnwrap((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
        for (height, width) in [(65000, 65000), (0, 0)] {
            jpeg[sof + 5] = UInt8(height >> 8); jpeg[sof + 6] = UInt8(height & 0xFF)
            jpeg[sof + 7] = UInt8(width >> 8); jpeg[sof + 8] = UInt8(width & 0xFF)
            XCTAssertThrowsError(try MPImage(encoded: jpeg), "\(width)x\(height)") { error in
                switch error as? ImageError {
                case .unsupportedSize?, .corrupt?: break
                default: XCTFail("\(width)x\(height): \(error)")
                }
            }
        }
    }

    /// 10,000+ damaged PNG and JPEG files: each must decode or be an `ImageError`; a trap would end the run.
    func testMutatedImagesNeverTrap() throws {
        let decoded = try MPImage(encoded: try shared("pose1.jpg"))
        let sources: [[UInt8]] = [
            try shared("pose1.jpg"), try shared("pose3.jpg"), try shared("hand_f5547.jpg"),
            try PNGEncoder.encode(pixels: decoded.rgbPixels(), width: decoded.width, height: decoded.height, channels: 3),
            try PNGEncoder.encode(pixels: decoded.rgbaPixels(), width: decoded.width, height: decoded.height, channels: 4),
        ]
        var state: UInt64 = 12345
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
        var total = 0, rejected = 0
        for (index, source) in sources.enumerated() {
            for _ in 0..<(index < 3 ? 2_000 : 2_200) {
                var bytes = source
                switch next(5) {
                case 0: bytes.removeLast(1 + next(bytes.count - 1))
                case 1: for _ in 0...next(4) { let at = next(bytes.count); bytes[at] ^= UInt8(1 << next(8)) }
                case 2: for _ in 0...next(8) { bytes[next(bytes.count)] = UInt8(next(256)) }
                // Headers and marker lengths live in the first few hundred bytes.
                case 3: for _ in 0...next(3) { bytes[next(min(bytes.count, 400))] = [0, 0xFF, 0x7F, 0x80, 1][next(5)] }
                default:
                    let at = next(bytes.count), run = min(1 + next(64), bytes.count - at)
                    for k in 0..<run { bytes[at + k] = 0 }
                }
                total += 1
                do { _ = try MPImage(encoded: bytes) } catch { rejected += 1 }
            }
        }
        XCTAssertGreaterThanOrEqual(total, 10_000)
        XCTAssertGreaterThan(rejected, total / 5)
        print("image mutation test: \(total) mutants, \(rejected) rejected")
    }

    func testPNGRoundTripIsLossless() throws {
        let image = try MPImage(encoded: try shared("coral_cat.png"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PNGEncoder.write(image, to: path)
        let again = try MPImage(contentsOfFile: path)
        XCTAssertEqual(again.hasAlpha, image.hasAlpha)
        XCTAssertEqual(again.rgbaPixels(), image.rgbaPixels())
    }

    func testDrawingPutsColourWhereAsked() throws {
        var canvas = Canvas(width: 40, height: 30)
        canvas.drawBox(x: 5, y: 5, width: 20, height: 10, thickness: 2, .green)
        canvas.drawPoint(x: 30.5, y: 20.5, radius: 3, .red)
        canvas.drawLine(from: (0, 29.5), to: (39, 29.5), thickness: 1, .blue)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(canvas.pixels[(4 * (y * 40 + x))..<(4 * (y * 40 + x) + 4)]) }
        XCTAssertEqual(pixel(15, 5), [48, 255, 48, 255], "top edge of the box")
        XCTAssertEqual(pixel(15, 10), [0, 0, 0, 255], "inside the box stays the opaque black fill")
        XCTAssertEqual(pixel(30, 20), [255, 48, 48, 255], "centre of the point")
        XCTAssertEqual(pixel(20, 29), [48, 96, 255, 255], "the line")
        let png = try canvas.pngData()
        let decoded = try MPImage(encoded: png)
        XCTAssertEqual(decoded.rgbaPixels(), canvas.pixels)
        let mask = try Canvas.grayscalePNG(mask: [0, 0.5, 1, 2], width: 2, height: 2)
        XCTAssertEqual(try MPImage(encoded: mask).rgbPixels(), [0, 0, 0, 128, 128, 128, 255, 255, 255, 255, 255, 255])
    }
}

extension PNGEncoder {
    /// A small valid PNG to damage in tests.
    static func encodeForTests(width: Int, height: Int) -> [UInt8] {
        try! encode(pixels: [UInt8](repeating: 128, count: width * height * 3), width: width, height: height, channels: 3)
    }
}

extension ImageInputTests {
    /// Sizes and strides whose products overflow `Int` are refused with a typed error, never a trap.
    func testOverflowingSizesAndStridesAreTypedErrors() {
        XCTAssertThrowsError(try MPImage(pixels: [0, 0, 0, 0], width: Int.max, height: 2, format: .rgba8)) { error in
            guard case .unsupportedSize = error as? ImageError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MPImage(pixels: [0, 0, 0, 0], width: 1, height: 3, format: .rgba8, rowStride: Int.max / 2)) { error in
            guard case .invalidLayout = error as? ImageError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MPImage(yPlane: [0], yRowStride: Int.max / 2, chroma: [0, 0], chromaRowStride: 2,
                                         width: 2, height: 4, format: .nv12)) { error in
            guard case .invalidLayout = error as? ImageError else { return XCTFail("\(error)") }
        }
    }
}
