import VisionTasksModelFormat
import Foundation
import VisionTasksImaging
import VisionTasksTestSupport
import XCTest

/// Issue #42: the files of Tests/Fixtures/formats (tools/mediapipe_format_goldens.py) that MediaPipe 1.2.3's
/// `Image.create_from_file` reads decode, through `MPImage(contentsOfFile:)`, to exactly its pixels (SHA-256 and
/// shape in files.json): PNG 8- and 16-bit (stb keeps a 16-bit sample's high byte), palette, tRNS, gAMA (ignored);
/// JPEG baseline, progressive, restart markers, CMYK and YCCK; BMP, GIF, PNM. The grey files it reads as one channel
/// (and then fails its graph on) compare on that channel. Where the project parts from MediaPipe on a lossless file —
/// PNG eXIf orientation applied, grey+alpha PNG read — the truth is Pillow's pixels (exif_transpose), exactly.
final class FormatReferencePixelTests: XCTestCase {
    struct Pixels: Decodable { let shape: [Int]?; let pixelsSha256: String?; let read: Bool?; let source: String? }
    struct Entry: Decodable { let mediapipe: [String: Pixels]; let truth: Pixels }
    struct Files: Decodable { let files: [String: Entry] }

    private static func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    /// Our pixels in the layout of `shape` ([h, w, c]): c = 1 the red channel of our RGB (grey repeated), 3 RGB, 4 RGBA.
    private static func ours(_ image: MPImage, channels: Int) -> [UInt8] {
        switch channels {
        case 1:
            let rgb = image.rgbPixels()
            return stride(from: 0, to: rgb.count, by: 3).map { rgb[$0] }
        case 4: return image.rgbaPixels()
        default: return image.rgbPixels()
        }
    }

    func testPixelsEqualMediaPipesWhereItReadsTheFile() throws {
        let folder = Repository.fixtures.appendingPathComponent("formats")
        let files = try JSONDecoder().decode(Files.self, from: Data(contentsOf: folder.appendingPathComponent("files.json"))).files
        var equal: [String] = [], different: [String] = []
        for name in files.keys.sorted() {
            let entry = files[name]!
            let mediapipe = try XCTUnwrap(entry.mediapipe["1.2.3"])
            let exactTruth: Pixels
            if entry.truth.source == "mediapipe-file" || entry.truth.source == "mediapipe-pixels-mediapipe-decode" {
                exactTruth = mediapipe
            } else if name.hasSuffix(".png"), entry.truth.source == "mediapipe-pixels-pillow" {
                exactTruth = entry.truth
            } else {
                continue  // lossy formats MediaPipe cannot read: FormatPixelTests holds them to their decoders
            }
            let shape = try XCTUnwrap(exactTruth.shape, name), expected = try XCTUnwrap(exactTruth.pixelsSha256, name)
            let image: MPImage
            do {
                image = try MPImage(contentsOfFile: folder.appendingPathComponent(name).path)
            } catch {
                XCTFail("\(name): \(error)")
                different.append("\(name) (\(error))")
                continue
            }
            XCTAssertEqual([image.height, image.width], Array(shape.prefix(2)), "\(name): size")
            guard [image.height, image.width] == Array(shape.prefix(2)) else { different.append("\(name) (size)"); continue }
            let pixels = Self.ours(image, channels: shape.count > 2 ? shape[2] : 1)
            if Self.sha256(pixels) == expected {
                equal.append(name)
            } else {
                XCTFail("\(name): pixels differ from \(entry.truth.source == "mediapipe-pixels-pillow" ? "Pillow's" : "MediaPipe 1.2.3's")")
                different.append(name)
            }
        }
        print("pixels against MediaPipe 1.2.3 (or Pillow, lossless): \(equal.count) of \(equal.count + different.count) equal; "
              + "different: \(different.joined(separator: ", "))")
    }
}
