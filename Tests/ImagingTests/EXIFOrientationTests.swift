import VisionTasksModelFormat
import Foundation
@testable import VisionTasksImaging
import VisionTasksTestSupport
import XCTest

/// Issue #32: a JPEG's EXIF orientation turns the decoded pixels upright, as MediaPipe 1.x's
/// `Image.create_from_file` does. The truth is outside our code: `Tests/Fixtures/exif_orientation_pixels.json`
/// (tools/mediapipe_exif_pixels.py) holds MediaPipe 1.2.3's own upright pixels of each tagged photo, and djpeg's
/// pixels turned by PIL's `exif_transpose`, by SHA-256.
final class EXIFOrientationTests: XCTestCase {
    private struct Digest: Decodable, Equatable {
        let shape: [Int]
        let sha256: String
    }

    private struct Fixture: Decodable {
        let images: [String: [String: [String: Digest]]]
    }

    private static let fixture: Fixture? = try? JSONDecoder().decode(
        Fixture.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("exif_orientation_pixels.json")))

    private func fixture() throws -> Fixture { try XCTUnwrap(Self.fixture, "Tests/Fixtures/exif_orientation_pixels.json") }

    private func photo(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Repository.shared.appendingPathComponent("images/\(name)")))
    }

    private func digest(_ pixels: [UInt8], width: Int, height: Int) -> Digest {
        Digest(shape: [height, width, 3], sha256: SHA256.hash(data: pixels).map { String(format: "%02x", $0) }.joined())
    }

    /// Every tag on two photos (one with odd sides): our default decode gives MediaPipe 1.2.3's upright pixels,
    /// size included, and keeps the tag as read.
    func testEveryTagGivesMediaPipesUprightPixels() throws {
        let fixture = try fixture()
        XCTAssertEqual(fixture.images.count, 2)
        for (name, goldens) in fixture.images {
            let original = try photo(name)
            for tag in 1...8 {
                let image = try MPImage(encoded: EXIFOrientationJPEG.tagging(original, orientation: UInt16(tag)))
                XCTAssertEqual(image.exifOrientation, tag, "\(name) tag \(tag)")
                XCTAssertEqual(digest(image.rgbPixels(), width: image.width, height: image.height),
                               try XCTUnwrap(goldens["mediapipe"]?["\(tag)"]), "\(name) tag \(tag)")
            }
        }
    }

    /// libjpeg-turbo's own decode (the path for JPEGs stb_image would not read) turns its pixels the same way:
    /// djpeg's pixels turned by PIL's exif_transpose, exactly.
    func testLibjpegPathGivesDjpegTurnedByPIL() throws {
        for (name, goldens) in try fixture().images {
            let original = try photo(name)
            for tag in 1...8 {
                let decoded = try ImageDecoder.decodeJPEGWithLibjpeg(EXIFOrientationJPEG.tagging(original, orientation: UInt16(tag)))
                XCTAssertEqual(decoded.exifOrientation, tag)
                XCTAssertEqual(digest(decoded.pixels, width: decoded.width, height: decoded.height),
                               try XCTUnwrap(goldens["djpeg_exif_transpose"]?["\(tag)"]), "\(name) tag \(tag)")
            }
        }
    }

    /// `appliesExifOrientation: false` keeps the stored pixels (MediaPipe's tag-1 pixels) and still reports the tag;
    /// a file path decodes as its bytes do.
    func testOptOutKeepsStoredPixelsAndFilesAreTurnedToo() throws {
        let goldens = try XCTUnwrap(try fixture().images["pose1.jpg"])
        let tagged = EXIFOrientationJPEG.tagging(try photo("pose1.jpg"), orientation: 6)
        let stored = try MPImage(encoded: tagged, decodingOptions: ImageDecodingOptions(appliesExifOrientation: false))
        XCTAssertEqual(stored.exifOrientation, 6)
        XCTAssertEqual(digest(stored.rgbPixels(), width: stored.width, height: stored.height), goldens["mediapipe"]?["1"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("exif6-\(UUID()).jpg")
        try Data(tagged).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upright = try MPImage(contentsOfFile: file.path)
        XCTAssertEqual([upright.width, upright.height], [201, 251])
        XCTAssertEqual(digest(upright.rgbPixels(), width: upright.width, height: upright.height), goldens["mediapipe"]?["6"])
        XCTAssertEqual(try MPImage(contentsOfFile: file.path, decodingOptions: ImageDecodingOptions(appliesExifOrientation: false)).width, 251)
    }

    /// Values outside 1…8 (0, 9, 0xFFFF) are no orientation: nothing is turned and none is reported; a big-endian
    /// ("MM") TIFF header is read as well as the little-endian one.
    func testOutOfRangeTagsAreIgnoredAndBothByteOrdersRead() throws {
        let original = try photo("pose1.jpg")
        let plain = try MPImage(encoded: original)
        for value: UInt16 in [0, 9, 0xFFFF] {
            let image = try MPImage(encoded: EXIFOrientationJPEG.tagging(original, orientation: value))
            XCTAssertNil(image.exifOrientation, "\(value)")
            XCTAssertEqual(image.rgbPixels(), plain.rgbPixels(), "\(value)")
        }
        var motorola: [UInt8] = Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        let length = motorola.count + 2
        motorola = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + motorola
        let image = try MPImage(encoded: Array(original[0..<2]) + motorola + Array(original[2...]))
        XCTAssertEqual(image.exifOrientation, 8)
        XCTAssertEqual(digest(image.rgbPixels(), width: image.width, height: image.height),
                       try fixture().images["pose1.jpg"]?["mediapipe"]?["8"])
    }

    /// MediaPipe's rotation_degrees d gives the region rotation −d; the orientation is the non-mirrored one whose
    /// region rotation that is (modulo 360), whatever `regionRotationDegrees`' values. Any number of turns, negative
    /// included; not a multiple of 90 is nil.
    func testRotationDegreesFollowTheRegionRotation() throws {
        var seen: [Int: ImageOrientation] = [:]
        for degrees in stride(from: -720, through: 720, by: 90) + [90 * 1_000_000_001, -90 * 1_000_000_001, Int.max - Int.max % 360] {
            let orientation = try XCTUnwrap(ImageOrientation(rotationDegrees: degrees), "\(degrees)")
            XCTAssertFalse(orientation.isMirrored, "\(degrees)")
            let region = Int(orientation.regionRotationDegrees)
            XCTAssertEqual(((region + degrees % 360) % 360 + 360) % 360, 0, "\(degrees) → \(orientation)")
            let turn = ((degrees % 360) + 360) % 360
            if let earlier = seen[turn] { XCTAssertEqual(orientation, earlier, "\(degrees)") }
            seen[turn] = orientation
        }
        XCTAssertEqual(Set(seen.values.map { "\($0)" }).count, 4, "four turns, four orientations")
        XCTAssertEqual(ImageOrientation(rotationDegrees: 0), .up)
        for degrees in [1, 45, -30, 89, 91, Int.min, Int.max] { XCTAssertNil(ImageOrientation(rotationDegrees: degrees), "\(degrees)") }
    }
}
