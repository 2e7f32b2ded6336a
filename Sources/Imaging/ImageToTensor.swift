import Dispatch
import Foundation

/// Options for cutting a model input out of an image.
public struct ImageToTensorOptions: Sendable, Equatable {
    public enum Border: Sendable, Equatable { case zero, replicate }

    public var width: Int
    public var height: Int
    /// Grow the region to the tensor's aspect ratio (padding with the border) instead of stretching it.
    public var keepAspectRatio: Bool
    public var border: Border
    /// The values 0 and 255 map to, linearly: [0, 1], [-1, 1], or from metadata mean/std.
    public var range: ClosedRange<Float>
    /// The most threads sampling may use (it uses at most two, and one for small tensors); nil for no limit of the
    /// caller's. Every output value is computed the same way whatever the split, so results do not depend on it.
    public var maximumThreads: Int?

    public init(width: Int, height: Int, keepAspectRatio: Bool = false, border: Border = .zero, range: ClosedRange<Float> = 0...1,
                maximumThreads: Int? = nil) {
        self.width = width
        self.height = height
        self.keepAspectRatio = keepAspectRatio
        self.border = border
        self.range = range
        self.maximumThreads = maximumThreads
    }

    /// The range TFLite metadata's `(x − mean) / std` normalization gives for 8-bit pixels.
    public static func range(mean: Float, std: Float) -> ClosedRange<Float> {
        let low = (0 - mean) / std, high = (255 - mean) / std
        return min(low, high)...max(low, high)
    }
}

/// Samples a rotated region of an image into a model input, the way MediaPipe's ImageToTensorCalculator does on
/// CPU: OpenCV `boxPoints` corners, the perspective map from them to the tensor's corners, `warpPerspective` with
/// bilinear interpolation on 8-bit pixels, then a linear map of 0…255 to the requested range.
///
/// OpenCV's arithmetic is followed where it shows in the output: source coordinates are rounded to 1/32 pixel,
/// bilinear weights are 15-bit fixed point, the 8-bit result is rounded before scaling, and with a zero border
/// each neighbour outside the image counts as 0.
public enum ImageToTensor {
    /// The region that will be sampled for `options`: `region` grown to the tensor's aspect ratio when letterboxing
    /// (MediaPipe's `PadRoi`), with the padding that adds.
    public static func transform(for region: RegionOfInterest, options: ImageToTensorOptions) -> TensorToImageTransform {
        guard options.keepAspectRatio else { return TensorToImageTransform(region: region, padding: (0, 0, 0, 0)) }
        let tensorAspect = Double(options.height) / Double(options.width)
        let regionAspect = region.height / region.width
        var padded = region
        if tensorAspect > regionAspect {
            padded.height = region.width * tensorAspect
            let vertical = (1 - regionAspect / tensorAspect) / 2
            return TensorToImageTransform(region: padded, padding: (0, vertical, 0, vertical))
        } else {
            padded.width = region.height / tensorAspect
            let horizontal = (1 - tensorAspect / regionAspect) / 2
            return TensorToImageTransform(region: padded, padding: (horizontal, 0, horizontal, 0))
        }
    }

    /// Samples `region` of `image` into a float tensor of `options.height × options.width × 3` (RGB, row-major).
    public static func floats(from image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions) throws(ImageError) -> (values: [Float], transform: TensorToImageTransform) {
        var values = [Float](repeating: 0, count: max(options.width * options.height * 3, 0))
        let transform = try values.withUnsafeMutableBufferPointer { (buffer) throws(ImageError) in
            try write(image, region: region, options: options, into: buffer)
        }
        return (values, transform)
    }

    /// Samples into `output` (at least height × width × 3 floats) without allocating: the path tasks use to fill
    /// an interpreter's input in place.
    public static func write(_ image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions,
                             into output: UnsafeMutableBufferPointer<Float>) throws(ImageError) -> TensorToImageTransform {
        let sink = FloatSink(base: output.baseAddress!, scale: (options.range.upperBound - options.range.lowerBound) / 255,
                             offset: options.range.lowerBound)
        return try sample(image, region: region, options: options, outputCount: output.count, sink: sink)
    }

