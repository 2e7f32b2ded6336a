import CVisionTasksOnoneKernels
import CVisionTasksPrefetch
import Dispatch
import Foundation

/// Options for cutting a model input out of an image.
package struct ImageToTensorOptions: Sendable, Equatable {
    package enum Border: Sendable, Equatable { case zero, replicate }

    package var width: Int
    package var height: Int
    /// Grow the region to the tensor's aspect ratio (padding with the border) instead of stretching it.
    package var keepAspectRatio: Bool
    package var border: Border
    /// The values 0 and 255 map to, linearly: [0, 1], [-1, 1], or from metadata mean/std.
    package var range: ClosedRange<Float>
    /// The most threads sampling may use (it uses at most two, and one for small tensors); nil for no limit of the
    /// caller's. Every output value is computed the same way whatever the split, so results do not depend on it.
    package var maximumThreads: Int?
    /// Whether packed RGB, RGBA and BGRA pixels are sampled by the C loop (CVisionTasksOnoneKernels), which gives the
    /// same bytes: chosen where this module was compiled without optimization (a dependent's debug build), where the
    /// Swift loop's generic SIMD runs through the runtime for every lane (a 256 × 256 crop: 100 ms). Tests set it
    /// to compare the two.
    package var usesOnoneLoop = ImageToTensor.compiledWithoutOptimization

    package init(width: Int, height: Int, keepAspectRatio: Bool = false, border: Border = .zero, range: ClosedRange<Float> = 0...1,
                maximumThreads: Int? = nil) {
        self.width = width
        self.height = height
        self.keepAspectRatio = keepAspectRatio
        self.border = border
        self.range = range
        self.maximumThreads = maximumThreads
    }

    /// The range TFLite metadata's `(x − mean) / std` normalization gives for 8-bit pixels.
    package static func range(mean: Float, std: Float) -> ClosedRange<Float> {
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
package enum ImageToTensor {
    /// The region that will be sampled for `options`: `region` grown to the tensor's aspect ratio when letterboxing
    /// (MediaPipe's `PadRoi`), with the padding that adds.
    package static func transform(for region: RegionOfInterest, options: ImageToTensorOptions) -> TensorToImageTransform {
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
    package static func floats(from image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions) throws(ImageError) -> (values: [Float], transform: TensorToImageTransform) {
        var values = [Float](repeating: 0, count: max(options.width * options.height * 3, 0))
        // Through a Result: Swift 6.0's withUnsafeMutableBufferPointer rethrows `any Error`, not the body's type.
        let transform = try values.withUnsafeMutableBufferPointer { (buffer) in
            Result { () throws(ImageError) in try write(image, region: region, options: options, into: buffer) }
        }.get()
        return (values, transform)
    }

    /// Samples into `output` (at least height × width × 3 floats) without allocating: the path tasks use to fill
    /// an interpreter's input in place.
    package static func write(_ image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions,
                             into output: UnsafeMutableBufferPointer<Float>) throws(ImageError) -> TensorToImageTransform {
        let sink = FloatSink(base: output.baseAddress!, scale: (options.range.upperBound - options.range.lowerBound) / 255,
                             offset: options.range.lowerBound)
        return try sample(image, region: region, options: options, outputCount: output.count, sink: sink)
    }

    /// Samples into 8-bit RGB in place (at least height × width × 3 bytes), as uint8 models take it: no range mapping,
    /// no allocation.
    package static func write(_ image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions,
                             into output: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> TensorToImageTransform {
        try sample(image, region: region, options: options, outputCount: output.count, sink: ByteSink(base: output.baseAddress!))
    }

    /// Samples into 8-bit RGB, as uint8 models take it (no range mapping).
    package static func bytes(from image: MPImage, region: RegionOfInterest, options: ImageToTensorOptions) throws(ImageError) -> (values: [UInt8], transform: TensorToImageTransform) {
        var values = [UInt8](repeating: 0, count: max(options.width * options.height * 3, 0))
        let count = values.count
        let transform = try values.withUnsafeMutableBufferPointer { (out) in
            Result { () throws(ImageError) in
                try sample(image, region: region, options: options, outputCount: count, sink: ByteSink(base: out.baseAddress!))
            }
        }.get()
        return (values, transform)
    }

    /// Whether this module was compiled without optimization (decided by the caller's optimization level: this
    /// module's).
    static let compiledWithoutOptimization = _isDebugAssertConfiguration()

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
        let replicate = options.border == .replicate, ononeLoop = options.usesOnoneLoop
        let width = options.width, height = options.height
        image.withPixelReader { reader in
            // Rows are independent and each writes its own outputs: two threads take half the rows each (the tasks'
            // per-frame pre-processing is otherwise the longest single-threaded stretch).
            let threads = width * height >= 1 << 14
                ? max(1, min(2, ProcessInfo.processInfo.activeProcessorCount, options.maximumThreads ?? .max)) : 1
            let shared = SendableBox((reader, map, image.width, image.height))
            DispatchQueue.concurrentPerform(iterations: threads) { part in
                let (reader, map, iw, ih) = shared.value
                let rows = (height * part / threads)..<(height * (part + 1) / threads)
                // One specialized loop per pixel layout: the format is decided here, not per neighbour.
                switch reader.format {
                case .rgb8 where ononeLoop, .rgba8 where ononeLoop, .bgra8 where ononeLoop:
                    let source = PackedSource(reader, bytesPerPixel: reader.format == .rgb8 ? 3 : 4,
                                              swapsRedAndBlue: reader.format == .bgra8, width: iw)
                    ononeSampleRows(source, map, rows, width, iw, ih, replicate, sink)
                case .rgb8: sampleRows(PackedSource(reader, bytesPerPixel: 3, swapsRedAndBlue: false, width: iw), map, rows, width, iw, ih, replicate, sink)
                case .rgba8: sampleRows(PackedSource(reader, bytesPerPixel: 4, swapsRedAndBlue: false, width: iw), map, rows, width, iw, ih, replicate, sink)
                case .bgra8: sampleRows(PackedSource(reader, bytesPerPixel: 4, swapsRedAndBlue: true, width: iw), map, rows, width, iw, ih, replicate, sink)
                case .gray8, .nv12, .i420: sampleRows(ConvertingSource(reader: reader), map, rows, width, iw, ih, replicate, sink)
                }
            }
        }
        return transform
    }

    /// Output rows `rows` of the warp. Per row the source coordinates come first, for the whole row at once
    /// (``PerspectiveMap/fixedPointRow(_:x:y:)``, vectorized); then per pixel, one whose four neighbours lie inside
    /// the image reads them without checks, a border pixel goes through ``borderPixel``.
    @inline(__always)
    private static func sampleRows<Source: RGBSource, Sink: TensorSink>(
        _ source: Source, _ map: PerspectiveMap, _ rows: Range<Int>, _ width: Int, _ iw: Int, _ ih: Int,
        _ replicate: Bool, _ sink: Sink
    ) {
        let fractionMask = (1 << interBits) - 1
        // The row's x then y coordinates, on the stack where they fit (no allocation per frame).
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * width) { buffer in
            let coordinates = buffer.baseAddress!
            weights.withUnsafeBufferPointer { weights in
                let table = weights.baseAddress!
                for v in rows {
                    map.fixedPointRow(v, x: coordinates, y: coordinates + width)
                    // The row's source lines asked for all at once before any is read: the crop stalls on each line's
                    // first touch (the models between two crops push the picture out of the caches; a rotated row
                    // crosses lines no hardware prefetcher follows), and these hints overlap those misses instead of
                    // taking them one pixel at a time. Hints change no value.
                    var line = -1
                    for u in 0..<width {
                        source.prefetch(Int(coordinates[u]) >> interBits, Int(coordinates[width &+ u]) >> interBits, iw, ih, previous: &line)
                    }
                    // (Wrapping arithmetic below: the sizes were checked against MPImage's limits, so no index
                    // overflows, and the checks would keep LLVM from scheduling the loop.)
                    let rowStart = v &* width
                    for u in 0..<width {
                        let X = Int(coordinates[u]), Y = Int(coordinates[width &+ u])
                        // Integer pixel, saturated to 16 bits as OpenCV stores it, and the 1/32 fraction.
                        let x0 = min(max(X >> interBits, -32768), 32767), y0 = min(max(Y >> interBits, -32768), 32767)
                        let w = table[((Y & fractionMask) &<< interBits) | (X & fractionMask)]
                        let index = (rowStart &+ u) &* 3
                        if x0 >= 0, x0 < iw &- 1, y0 >= 0, y0 < ih &- 1, source.canReadWide(x0 &+ 1, y0 &+ 1, iw, ih) {
                            let sum = source.wide(x0, y0) &* w.x &+ source.wide(x0 &+ 1, y0) &* w.y
                                &+ source.wide(x0, y0 &+ 1) &* w.z &+ source.wide(x0 &+ 1, y0 &+ 1) &* w.w
                            // Four 8-bit values under weights of 0 or more adding to 1 << 15 (the table's property,
                            // tested): the rounded sum is within 0…255 already, so FixedPtCast's saturation is skipped.
                            let value = source.ordered((sum &+ SIMD4(repeating: Int32(1 << (coefficientBits - 1)))) &>> Int32(coefficientBits))
                            // All four lanes stored but at a row's last pixel: the fourth lands on the next pixel's
                            // first value, written after it (and a row's end is where another thread's rows begin).
                            if u &+ 1 < width { sink.storeWide(index, value) } else { sink.store(index, value) }
                        } else {
                            borderPixel(source, x0, y0, w, iw, ih, replicate, sink, index)
                        }
                    }
                }
            }
        }
    }

    /// ``sampleRows(_:_:_:_:_:_:_:_:)`` for packed pixels through the C loop of an unoptimized build
    /// (``ImageToTensorOptions/usesOnoneLoop``): the same coordinates, weights, rounding and border rule, so the same
    /// values.
    private static func ononeSampleRows<Sink: TensorSink>(
        _ source: PackedSource, _ map: PerspectiveMap, _ rows: Range<Int>, _ width: Int, _ iw: Int, _ ih: Int,
        _ replicate: Bool, _ sink: Sink
    ) {
        let target = sink.destination
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * width) { buffer in
            let coordinates = buffer.baseAddress!
            weights.withUnsafeBufferPointer { vectors in vectors.withMemoryRebound(to: Int32.self) { table in
                for v in rows {
                    map.fixedPointRow(v, x: coordinates, y: coordinates + width)
                    let first = v * width * 3
                    vt_onone_crop_row(coordinates, coordinates + width, Int32(width), source.base, source.stride,
                                      Int32(source.bytesPerPixel), source.swapsRedAndBlue ? 1 : 0, Int32(iw), Int32(ih),
                                      replicate ? 1 : 0, table.baseAddress, target.floats.map { $0 + first }, target.scale,
                                      target.offset, target.bytes.map { $0 + first })
                }
            } }
        }
    }

    /// The 15-bit fixed-point sum rounded to 8 bits, as OpenCV's FixedPtCast, and saturated.
    @inline(__always)
    private static func rounded(_ sum: SIMD4<Int32>) -> SIMD4<Int32> {
        ((sum &+ SIMD4(repeating: Int32(1 << (coefficientBits - 1)))) &>> Int32(coefficientBits))
            .clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
    }

    /// A pixel with a neighbour outside the image (or the one whose wide read would pass the buffer's end).
    @inline(never)
    private static func borderPixel<Source: RGBSource, Sink: TensorSink>(
        _ source: Source, _ x0: Int, _ y0: Int, _ w: SIMD4<Int32>, _ iw: Int, _ ih: Int, _ replicate: Bool,
        _ sink: Sink, _ index: Int
    ) {
        if !replicate, x0 >= iw || x0 + 1 < 0 || y0 >= ih || y0 + 1 < 0 {
            sink.store(index, .zero)
            return
        }
        let sum = neighbour(source, x0, y0, iw, ih, replicate) &* w.x
            &+ neighbour(source, x0 + 1, y0, iw, ih, replicate) &* w.y
            &+ neighbour(source, x0, y0 + 1, iw, ih, replicate) &* w.z
            &+ neighbour(source, x0 + 1, y0 + 1, iw, ih, replicate) &* w.w
        sink.store(index, rounded(sum))
    }

    /// One bilinear neighbour: clamped to the image with a replicated border, zero outside it otherwise.
    @inline(__always)
    private static func neighbour<Source: RGBSource>(_ source: Source, _ x: Int, _ y: Int, _ width: Int, _ height: Int,
                                                     _ replicate: Bool) -> SIMD4<Int32> {
        if replicate {
            return source.rgb(min(max(x, 0), width - 1), min(max(y, 0), height - 1))
        }
        guard x >= 0, x < width, y >= 0, y < height else { return .zero }
        return source.rgb(x, y)
    }

    /// OpenCV's bilinear weight table for 8-bit remap (`initInterTab2D` with INTER_LINEAR): per 1/32-pixel
    /// fraction (ay, ax), the four weights of the (x0,y0), (x1,y0), (x0,y1), (x1,y1) neighbours in 15-bit fixed
    /// point, rounded and then corrected so that they add to exactly 1 << 15.
    static let weights: [SIMD4<Int32>] = {
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

/// A pixel layout's RGB, read in place.
protocol RGBSource {
    /// Red, green, blue and 0.
    func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32>
    /// The pixel's values as ``wide(_:_:)`` gives them may be read at (x, y) of a `width` × `height` image.
    func canReadWide(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> Bool
    /// The pixel in storage order, lane 3 whatever follows (one 4-byte load where the layout allows); the weighted
    /// sum of such reads goes through ``ordered(_:)``, which puts red, green and blue in lanes 0–2.
    func wide(_ x: Int, _ y: Int) -> SIMD4<Int32>
    func ordered(_ pixel: SIMD4<Int32>) -> SIMD4<Int32>
    /// Hints the cache lines of the pixel at (x, y) and the one below it, when inside the image and not on the line
    /// hinted last (`previous`, which it updates): a downscaled row reads several pixels a line, and each hint is a
    /// call (the C helper is not inlined into the loop: `perf` shows it as a function of its own, a tenth of a
    /// 256² crop's time when it was called twice a pixel).
    func prefetch(_ x: Int, _ y: Int, _ width: Int, _ height: Int, previous: inout Int)
}

/// RGB, RGBA or BGRA bytes: one row stride, the channels at fixed offsets.
struct PackedSource: RGBSource {
    let base: UnsafePointer<UInt8>
    let stride: Int
    let bytesPerPixel: Int
    let swapsRedAndBlue: Bool
    /// Bytes the planes hold after the start of the last row (a 4-byte read must end within them).
    let lastRowBytes: Int

    init(_ reader: PixelReader, bytesPerPixel: Int, swapsRedAndBlue: Bool, width: Int) {
        base = reader.planes.0
        stride = reader.strides.0
        self.bytesPerPixel = bytesPerPixel
        self.swapsRedAndBlue = swapsRedAndBlue
        lastRowBytes = width * bytesPerPixel
    }

    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        let p = base + y * stride + x * bytesPerPixel
        return SIMD4(Int32(p[swapsRedAndBlue ? 2 : 0]), Int32(p[1]), Int32(p[swapsRedAndBlue ? 0 : 2]), 0)
    }

    /// A 4-byte read of an RGB pixel takes one byte past it: the next pixel's, the next row's, or — for the very
    /// last pixel of the image alone — past the planes.
    @inline(__always) func canReadWide(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> Bool {
        bytesPerPixel == 4 || y < height - 1 || x * 3 + 4 <= lastRowBytes
    }

    @inline(__always) func wide(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(base + (y &* stride &+ x &* bytesPerPixel)).loadUnaligned(as: SIMD4<UInt8>.self))
    }

    @inline(__always) func ordered(_ pixel: SIMD4<Int32>) -> SIMD4<Int32> {
        swapsRedAndBlue ? SIMD4(pixel.z, pixel.y, pixel.x, 0) : pixel
    }

    @inline(__always) func prefetch(_ x: Int, _ y: Int, _ width: Int, _ height: Int, previous: inout Int) {
        guard x >= 0, x < width, y >= 0, y < height - 1 else { return }
        let offset = y &* stride &+ x &* bytesPerPixel
        // 64-byte lines (x86-64's, and most arm64 cores'; another size only makes some hints redundant or missing).
        guard offset &>> 6 != previous else { return }
        previous = offset &>> 6
        vision_tasks_prefetch(base + offset)
        vision_tasks_prefetch(base + offset + stride)
    }
}

/// Grey and YUV layouts, through the reader's conversion.
struct ConvertingSource: RGBSource {
    let reader: PixelReader

    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        let rgb = reader.rgb(x, y)
        return SIMD4(Int32(rgb.x), Int32(rgb.y), Int32(rgb.z), 0)
    }

    @inline(__always) func canReadWide(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> Bool { true }
    @inline(__always) func wide(_ x: Int, _ y: Int) -> SIMD4<Int32> { rgb(x, y) }
    @inline(__always) func ordered(_ pixel: SIMD4<Int32>) -> SIMD4<Int32> { pixel }
    @inline(__always) func prefetch(_ x: Int, _ y: Int, _ width: Int, _ height: Int, previous: inout Int) {}
}

/// Where sampled 8-bit RGB goes: a float tensor (scaled to its range) or a byte tensor. Pointers to disjoint
/// pixels of one output, so threads may store through copies of a sink at once.
protocol TensorSink: Sendable {
    func store(_ index: Int, _ rgb: SIMD4<Int32>)
    /// ``store(_:_:)`` and the fourth lane as the next value: one vector store (LLVM narrows a three-lane store of
    /// the sum into lane-by-lane arithmetic).
    func storeWide(_ index: Int, _ rgb: SIMD4<Int32>)
    /// Where the C loop of an unoptimized build writes (``ImageToTensor/ononeSampleRows``): floats as
    /// `value × scale + offset`, or bytes.
    var destination: (floats: UnsafeMutablePointer<Float>?, scale: Float, offset: Float, bytes: UnsafeMutablePointer<UInt8>?) { get }
}

struct FloatSink: TensorSink, @unchecked Sendable {
    let base: UnsafeMutablePointer<Float>
    let scale: Float
    let offset: Float

    @inline(__always) func store(_ index: Int, _ rgb: SIMD4<Int32>) {
        let values = SIMD4<Float>(rgb) * scale + offset
        base[index] = values.x
        base[index &+ 1] = values.y
        base[index &+ 2] = values.z
    }

    @inline(__always) func storeWide(_ index: Int, _ rgb: SIMD4<Int32>) {
        UnsafeMutableRawPointer(base + index).storeBytes(of: SIMD4<Float>(rgb) * scale + offset, as: SIMD4<Float>.self)
    }

    var destination: (floats: UnsafeMutablePointer<Float>?, scale: Float, offset: Float, bytes: UnsafeMutablePointer<UInt8>?) {
        (base, scale, offset, nil)
    }
}

struct ByteSink: TensorSink, @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>

    @inline(__always) func store(_ index: Int, _ rgb: SIMD4<Int32>) {
        base[index] = UInt8(truncatingIfNeeded: rgb.x)
        base[index &+ 1] = UInt8(truncatingIfNeeded: rgb.y)
        base[index &+ 2] = UInt8(truncatingIfNeeded: rgb.z)
    }

    @inline(__always) func storeWide(_ index: Int, _ rgb: SIMD4<Int32>) {
        UnsafeMutableRawPointer(base + index).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: rgb), as: SIMD4<UInt8>.self)
    }

    var destination: (floats: UnsafeMutablePointer<Float>?, scale: Float, offset: Float, bytes: UnsafeMutablePointer<UInt8>?) {
        (nil, 1, 0, base)
    }
}

/// Carries values into a `@Sendable` closure whose concurrent uses touch disjoint data.
struct SendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
