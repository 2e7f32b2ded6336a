import Foundation
@testable import VisionTasksImaging
import VisionTasksModelMutation
import VisionTasksTestSupport
import XCTest

/// The decoders beyond PNG and JPEG (BMP, GIF, PNM written here; TIFF, WebP, HEIF through Debian's libraries) on
/// damaged and hostile files: cut short, sizes past the pixel budget, zero sizes. Each is a typed error, never a trap,
/// a hang or an allocation the header asked for; and a file that is none of the formats says what it looks like.
final class HostileFormatTests: XCTestCase {
    private static let folder = Repository.fixtures.appendingPathComponent("formats/pixels")

    private func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.folder.appendingPathComponent(name)))
    }

    private func error(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> ImageError? {
        do {
            let image = try MPImage(encoded: bytes)
            XCTFail("decoded a \(image.width)×\(image.height) image", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private static let formats: [(file: String, format: String)] = [
        ("rgb24.bmp", "BMP"), ("palette8.bmp", "BMP"), ("rgb565-bitfields.bmp", "BMP"), ("pillow.gif", "GIF"),
        ("interlaced-frame.gif", "GIF"), ("rgb.ppm", "PNM"), ("gray16.pgm", "PNM"), ("rgb-tiff_lzw.tiff", "TIFF"),
        ("rgb-raw.tiff", "TIFF"), ("jpeg-ycbcr.tiff", "TIFF"), ("lossy.webp", "WebP"), ("lossless.webp", "WebP"),
        ("photo.heic", "HEIF"), ("rgb16.png", "PNG"), ("palette.png", "PNG"),
    ]

    /// Every format cut at 30 %, 60 % and 95 % of its bytes: `corrupt` with the format's name ("truncated…" where
    /// the decoder can tell), not an image finished in black as stb_image would give it.
    func testTruncatedFilesAreCorrupt() throws {
        for (name, format) in Self.formats {
            let bytes = try fixture(name)
            for percent in [30, 60, 95] {
                let cut = Array(bytes.prefix(bytes.count * percent / 100))
                guard case let .corrupt(got, message)? = error(cut) else {
                    XCTFail("\(name) cut at \(percent) %: \(String(describing: error(cut)))")
                    continue
                }
                XCTAssertEqual(got, format, "\(name) at \(percent) %: \(message)")
                XCTAssertFalse(message.isEmpty, name)
            }
        }
    }

    private func littleEndian(_ value: UInt32, into bytes: inout [UInt8], at offset: Int, count: Int = 4) {
        for i in 0..<count { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    /// Headers asking for more than the pixel budget (2^28 pixels) are refused with their size before any pixel
    /// memory is allocated; zero sizes are refused too.
    func testHugeAndZeroSizesAreRefused() throws {
        var bmp = try fixture("rgb24.bmp")
        littleEndian(100_000, into: &bmp, at: 18)
        littleEndian(70_000, into: &bmp, at: 22)
        XCTAssertEqual(error(bmp), .unsupportedSize(width: 100_000, height: 70_000))
        littleEndian(0, into: &bmp, at: 18)
        XCTAssertEqual(error(bmp), .unsupportedSize(width: 0, height: 70_000))

        var gif = try fixture("pillow.gif")
        littleEndian(65535, into: &gif, at: 6, count: 2)
        littleEndian(65535, into: &gif, at: 8, count: 2)
        XCTAssertEqual(error(gif), .unsupportedSize(width: 65535, height: 65535))
        littleEndian(0, into: &gif, at: 6, count: 2)
        XCTAssertEqual(error(gif), .unsupportedSize(width: 0, height: 65535))

        XCTAssertEqual(error(Array("P6 100000 70000 255\n".utf8) + [1, 2, 3]), .unsupportedSize(width: 100_000, height: 70_000))
        XCTAssertEqual(error(Array("P5 99999999999 1 255\n".utf8)), .corrupt(format: "PNM", message: "the width overflows a 32-bit integer"))
        XCTAssertEqual(error(Array("P5 0 7 255\n".utf8)), .corrupt(format: "PNM", message: "zero width"))

        // TIFF: the first IFD's ImageWidth (256) and ImageLength (257) entries, written as LONGs by Pillow.
        var tiff = try fixture("rgb-raw.tiff")
        let ifd = Int(tiff[4]) | Int(tiff[5]) << 8 | Int(tiff[6]) << 16 | Int(tiff[7]) << 24
        let entries = Int(tiff[ifd]) | Int(tiff[ifd + 1]) << 8
        var patched = 0
        for k in 0..<entries {
            let at = ifd + 2 + 12 * k
            let tag = Int(tiff[at]) | Int(tiff[at + 1]) << 8, type = Int(tiff[at + 2])
            guard tag == 256 || tag == 257 else { continue }
            XCTAssertTrue(type == 3 || type == 4)
            littleEndian(tag == 256 ? 100_000 : 70_000, into: &tiff, at: at + 8, count: type == 3 ? 2 : 4)
            patched += 1
        }
        XCTAssertEqual(patched, 2)
        XCTAssertEqual(error(tiff), .unsupportedSize(width: 100_000, height: 70_000))

        // WebP: an animation's extended (VP8X) header whose canvas is 40000 × 20000 (24-bit fields, stored minus
        // one; a still image's VP8 and VP8L sizes have 14 bits, within the budget, and libwebp itself refuses a canvas
        // of 2^32 pixels or more).
        var webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0x02, 0, 0, 0]
        webp += [0, 0, 0, 0, 0, 0]
        littleEndian(40_000 - 1, into: &webp, at: 24, count: 3)
        littleEndian(20_000 - 1, into: &webp, at: 27, count: 3)
        littleEndian(UInt32(webp.count - 8), into: &webp, at: 4)
        XCTAssertEqual(error(webp), .unsupportedSize(width: 40_000, height: 20_000))

        // HEIF: the primary image's ispe box says 100000 × 70000.
        var heic = try fixture("photo.heic")
        let ispe = try XCTUnwrap((0..<(heic.count - 4)).first { heic[$0..<$0 + 4].elementsEqual(Array("ispe".utf8)) })
        for (offset, value) in [(ispe + 8, UInt32(100_000)), (ispe + 12, UInt32(70_000))] {
            for i in 0..<4 { heic[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
        }
        switch error(heic) {
        case let .unsupportedSize(width, height)?: XCTAssertEqual([width, height], [100_000, 70_000])
        case let .corrupt(format, message)?: XCTAssertEqual(format, "HEIF", message)  // libheif's own size limit
        case let other: XCTFail("\(String(describing: other))")
        }
    }

    /// A GIF frame reaching outside its screen, a raster with no clear code first, an LZW code past the table, and
    /// a BMP with RLE compression: stb_image's refusals, as typed errors.
    func testMalformedStructuresAreCorrupt() throws {
        var gif = try fixture("interlaced-frame.gif")
        let descriptor = 13 + 3 * 256  // after the header and the 256-entry global table (no extension before it)
        XCTAssertEqual(gif[descriptor], 0x2C)
        gif[descriptor + 5] = 0xFF  // frame width 0xFF.., past the screen
        XCTAssertEqual(error(gif), .corrupt(format: "GIF", message: "a frame outside the screen"))
        var noClear = try fixture("interlaced-frame.gif")
        noClear[descriptor + 13] &= 0xFE  // the first 9-bit code's top bit: 0, not the clear code 256
        XCTAssertEqual(error(noClear), .corrupt(format: "GIF", message: "no clear code at the start of the image data"))
        var bmp = try fixture("rgb24.bmp")
        littleEndian(1, into: &bmp, at: 30)
        XCTAssertEqual(error(bmp), .corrupt(format: "BMP", message: "RLE compression, which stb_image does not read"))
    }

    /// Until the libFuzzer harnesses run in CI for these decoders (tools/fuzz: bmp, gif, pnm, tiff, webp, heif), a
    /// fixed-seed sweep of damaged files: 400 mutants of each format's fixtures (bytes overwritten, cut, repeated)
    /// decode or throw an `ImageError`; none traps (under tools/sanitize's ASan, none reads out of bounds either).
    func testMutatedFilesDecodeOrThrowTypedErrors() throws {
        var generator = SplitMix64(seed: 42)
        var outcomes = (decoded: 0, refused: 0)
        for (name, _) in Self.formats {
            let original = try fixture(name)
            for _ in 0..<400 {
                var bytes = original
                switch generator.next() % 3 {
                case 0:
                    for _ in 0...(generator.next() % 8) {
                        // Mostly the header and structures near the start, where sizes and offsets live.
                        let limit = generator.next() % 2 == 0 ? min(bytes.count, 64) : bytes.count
                        bytes[Int(generator.next() % UInt64(limit))] = UInt8(truncatingIfNeeded: generator.next())
                    }
                case 1:
                    bytes.removeLast(Int(generator.next() % UInt64(bytes.count)))
                default:
                    let at = Int(generator.next() % UInt64(bytes.count)), count = Int(generator.next() % 64)
                    bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + count)], at: at)
                }
                do {
                    let image = try MPImage(encoded: bytes)
                    XCTAssertEqual(image.rgbPixels().count, image.width * image.height * 3)
                    outcomes.decoded += 1
                } catch {
                    outcomes.refused += 1
                }
            }
        }
        XCTAssertEqual(outcomes.decoded + outcomes.refused, Self.formats.count * 400)
        XCTAssertGreaterThan(outcomes.refused, 0)
    }

    /// What libFuzzer's heif harness found (Tests/Fuzz/regressions/heif): an AVIF whose image item holds no data.
    /// A typed error; libheif 1.15's dav1d plugin leaks 40 bytes on it (strukturag/libheif#1753), which
    /// tools/lsan-suppressions.txt names.
    func testFuzzRegressionsAreTypedErrors() throws {
        let folder = Repository.root.appendingPathComponent("Tests/Fuzz/regressions/heif")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            guard case let .corrupt(format, _)? = error(bytes) else { XCTFail(name); continue }
            XCTAssertEqual(format, "HEIF", name)
        }
    }

    /// A file that is none of the formats is `unknownFormat`, naming what it looks like.
    func testUnknownFormatsSayWhatTheyAre() throws {
        let cases: [([UInt8], String)] = [
            (Array("%PDF-1.7\n".utf8), "a PDF document"),
            ([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2avc1mp41".utf8), "an MP4 video"),
            ([0, 0, 0, 0x14] + Array("ftypqt  ".utf8) + [0, 0, 0, 0] + Array("qt  ".utf8), "a QuickTime movie"),
            ([], "an empty file"),
            ([0x1A, 0x45, 0xDF, 0xA3, 1, 2], "a Matroska or WebM video"),
            (Array("P3\n2 2\n255\n".utf8), "a PNM of type P3"),
            ([0xDE, 0xAD, 0xBE, 0xEF, 0, 1], "bytes de ad be ef 00 01"),
            (Array("hello, world".utf8), "text starting \"hello, world\""),
        ]
        for (bytes, expected) in cases {
            guard case let .unknownFormat(seen)? = error(bytes) else { XCTFail(expected); continue }
            XCTAssertTrue(seen.hasPrefix(expected), "\(seen) for \(expected)")
            XCTAssertTrue("\(ImageError.unknownFormat(seen: seen))".contains("not an image format"), seen)
        }
    }

    /// Formats are told by content: a BMP named `.png` decodes as the BMP it is.
    func testFormatIsByContentNotName() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("format-by-content-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let misnamed = directory.appendingPathComponent("photo.png")
        try Data(try fixture("rgb24.bmp")).write(to: misnamed)
        let image = try MPImage(contentsOfFile: misnamed.path)
        XCTAssertEqual(image.rgbPixels(), try MPImage(encoded: try fixture("rgb24.bmp")).rgbPixels())
        XCTAssertEqual(ImageFormat.fileIsImage(atPath: misnamed.path), true)
        let heic = directory.appendingPathComponent("photo.dat")
        try Data(try fixture("photo.heic")).write(to: heic)
        XCTAssertEqual(ImageFormat.fileIsImage(atPath: heic.path), true)
        XCTAssertNil(ImageFormat.fileIsImage(atPath: directory.appendingPathComponent("missing").path))
    }
}

