import VisionTasksModelFormat
import Foundation
import VisionTasksImaging
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Decoding and region sampling against Pillow (PNG), MediaPipe's own JPEG decoding (stb_image, digests in
/// `Tests/Fixtures/mediapipe_jpeg_pixels.json`) and OpenCV as MediaPipe uses it (`.cache/goldens/vision`, written by
/// `tools/vision_goldens.py`).
final class VisionGoldenTests: XCTestCase {
    static let goldens = Repository.root.appendingPathComponent(".cache/goldens/vision")

    private func npy(_ path: String) throws -> NumPyArray {
        try NumPyArray(npy: ByteSlice.mapping(path: Self.goldens.appendingPathComponent(path).path))
    }

    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    func testPNGDecodeMatchesPillowExactly() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.goldens.appendingPathComponent("decode").path)
            .filter { $0.hasSuffix(".png.npy") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 4, "run tools/vision_goldens.py (tools/run-tests does)")
        for file in names {
            let name = String(file.dropLast(4))
            let expected = try npy("decode/\(file)")
            let decoded = try image(name)
            XCTAssertEqual([decoded.height, decoded.width, decoded.hasAlpha ? 4 : 3], expected.shape, name)
            let ours = decoded.hasAlpha ? decoded.rgbaPixels() : decoded.rgbPixels()
            XCTAssertEqual(ours.count, expected.bytes.count, name)
            if ours != expected.bytes {
                let mismatches = zip(ours, expected.bytes).filter { $0 != $1 }.count
                XCTFail("\(name): \(mismatches) bytes differ")
            }
        }
    }

    struct DecodedDigest: Decodable { let shape: [Int], sha256: String }
    struct DecodedDigests: Decodable { let images: [String: DecodedDigest] }

    /// Every shared JPEG (baseline and progressive, 4:2:0, 4:4:4, up to 6010 × 4180) to the byte as MediaPipe
    /// 0.10.14's Python API decodes it. On a mismatch, MediaPipe's pixels in `.cache/mediapipe-decoded` (same tool)
    /// say by how much.
    func testJPEGDecodeIsMediaPipesExactly() throws {
        let fixture = try JSONDecoder().decode(DecodedDigests.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("mediapipe_jpeg_pixels.json")))
        let jpegs = try FileManager.default.contentsOfDirectory(atPath: Repository.shared.appendingPathComponent("images").path)
            .filter { $0.lowercased().hasSuffix(".jpg") }
        XCTAssertEqual(Set(fixture.images.keys), Set(jpegs), "run tools/mediapipe_decoded_images.py")
        for (name, expected) in fixture.images.sorted(by: { $0.key < $1.key }) {
            let decoded = try image(name)
            XCTAssertEqual([decoded.height, decoded.width, 3], expected.shape, name)
            let pixels = decoded.rgbPixels()
            let digest = SHA256.hash(data: pixels).map { String(format: "%02x", $0) }.joined()
            guard digest != expected.sha256 else { continue }
            let reference = Repository.root.appendingPathComponent(".cache/mediapipe-decoded/\((name as NSString).deletingPathExtension).png")
            if let mediapipe = try? MPImage(contentsOfFile: reference.path), mediapipe.width == decoded.width {
                let differences = zip(pixels, mediapipe.rgbPixels()).map { abs(Int($0) - Int($1)) }
                XCTFail("\(name): \(differences.filter { $0 > 0 }.count) of \(pixels.count) bytes differ from MediaPipe's, by up to \(differences.max() ?? 0)")
            } else {
                XCTFail("\(name): pixels differ from MediaPipe's (digest \(digest))")
            }
        }
    }

    private struct Case: Decodable {
        let image: String
        let roi: [Double]
        let size: [Int]
        let letterbox: Bool
        let range: [Float]
        let border: String
        let file: String
        let boxPoints: [[Double]]
    }

    func testCropsMatchOpenCVAsMediaPipeUsesIt() throws {
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: Self.goldens.appendingPathComponent("crops/cases.json")))
        XCTAssertGreaterThanOrEqual(cases.count, 10)
        var cache: [String: MPImage] = [:]
        for (index, c) in cases.enumerated() {
            // The source is the pixels OpenCV cropped (libjpeg-turbo's for JPEGs, not MediaPipe's), so that this
            // checks the geometry alone.
            let source = try cache[c.image] ?? goldenSource(c.image)
            cache[c.image] = source
            let options = ImageToTensorOptions(width: c.size[0], height: c.size[1], keepAspectRatio: c.letterbox,
                                               border: c.border == "zero" ? .zero : .replicate, range: c.range[0]...c.range[1])
            let region = RegionOfInterest(centerX: c.roi[0], centerY: c.roi[1], width: c.roi[2], height: c.roi[3], rotationDegrees: c.roi[4])
            let (ours, transform) = try ImageToTensor.floats(from: source, region: region, options: options)
            let expected = try npy("crops/\(c.file)").floats
            XCTAssertEqual(ours.count, expected.count)
            // Equal to the value, except where a source coordinate sits exactly on a 1/64-pixel rounding tie: there
            // the last bit of the perspective matrix decides, and OpenCV builds differ in it (the PyPI wheel solves
            // getPerspectiveTransform with LAPACK, OpenCV's own LU is what we replicate). A tie may move the result
            // by one 8-bit level, never more.
            let level = (c.range[1] - c.range[0]) / 255
            var differing = 0, unexplained = 0
            for (i, (a, b)) in zip(ours, expected).enumerated() where a != b {
                differing += 1
                let pixel = i / 3, u = pixel % c.size[0], v = pixel / c.size[0]
                let source = transform.imagePoint(tensorX: Double(u) / Double(c.size[0]), tensorY: Double(v) / Double(c.size[1]))
                let onTie = [source.x, source.y].contains { abs(($0 * 32).truncatingRemainder(dividingBy: 1).magnitude - 0.5) < 1e-6 }
                if abs(a - b) > level * 1.001 || !onTie { unexplained += 1 }
            }
            XCTAssertEqual(unexplained, 0, "case \(index) (\(c.image) \(c.roi)): \(unexplained) of \(differing) differing values are not one-level rounding ties")
            XCTAssertLessThanOrEqual(differing, ours.count / 10_000, "case \(index): \(differing) values differ")
            // The inverse transform puts the tensor's corners on OpenCV's boxPoints (top-left, top-right, bottom-left).
            for (corner, point) in [((0.0, 0.0), c.boxPoints[1]), ((1.0, 0.0), c.boxPoints[2]), ((0.0, 1.0), c.boxPoints[0])] {
                let mapped = transform.imagePoint(tensorX: corner.0, tensorY: corner.1)
                XCTAssertEqual(mapped.x, point[0], accuracy: 1e-3, "case \(index) corner \(corner)")
                XCTAssertEqual(mapped.y, point[1], accuracy: 1e-3, "case \(index) corner \(corner)")
            }
        }
    }

    private func goldenSource(_ name: String) throws -> MPImage {
        let pixels = try npy("decode/\(name).npy")
        return try MPImage(pixels: pixels.bytes, width: pixels.shape[1], height: pixels.shape[0],
                           format: pixels.shape[2] == 4 ? .rgba8 : .rgb8)
    }

    func testYUVConvertsByBT601FullRange() throws {
        let y = try npy("yuv/y.npy"), uv = try npy("yuv/uv.npy"), u = try npy("yuv/u.npy"), v = try npy("yuv/v.npy")
        let expected = try npy("yuv/rgb.npy")
        let height = y.shape[0], width = y.shape[1]
        let nv12 = try MPImage(yPlane: y.bytes, yRowStride: width, chroma: uv.bytes, chromaRowStride: uv.shape[1],
                               width: width, height: height, format: .nv12)
        let i420 = try MPImage(yPlane: y.bytes, yRowStride: width, chroma: u.bytes, chromaRowStride: u.shape[1],
                               chroma2: v.bytes, chroma2RowStride: v.shape[1], width: width, height: height, format: .i420)
        for image in [nv12, i420] {
            let worst = zip(image.rgbPixels(), expected.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 99
            XCTAssertLessThanOrEqual(worst, 1, "\(image.format)")
        }
    }
}