    /// Samples into 8-bit RGB in place (at least height × width × 3 bytes), as uint8 models take it: no range mapping,
    /// no allocation.
    public static func write(_ image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions,
                             into output: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> TensorToImageTransform {
        try sample(image, region: region, options: options, outputCount: output.count, sink: ByteSink(base: output.baseAddress!))
    }

    /// Samples into 8-bit RGB, as uint8 models take it (no range mapping).
    public static func bytes(from image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions) throws(ImageError) -> (values: [UInt8], transform: TensorToImageTransform) {
        var values = [UInt8](repeating: 0, count: max(options.width * options.height * 3, 0))
        let count = values.count
        let transform = try values.withUnsafeMutableBufferPointer { (out) throws(ImageError) in
            try sample(image, region: region, options: options, outputCount: count, sink: ByteSink(base: out.baseAddress!))
        }
        return (values, transform)
    }

    // OpenCV's INTER_BITS and INTER_REMAP_COEF_BITS.
    static let interBits = 5
    private static let coefficientBits = 15

    private static func sample<Sink: TensorSink>(_ image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions,
                                                 outputCount: Int, sink: Sink) throws(ImageError) -> TensorToImageTransform {
        guard options.width > 0, options.height > 0, options.width * options.height <= MPImage.maximumPixelCount else {
            throw .invalidRegion("output size \(options.width)×\(options.height)")
        }
        guard outputCount >= options.width * options.height * 3 else {
            throw .bufferTooSmall(needed: options.width * options.height * 3, available: outputCount)
        }
        guard region.isValid, options.range.lowerBound.isFinite, options.range.upperBound.isFinite else {
            throw .invalidRegion("\(region)")
        }
        let transform = self.transform(for: region, options: options)
        guard let map = PerspectiveMap(region: transform.region, width: options.width, height: options.height) else {
            throw .invalidRegion("degenerate region \(region)")
        }
        let replicate = options.border == .replicate
        let iw = image.width, ih = image.height
        image.withPixelReader { reader in
        // Rows are independent and each writes its own outputs: two threads take half the rows each (the tasks'
        // per-frame pre-processing is otherwise the longest single-threaded stretch).
        let threads = options.width * options.height >= 1 << 14
            ? max(1, min(2, ProcessInfo.processInfo.activeProcessorCount, options.maximumThreads ?? .max)) : 1
        let shared = SendableBox((reader, map))
        DispatchQueue.concurrentPerform(iterations: threads) { part in
        let (reader, map) = shared.value
        for v in (options.height * part / threads)..<(options.height * (part + 1) / threads) {
            for u in 0..<options.width {
                let (X, Y) = map.fixedPointSource(u: u, v: v)
                // Integer pixel, saturated to 16 bits as OpenCV stores it, and the 1/32 fraction.
                let x0 = min(max(X >> interBits, -32768), 32767), y0 = min(max(Y >> interBits, -32768), 32767)
                let ax = X & ((1 << interBits) - 1), ay = Y & ((1 << interBits) - 1)
                let weights = Self.weights[ay * (1 << interBits) + ax]
                let index = (v * options.width + u) * 3
                if !replicate, x0 >= iw || x0 + 1 < 0 || y0 >= ih || y0 + 1 < 0 {
                    sink.store(index, .zero)
                    continue
                }
                let sum = neighbour(reader, x0, y0, iw, ih, replicate) &* weights.x
                    &+ neighbour(reader, x0 + 1, y0, iw, ih, replicate) &* weights.y
                    &+ neighbour(reader, x0, y0 + 1, iw, ih, replicate) &* weights.z
                    &+ neighbour(reader, x0 + 1, y0 + 1, iw, ih, replicate) &* weights.w
                let rounded = (sum &+ SIMD3(repeating: Int32(1 << (coefficientBits - 1)))) &>> Int32(coefficientBits)
                sink.store(index, rounded.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255)))
            }
        }
        }
        }
        return transform
    }

    /// One bilinear neighbour: clamped to the image with a replicated border, zero outside it otherwise.
    @inline(__always)
    private static func neighbour(_ reader: PixelReader, _ x: Int, _ y: Int, _ width: Int, _ height: Int, _ replicate: Bool) -> SIMD3<Int32> {
        if replicate {
            return SIMD3<Int32>(truncatingIfNeeded: reader.rgb(min(max(x, 0), width - 1), min(max(y, 0), height - 1)))
        }
        guard x >= 0, x < width, y >= 0, y < height else { return .zero }
        return SIMD3<Int32>(truncatingIfNeeded: reader.rgb(x, y))
    }

    /// OpenCV's bilinear weight table for 8-bit remap (`initInterTab2D` with INTER_LINEAR): per 1/32-pixel
    /// fraction (ay, ax), the four weights of the (x0,y0), (x1,y0), (x0,y1), (x1,y1) neighbours in 15-bit fixed
    /// point, rounded and then corrected so that they add to exactly 1 << 15.
    private static let weights: [SIMD4<Int32>] = {
        let size = 1 << interBits
        var table: [SIMD4<Int32>] = []
        for ay in 0..<size {
            let fy = Float(ay) / Float(size)
            for ax in 0..<size {
                let fx = Float(ax) / Float(size)
                let values: [Float] = [(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx]
                var fixed = values.map { Int32(($0 * Float(1 << coefficientBits)).rounded(.toNearestOrEven)) }
                let excess = fixed.reduce(0, +) - Int32(1 << coefficientBits)
                if excess != 0 {
                    // As OpenCV: a sum too large comes off the smallest weight, a sum too small goes to the largest.
                    var target = 0
                    if excess > 0 {
                        for k in 1..<4 where fixed[k] < fixed[target] { target = k }
                    } else {
                        for k in 1..<4 where fixed[k] > fixed[target] { target = k }
                    }
                    fixed[target] -= excess
                }
                table.append(SIMD4(fixed[0], fixed[1], fixed[2], fixed[3]))
            }
        }
        return table
    }()
}

/// Where sampled 8-bit RGB goes: a float tensor (scaled to its range) or a byte tensor. Pointers to disjoint
/// pixels of one output, so threads may store through copies of a sink at once.
protocol TensorSink: Sendable {
    func store(_ index: Int, _ rgb: SIMD3<Int32>)
}

struct FloatSink: TensorSink, @unchecked Sendable {
    let base: UnsafeMutablePointer<Float>
    let scale: Float
    let offset: Float

    @inline(__always) func store(_ index: Int, _ rgb: SIMD3<Int32>) {
        base[index] = Float(rgb.x) * scale + offset
        base[index + 1] = Float(rgb.y) * scale + offset
        base[index + 2] = Float(rgb.z) * scale + offset
    }
}

struct ByteSink: TensorSink, @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>

    @inline(__always) func store(_ index: Int, _ rgb: SIMD3<Int32>) {
        base[index] = UInt8(truncatingIfNeeded: rgb.x)
        base[index + 1] = UInt8(truncatingIfNeeded: rgb.y)
        base[index + 2] = UInt8(truncatingIfNeeded: rgb.z)
    }
}

/// Carries values into a `@Sendable` closure whose concurrent uses touch disjoint data.
struct SendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
