import CVisionTasksZlib
import Foundation
@testable import VisionTasksImaging
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Damaged and hostile image files (issue #30): each is a typed error that names the problem, never silent damage,
/// a trap, a hang or an allocation the header asked for.
final class HostileImageTests: XCTestCase {
    private static let images = Repository.shared.appendingPathComponent("images")

    private func shared(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.images.appendingPathComponent(name)))
    }

    private var photoNames: [String] {
        get throws {
            try FileManager.default.contentsOfDirectory(atPath: Self.images.path).filter { $0.hasSuffix(".jpg") }.sorted()
        }
    }

    private func assertCorruptJPEG(_ bytes: [UInt8], messageStartsWith prefix: String, _ context: String,
                                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try MPImage(encoded: bytes), context, file: file, line: line) { error in
            guard case let .corrupt(format, message)? = error as? ImageError, format == "JPEG", message.hasPrefix(prefix) else {
                return XCTFail("\(context): expected corrupt JPEG '\(prefix)…', got \(error)", file: file, line: line)
            }
        }
    }

    /// The shipped photos raise none of the warnings that mean damage, so strict decoding reads every one, with the
    /// same pixels as the lenient mode.
    func testShippedPhotosDecodeStrictly() throws {
        let names = try photoNames
        XCTAssertGreaterThan(names.count, 10)
        for name in names {
            let bytes = try shared(name)
            let strict = try MPImage(encoded: bytes)
            let lenient = try MPImage(encoded: bytes, decodingOptions: ImageDecodingOptions(acceptsDamagedJPEGData: true))
            XCTAssertEqual(strict.rgbPixels(), lenient.rgbPixels(), name)
        }
    }

    /// Every shipped photo cut at 60 % (inside its entropy-coded data): "truncated", not a half-grey picture; the
    /// opt-in lenient mode decodes it as libjpeg does.
    func testTruncatedJPEGIsTypedError() throws {
        for name in try photoNames {
            let bytes = try shared(name)
            let cut = Array(bytes.prefix(bytes.count * 6 / 10))
            assertCorruptJPEG(cut, messageStartsWith: "truncated", name)
            let lenient = try MPImage(encoded: cut, decodingOptions: ImageDecodingOptions(acceptsDamagedJPEGData: true))
            XCTAssertEqual(lenient.width, try MPImage(encoded: bytes).width, name)
        }
        // The libjpeg fallback (for what stb_image would not read) is as strict.
        let cut = Array(try shared("pose1.jpg").prefix(6192 * 6 / 10))
        XCTAssertThrowsError(try ImageDecoder.decodeJPEGWithLibjpeg(cut)) { error in
            guard case let .corrupt("JPEG", message)? = error as? ImageError, message.hasPrefix("truncated") else { return XCTFail("\(error)") }
        }
        XCTAssertNoThrow(try ImageDecoder.decodeJPEGWithLibjpeg(cut, options: ImageDecodingOptions(acceptsDamagedJPEGData: true)))
    }

    /// Damage inside the entropy-coded data: bytes that are no Huffman code, and an end-of-image marker in the
    /// middle of the scan. Damage that still spells valid codes (a run of zero bytes here) cannot be detected, as
    /// `ImageDecodingOptions` documents: it decodes.
    func testCorruptEntropyCodedDataIsTypedError() throws {
        var badCodes = try shared("pose1.jpg")
        for k in (badCodes.count / 2)..<(badCodes.count / 2 + 256) { badCodes[k] = 0xFE }
        // libjpeg meets no valid code, or runs past the scan's end decoding garbage: either way a damaged scan.
        assertCorruptJPEG(badCodes, messageStartsWith: "damaged scan", "0xFE run")
        let photo = try shared("obj_street_people.jpg")
        let middle = photo.count / 2
        var endMarker = photo
        endMarker[middle] = 0xFF; endMarker[middle + 1] = 0xD9
        assertCorruptJPEG(endMarker, messageStartsWith: "damaged scan: entropy-coded data ends early", "EOI inside the scan")
        var zeros = photo
        for k in middle..<(middle + 64) { zeros[k] = 0 }
        XCTAssertNoThrow(try MPImage(encoded: zeros), "valid codes decode: JPEG has no checksum")
    }

    /// Headers asking for more than the pixel budget are refused with the header's size, before any pixel memory.
    func testHugeDeclaredSizesAreUnsupportedSize() throws {
        var png = PNGEncoder.encodeForTests(width: 4, height: 4)
        for (k, value) in [UInt32(100_000), 70_000].enumerated() {
            for b in 0..<4 { png[16 + 4 * k + b] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(b))) }
        }
        let crc = png[12..<29].withContiguousStorageIfAvailable { UInt32(crc32(0, $0.baseAddress, 17)) }!
        for b in 0..<4 { png[29 + b] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(b))) }
        XCTAssertThrowsError(try MPImage(encoded: png)) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedSize(width: 100_000, height: 70_000))
        }
        var jpeg = try shared("pose1.jpg")
        let sof = try XCTUnwrap((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && [0xC0, 0xC1, 0xC2].contains(jpeg[$0 + 1]) })
        jpeg[sof + 5] = 0xFD; jpeg[sof + 6] = 0xE8  // height 65000
        jpeg[sof + 7] = 0x40; jpeg[sof + 8] = 0x01  // width 16385: 16385 × 65000 > 2^28
        XCTAssertThrowsError(try MPImage(encoded: jpeg)) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedSize(width: 16385, height: 65000))
        }
        XCTAssertThrowsError(try ImageDecoder.decodeJPEGWithLibjpeg(jpeg)) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedSize(width: 16385, height: 65000))
        }
    }

    /// Sizes whose byte counts overflow, or that libpng's 32-bit fields cannot hold, are typed errors when encoding.
    func testEncodingOverflowingSizesIsTypedError() {
        for (width, height, channels) in [(Int.max, 2, 3), (1 << 32, 1, 1), (1 << 31, 1, 4), (3, Int.max / 2, 3), (-1, 1, 3)] {
            XCTAssertThrowsError(try PNGEncoder.encode(pixels: [0, 0, 0], width: width, height: height, channels: channels)) { error in
                XCTAssertEqual(error as? ImageError, .encodingFailed("\(width)×\(height)×\(channels) from 3 bytes"))
            }
        }
    }

    /// A progressive JPEG of one 8×8 block whose DC scan repeats 600 times: refused at scan 501 instead of costing a
    /// pass over the coefficients per scan (thousands of scans in a small file make minutes of work at full size).
    func testThousandsOfScansAreRefused() throws {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        var jpeg: [UInt8] = [0xFF, 0xD8]
        jpeg += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))  // quantization table 0
        jpeg += segment(0xC2, [8, 0, 8, 0, 8, 1, 1, 0x11, 0])  // progressive, 8×8, one component
        // DC table 0: one code of length 1 for category 0.
        jpeg += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        let scan = segment(0xDA, [1, 1, 0x00, 0, 0, 0]) + [0x7F]  // DC first scan: code "0", padded with ones
        for _ in 0..<600 { jpeg += scan }
        jpeg += [0xFF, 0xD9]
        var once = Array(jpeg.prefix(jpeg.count - 600 * scan.count - 2)) + scan + [0xFF, 0xD9]
        XCTAssertNoThrow(try MPImage(encoded: once), "the same file with one scan is a valid image")
        once.removeAll()
        XCTAssertThrowsError(try MPImage(encoded: jpeg)) { error in
            guard case let .corrupt("JPEG", message)? = error as? ImageError, message.contains("more than 500 scans") else {
                return XCTFail("\(error)")
            }
        }
    }

    /// EXIF offsets near UInt32.max, an entry count running past the segment, and a valid orientation as control.
    func testHostileEXIFOffsets() {
        func exif(littleEndian: Bool, ifd: UInt32, entries: [UInt8]) -> [UInt8] {
            let header: [UInt8] = littleEndian ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
            let offset: [UInt8] = littleEndian
                ? [UInt8(ifd & 0xFF), UInt8(ifd >> 8 & 0xFF), UInt8(ifd >> 16 & 0xFF), UInt8(ifd >> 24)]
                : [UInt8(ifd >> 24), UInt8(ifd >> 16 & 0xFF), UInt8(ifd >> 8 & 0xFF), UInt8(ifd & 0xFF)]
            return Array("Exif\0\0".utf8) + header + offset + entries
        }
        // One entry: tag 0x0112, type SHORT, count 1, value 6.
        let orientationEntry: [UInt8] = [1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        XCTAssertEqual(EXIF.orientation(exif(littleEndian: true, ifd: 8, entries: orientationEntry)), 6)
        for ifd in [UInt32.max, UInt32.max - 1, UInt32.max - 7, 0x8000_0000, 0x7FFF_FFFF, 15] {
            for little in [true, false] {
                XCTAssertNil(EXIF.orientation(exif(littleEndian: little, ifd: ifd, entries: orientationEntry)), "IFD at \(ifd)")
            }
        }
        // 65535 entries declared, one present: the walk stops at the segment's end.
        XCTAssertNil(EXIF.orientation(exif(littleEndian: true, ifd: 8, entries: [0xFF, 0xFF, 0x34, 0x12])))
    }

    /// A FIFO (no writer: opening it for reading would block forever), a directory and a character device are
    /// refused at once with the kind of file named.
    func testNonRegularFilesAreRefusedWithoutBlocking() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-image-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("photo.jpg").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for (path, kind) in [(fifo, "a FIFO"), (directory.path, "a directory"), ("/dev/zero", "a character device")] {
            XCTAssertThrowsError(try MPImage(contentsOfFile: path)) { error in
                XCTAssertEqual(error as? ImageError, .fileUnreadable(path: path, reason: "not a regular file (\(kind))"))
            }
        }
        XCTAssertThrowsError(try MPImage(contentsOfFile: directory.appendingPathComponent("missing.png").path)) { error in
            guard case .fileUnreadable(_, "No such file or directory")? = error as? ImageError else { return XCTFail("\(error)") }
        }
        // A sparse file far above any image's size is refused from its size, not read.
        let sparse = directory.appendingPathComponent("sparse.png").path
        XCTAssertTrue(FileManager.default.createFile(atPath: sparse, contents: Data(ImageDecoder.pngSignature)))
        XCTAssertEqual(truncate(sparse, off_t(RegularFile.maximumByteCount + 1)), 0)
        XCTAssertThrowsError(try MPImage(contentsOfFile: sparse)) { error in
            guard case let .fileUnreadable(_, reason)? = error as? ImageError, reason.contains("limit") else { return XCTFail("\(error)") }
        }
        let photo = Self.images.appendingPathComponent("pose1.jpg").path
        XCTAssertEqual(try MPImage(contentsOfFile: photo).rgbPixels(), try MPImage(encoded: try shared("pose1.jpg")).rgbPixels())
    }
}
