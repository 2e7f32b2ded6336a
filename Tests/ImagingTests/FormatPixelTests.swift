import Foundation
@testable import VisionTasksImaging
import VisionTasksModelFormat
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Every photo format, decoded against the outside truth (`Tests/Fixtures/formats/pixels`, written by
/// tools/make_format_pixel_fixtures.py): MediaPipe 1.2.3's own `Image.create_from_file` pixels (stb_image) for PNG,
/// BMP, GIF and PNM, which it reads, and Pillow's (pillow-heif's for HEIF) for TIFF, WebP, HEIF and AVIF, which it
/// does not. Each file is a crop of a shared photo, plus hand-made files for stb's rules no encoder exercises.
final class FormatPixelTests: XCTestCase {
    private struct Truth: Decodable {
        struct Entry: Decodable {
            let truth: String
            let shape: [Int]
            let sha256: String
        }
        let files: [String: Entry]
    }

    private static let folder = Repository.fixtures.appendingPathComponent("formats/pixels")

    private func truth() throws -> [String: Truth.Entry] {
        try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.folder.appendingPathComponent("truth.json"))).files
    }

    private func decode(_ name: String, options: ImageDecodingOptions = ImageDecodingOptions()) throws -> MPImage {
        try MPImage(contentsOfFile: Self.folder.appendingPathComponent(name).path, decodingOptions: options)
    }

    /// Our pixels in the truth's layout: 1 channel (grey, which we expand to RGB), 2 (grey and alpha, expanded to
    /// RGBA), 3 (RGB) or 4 (RGBA). Nil when the layouts cannot be the same image (alpha on one side only, or grey
    /// in the truth where our channels differ).
    private func pixels(_ image: MPImage, channels: Int) -> [UInt8]? {
        guard image.hasAlpha == (channels == 2 || channels == 4) else { return nil }
        switch channels {
        case 1, 2:
            let rgba = image.rgbaPixels()
            var out: [UInt8] = []
            for i in stride(from: 0, to: rgba.count, by: 4) {
                guard rgba[i] == rgba[i + 1], rgba[i] == rgba[i + 2] else { return nil }
                out.append(rgba[i])
                if channels == 2 { out.append(rgba[i + 3]) }
            }
            return out
        case 3: return image.rgbPixels()
        default: return image.rgbaPixels()
        }
    }

    private func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    /// The shape (height, width, channels) and SHA-256 of our pixels against the truth's, or why not.
    private func mismatch(_ name: String, _ entry: Truth.Entry, options: ImageDecodingOptions = ImageDecodingOptions()) -> String? {
        let image: MPImage
        do { image = try decode(name, options: options) } catch { return "\(name): \(error)" }
        let channels = entry.shape.count == 3 ? entry.shape[2] : 1
        guard [image.height, image.width] == Array(entry.shape.prefix(2)) else {
            return "\(name): \(image.height)×\(image.width), truth \(entry.shape)"
        }
        guard let ours = pixels(image, channels: channels) else { return "\(name): \(image.format) against \(channels) channels" }
        return sha256(ours) == entry.sha256 ? nil : "\(name): pixels differ from \(entry.truth)"
    }

    /// PNG (16-bit reduced to the high byte, gAMA/sRGB/iCCP ignored, palettes, tRNS, 1/2/4-bit grey, Adam7), BMP (every
    /// header and bit depth stb reads, its OS/2 palette count and its double skip of a header gap), GIF (the first
    /// frame, stb's background fill with red and blue swapped, interlacing, transparency) and PNM (16-bit samples'
    /// low byte, an unscaled maximum of 15): bit for bit MediaPipe 1.2.3's pixels.
    func testFormatsMediaPipeReadsGiveItsPixels() throws {
        let files = try truth().filter { $0.value.truth.hasPrefix("mediapipe") }
        XCTAssertGreaterThanOrEqual(files.count, 35)
        let formats = Set(files.keys.map { ($0 as NSString).pathExtension })
        XCTAssertEqual(formats, ["png", "bmp", "gif", "pgm", "ppm"])
        // Stored pixels: MediaPipe turns none of these formats by an orientation tag (a PNG's eXIf included).
        let stored = ImageDecodingOptions(appliesExifOrientation: false)
        let failures = files.keys.sorted().compactMap { mismatch($0, files[$0]!, options: stored) }
        XCTAssertEqual(failures, [], "\(failures.count) of \(files.count) differ from MediaPipe")
    }

    /// Files MediaPipe refuses though stb decodes them: a grey + alpha PNG (two channels: MediaPipe 1.2.3 accepts
    /// 1, 3 or 4) and a top-down BMP (its `stbi_info` reports the negative height). We read them; the truth is the
    /// photo's pixels as Pillow reads them.
    func testFilesMediaPipeRefusesGiveThePhotosPixels() throws {
        let files = try truth()
        for name in ["gray-alpha.png", "top-down.bmp"] {
            let entry = try XCTUnwrap(files[name])
            XCTAssertTrue(entry.truth.hasPrefix("pillow"), name)
            XCTAssertNil(mismatch(name, entry))
        }
    }

    /// A PNG's eXIf orientation is reported and applied as a JPEG's EXIF is (tag 6: turned 90° clockwise, as PIL's
    /// `exif_transpose`), beyond MediaPipe 1.2.3, which keeps the stored pixels (its truth entry, the stored 37 × 29
    /// image, is what the option off gives: the test above).
    func testPNGExifOrientationIsAppliedAsAJPEGs() throws {
        let entry = try XCTUnwrap(try truth()["exif6.png"])
        XCTAssertEqual(entry.shape, [29, 37, 3])
        let stored = try decode("exif6.png", options: ImageDecodingOptions(appliesExifOrientation: false))
        XCTAssertNil(mismatch("exif6.png", entry, options: ImageDecodingOptions(appliesExifOrientation: false)))
        XCTAssertEqual(stored.exifOrientation, 6)
        let upright = try decode("exif6.png")
        XCTAssertEqual([upright.width, upright.height], [29, 37])
        XCTAssertEqual(upright.exifOrientation, 6)
        // Turned clockwise: upright (row y, column x) is stored (row height − 1 − x, column y).
        let from = stored.rgbPixels(), to = upright.rgbPixels(), storedWidth = 37, storedHeight = 29
        var turned = [UInt8](repeating: 0, count: from.count)
        for y in 0..<storedWidth {
            for x in 0..<storedHeight {
                for c in 0..<3 { turned[(y * storedHeight + x) * 3 + c] = from[((storedHeight - 1 - x) * storedWidth + y) * 3 + c] }
            }
        }
        XCTAssertEqual(to, turned)
    }

    /// irot6.heic carries both HEIF's `irot` (libheif turns the picture) and an EXIF orientation of 6 (pillow-heif
    /// wrote the tag it turned by): the EXIF tag is ignored, as the HEIF specification says and pillow-heif does, so
    /// the picture is turned once — upright 29 wide, 37 tall (the test against pillow-heif's pixels holds the rest).
    func testHEIFIsTurnedByIrotAndItsEXIFTagIgnored() throws {
        let bytes = Array(try Data(contentsOf: Self.folder.appendingPathComponent("irot6.heic")))
        let exifSix: [UInt8] = [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06]
        XCTAssertNotNil((0..<(bytes.count - exifSix.count)).first { bytes[$0..<$0 + exifSix.count].elementsEqual(exifSix) })
        for applies in [true, false] {
            let image = try MPImage(encoded: bytes, decodingOptions: ImageDecodingOptions(appliesExifOrientation: applies))
            XCTAssertEqual([image.width, image.height], [29, 37])
            XCTAssertNil(image.exifOrientation)
        }
    }

    /// TIFF's Orientation field and WebP's EXIF tag are reported, and applied unless the options say not to.
    func testTIFFAndWebPOrientationFollowsTheOption() throws {
        for (name, tag) in [("orientation6.tiff", 6), ("orientation8.tiff", 8), ("orientation3.tiff", 3), ("exif6.webp", 6)] {
            let bytes = Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
            let upright = try MPImage(encoded: bytes)
            let stored = try MPImage(encoded: bytes, decodingOptions: ImageDecodingOptions(appliesExifOrientation: false))
            XCTAssertEqual(upright.exifOrientation, tag, name)
            XCTAssertEqual(stored.exifOrientation, tag, name)
            XCTAssertEqual([stored.width, stored.height], [37, 29], name)
            XCTAssertEqual([upright.width, upright.height], tag == 3 ? [37, 29] : [29, 37], name)
        }
    }

    /// The largest difference, per file, between our decode of a format MediaPipe does not read (through Debian's
    /// libraries) and Pillow's (through its own bundled ones), as measured; every file not listed is identical
    /// (TIFF through libtiff 4.5 against Pillow's 4.7, WebP through libwebp 1.2.4 against 1.6, the same pixels).
    /// HEIF's pixels are libheif's colour conversion, which changed between releases, so they are measured per
    /// libheif release (major.minor, as loaded). Through Debian 12's libheif 1.15 against pillow-heif 1.8.1's 1.23:
    /// - 1 level on HEIC, rounding in YCbCr → RGB;
    /// - 38 (mean about 3) on the odd-sized (37 × 29) HEIC turned by irot: chroma placement after the turn, not a
    ///   shift (a one-pixel shift either way differs by 140 and more); even-sized files turned by irot differ by 1.
    /// Through Debian 13's libheif 1.23 (1.23.6, pillow-heif's own release; libde265 1.0.15 against pillow-heif's
    /// 1.1.3): every HEIC identical.
    /// AVIF through libheif (dav1d, both releases) against Pillow's own AVIF plugin (libavif): 38 (mean about 3), its
    /// 4:2:0 chroma upsampled differently (nearest against bilinear): the same file in 4:4:4 differs by 1.
    static let measuredDifference: [String: [String: Int]] = [
        "1.15": ["photo.heic": 1, "alpha.heic": 1, "irot6.heic": 38, "photo.avif": 38],
        "1.23": ["photo.avif": 38],
    ]

    /// TIFF, WebP, HEIF and AVIF against Pillow / pillow-heif, with their orientation (TIFF's tag and WebP's EXIF as
    /// for a JPEG, HEIF's irot by libheif).
    func testOtherFormatsGivePillowsPixels() throws {
        let files = try truth().filter { !$0.value.truth.hasPrefix("mediapipe") && !["gray-alpha.png", "top-down.bmp"].contains($0.key) }
        let libheif = ImageDecoder.libheifVersion.split(separator: ".").prefix(2).joined(separator: ".")
        let measured = try XCTUnwrap(Self.measuredDifference[libheif], "libheif \(ImageDecoder.libheifVersion): its HEIF pixels not yet measured against Pillow's")
        let formats = Set(files.keys.map { ($0 as NSString).pathExtension })
        XCTAssertTrue(formats.isSuperset(of: ["tiff", "webp", "heic"]), "\(formats)")
        var report: [String] = []
        for name in files.keys.sorted() {
            let entry = files[name]!
            let image = try decode(name)
            XCTAssertEqual([image.height, image.width], Array(entry.shape.prefix(2)), name)
            let channels = entry.shape.count == 3 ? entry.shape[2] : 1
            let ours = try XCTUnwrap(pixels(image, channels: channels), "\(name): \(image.format) against \(channels) channels")
            let npy = try Data(contentsOf: Self.folder.appendingPathComponent(name + ".truth.npy"))
            let theirs = try NumPyArray(npy: ByteStorage(copying: Array(npy)).slice).bytes
            XCTAssertEqual(ours.count, theirs.count, name)
            let largest = zip(ours, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
            report.append("\(name) \(largest)")
            XCTAssertEqual(largest, measured[name] ?? 0, "\(name): largest difference from \(entry.truth), libheif \(ImageDecoder.libheifVersion)")
        }
        print("FormatPixelTests differences (libheif \(ImageDecoder.libheifVersion)): " + report.joined(separator: ", "))
    }
}
