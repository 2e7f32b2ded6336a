@testable import VisionTasksImaging
import XCTest

/// The crop against a pixel-by-pixel reference written here from OpenCV's remap (bilinear, 8-bit, 15-bit weights,
/// FixedPtCast with its saturation, BORDER_CONSTANT 0 or BORDER_REPLICATE) on random images of every packed layout
/// (padded rows too), regions inside, across and beyond the edges, turned or not, and tensor sizes that are not
/// multiples of OpenCV's 16 × 64 blocks, at one and two threads: the sampler's shortcuts (interior pixels read without
/// checks, 4-byte neighbour reads, the red/blue swap, the row split between threads) change no value.
/// (`VisionGoldenTests` compares the crop with OpenCV's own output on photos; `PerspectiveMapTests` the coordinates.)
final class ImageToTensorTests: XCTestCase {
    /// The table's weights are exact: (32 − a)(32 − b) × 32 for fractions a/32, b/32, none negative, each entry's
    /// four adding to 2¹⁵ — OpenCV's rounding correction never applies, and a weighted sum of 8-bit values rounds
    /// into 0…255.
    func testBilinearWeightsAreExactNonNegativeAndAddToOne() {
        let table = ImageToTensor.weights
        XCTAssertEqual(table.count, 32 * 32)
        for ay in 0..<32 {
            for ax in 0..<32 {
                let w = table[ay * 32 + ax]
                XCTAssertEqual(w, SIMD4(Int32((32 - ay) * (32 - ax) * 32), Int32((32 - ay) * ax * 32),
                                        Int32(ay * (32 - ax) * 32), Int32(ay * ax * 32)), "(\(ax), \(ay))")
                XCTAssertEqual(w.wrappedSum(), 1 << 15)
                XCTAssertGreaterThanOrEqual(w.min(), 0)
            }
        }
    }

    func testSamplingMatchesPixelByPixelRemap() throws {
        var generator = SystemRandomNumberGenerator()
        var sampled = 0
        for trial in 0..<60 {
            let iw = Int.random(in: 1...90, using: &generator), ih = Int.random(in: 1...90, using: &generator)
            let format: PixelFormat = [.rgb8, .rgba8, .bgra8, .gray8][trial % 4]
            let channels = format.bytesPerPixel, padding = trial % 3 == 0 ? 5 : 0
            let stride = iw * channels + padding
            let pixels = (0..<(stride * ih)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let image = try MPImage(pixels: pixels, width: iw, height: ih, format: format, rowStride: stride)
            // Regions inside, across the edges and beyond them, turned or not.
            let region = RegionOfInterest(centerX: .random(in: -20...Double(iw) + 20, using: &generator),
                                          centerY: .random(in: -20...Double(ih) + 20, using: &generator),
                                          width: .random(in: 1...Double(2 * iw) + 10, using: &generator),
                                          height: .random(in: 1...Double(2 * ih) + 10, using: &generator),
                                          rotationDegrees: trial % 5 == 0 ? 0 : .random(in: -180...180, using: &generator))
            // Every fourth tensor is large enough (≥ 2¹⁴ pixels) for the crop to split its rows between two threads.
            let sizes = trial % 4 == 1 ? 128...200 : 1...150
            let width = Int.random(in: sizes, using: &generator), height = Int.random(in: sizes, using: &generator)
            for border in [ImageToTensorOptions.Border.zero, .replicate] {
                var options = ImageToTensorOptions(width: width, height: height, keepAspectRatio: trial % 2 == 0, border: border, range: -1...1)
                guard let expected = try Self.reference(image, region: region, options: options) else { continue }
                // Through the Swift loop and through the C loop an unoptimized build samples packed pixels with
                // (ImageToTensorOptions.usesOnoneLoop; grey pixels take the Swift loop either way).
                for (threads, ononeLoop) in [(1, false), (2, false), (1, true), (2, true)] {
                    options.maximumThreads = threads
                    options.usesOnoneLoop = ononeLoop
                    let label = "trial \(trial): \(format) \(iw)×\(ih), \(region) → \(width)×\(height), \(border), at most \(threads) thread(s)"
                        + (ononeLoop ? ", C loop" : "")
                    let bytes = try ImageToTensor.bytes(from: image, region: region, options: options).values
                    Self.assertSame(bytes, expected, label)
                    // The float path maps the same bytes: level × 2/255 − 1, in Float.
                    let floats = try ImageToTensor.floats(from: image, region: region, options: options).values
                    let scale: Float = 2 / 255, offset: Float = -1
                    Self.assertSame(floats, expected.map { Float($0) * scale + offset }, label + " (floats)")
                    sampled += 1
                }
            }
        }
        XCTAssertGreaterThan(sampled, 400)
    }

    /// Equal arrays, or one failure naming how many values differ and the first of them (not the whole tensors).
    private static func assertSame<T: Equatable>(_ ours: [T], _ expected: [T], _ label: String, line: UInt = #line) {
        guard ours.count == expected.count else {
            return XCTFail("\(label): \(ours.count) values, expected \(expected.count)", line: line)
        }
        let differing = ours.indices.filter { ours[$0] != expected[$0] }
        if let first = differing.first {
            XCTFail("\(label): \(differing.count) of \(ours.count) values differ, first at \(first) (pixel \(first / 3)): \(ours[first]) against \(expected[first])", line: line)
        }
    }

    /// OpenCV's remap of `region` into a height × width × 3 byte tensor, one pixel at a time in row order, from the
    /// image's own RGB (``MPImage/rgbPixels()``); nil for a degenerate region.
    private static func reference(_ image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions) throws -> [UInt8]? {
        let transform = ImageToTensor.transform(for: region, options: options)
        guard let map = PerspectiveMap(region: transform.region, width: options.width, height: options.height) else { return nil }
        let rgb = image.rgbPixels(), iw = image.width, ih = image.height
        let replicate = options.border == .replicate
        func pixel(_ x: Int, _ y: Int, _ c: Int) -> Int32 {
            if replicate { return Int32(rgb[(min(max(y, 0), ih - 1) * iw + min(max(x, 0), iw - 1)) * 3 + c]) }
            guard x >= 0, x < iw, y >= 0, y < ih else { return 0 }
            return Int32(rgb[(y * iw + x) * 3 + c])
        }
        var out = [UInt8](repeating: 0, count: options.width * options.height * 3)
        var xs = [Int32](repeating: 0, count: options.width), ys = xs
        for v in 0..<options.height {
            xs.withUnsafeMutableBufferPointer { x in
                ys.withUnsafeMutableBufferPointer { y in map.fixedPointRow(v, x: x.baseAddress!, y: y.baseAddress!) }
            }
            for u in 0..<options.width {
                let X = Int(xs[u]), Y = Int(ys[u])
                let x0 = min(max(X >> 5, -32768), 32767), y0 = min(max(Y >> 5, -32768), 32767)
                let w = ImageToTensor.weights[(Y & 31) * 32 + (X & 31)]
                for c in 0..<3 {
                    let sum = pixel(x0, y0, c) * w.x + pixel(x0 + 1, y0, c) * w.y + pixel(x0, y0 + 1, c) * w.z + pixel(x0 + 1, y0 + 1, c) * w.w
                    out[(v * options.width + u) * 3 + c] = UInt8(min(max((sum + (1 << 14)) >> 15, 0), 255))
                }
            }
        }
        return out
    }
}
