import Foundation
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// A segmentation model's output at the model's size (`height × width × channels`, channels last), made into masks at
/// the image's size as MediaPipe's TensorsToSegmentationCalculator does on CPU. Unlike the pose landmarker's mask
/// (``MaskProjection``, an inverse warp onto the image), the segmenter's masks are plain resizes of the model's
/// output to the output size, whatever part of the image or rotation the model saw:
/// - confidence masks: the activation per pixel at the model's size, then OpenCV's `resize` with `INTER_LINEAR`
///   (half-pixel centres, edges clamped) to the output size;
/// - the category mask: MediaPipe's own align-corners bilinear interpolation of the raw output at each output pixel,
///   then the sigmoid when the model's activation is one, then `> 0.5 ? 0 : 255` for a one-channel model (0 on the
///   foreground, 255 elsewhere: MediaPipe's single-class convention) or the first channel of the largest value.
struct SegmentationOutput: Sendable {
    let values: [Float]
    let width: Int
    let height: Int
    let channels: Int
    let activation: SegmenterActivation

    /// One float mask per channel, `outputWidth × outputHeight`. `planar` holds the activated planes at the model's
    /// size on the way (reused from frame to frame by the caller).
    /// `parts`: how many threads share the work (each pixel's and each output row's arithmetic is the same whatever
    /// the split).
    func confidenceMasks(outputWidth: Int, outputHeight: Int, planar: inout [Float], parts: Int = 1) -> [Mask] {
        let planes = activatedPlanes(&planar, parts: parts)
        let (width, height) = (width, height)
        return planes.map { plane in
            Mask(width: outputWidth, height: outputHeight) { (output: UnsafeMutableBufferPointer<Float>) in
                plane.withUnsafeBufferPointer { source in
                    let shared = SharedBuffers(source: source, output: output)
                    let parts = max(1, min(parts, outputHeight))
                    DispatchQueue.concurrentPerform(iterations: parts) { part in
                        OpenCVResize.linear(shared.source, width: width, height: height, into: shared.output, width: outputWidth,
                                            height: outputHeight, rows: (outputHeight * part / parts)..<(outputHeight * (part + 1) / parts))
                    }
                }
            }
        }
    }

    /// The activation of every pixel (TensorsToSegmentation's `ProcessForConfidenceMaskCpu`), one plane per channel.
    /// Slices of one array, not copies of them: each plane of the hair model's output is a megabyte.
    private func activatedPlanes(_ planar: inout [Float], parts: Int) -> [ArraySlice<Float>] {
        let count = width * height
        if channels == 1 && activation != .softmax {
            let plane = Array(values.prefix(count))
            return [(activation == .sigmoid ? plane.map(Self.sigmoid) : plane)[...]]
        }
        // Every value is written below (or, for a short output, stays 0 as in a fresh array).
        if planar.count != count * channels || values.count < count * channels {
            planar.removeAll(keepingCapacity: true)
            planar.append(contentsOf: repeatElement(0, count: count * channels))
        }
        // Pointers, and the activation chosen once: per pixel array slices and an enumerated softmax took 2 ms of the
        // hair model's 512 × 512 × 2 output beyond its exponentials. The softmax is StableSoftmax's, in its order, but
        // for the exponential: e^d (d ≤ 0, the value less the largest) is the engine's branch-free polynomial
        // (EngineSIMD's `exponentialOfNegative`, within 2 ulp of libm's `expf`, which MediaPipe calls) so that a loop of
        // it vectorizes — through `expf` the hair model's 262,144 calls took some 2 ms of a 32 ms frame at one
        // thread, its softmax as a whole 3.7 ms.
        let (channels, activation) = (channels, activation)
        values.withUnsafeBufferPointer { values in
            planar.withUnsafeMutableBufferPointer { planar in
                guard channels > 0, values.count >= count * channels else { return }
                let shared = SharedBuffers(source: values, output: planar)
                let parts = max(1, min(parts, count))
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let values = shared.source.baseAddress!, planar = shared.output.baseAddress!
                    let pixels = (count * part / parts)..<(count * (part + 1) / parts)
                    if activation == .softmax && channels == 2 {
                        // Two classes (the hair model, the interactive segmenter's): the largest value's exponential
                        // is e^0 = 1, the other's e^−|a − b|, and the denominator 1 + e in either order — one
                        // exponential a pixel, and a loop without branches (nor overflow checks: LLVM vectorizes
                        // none of it with them).
                        let second = planar + count
                        for i in pixels {
                            let a = values[i &* 2], b = values[i &* 2 &+ 1]
                            let e = exponentialOfNegative(abs(a - b))
                            let denominator = 1 + e
                            let larger = 1 / denominator, smaller = e / denominator
                            planar[i] = a >= b ? larger : smaller
                            second[i] = a >= b ? smaller : larger
                        }
                        return
                    }
                    let activated = UnsafeMutablePointer<Float>.allocate(capacity: channels)
                    defer { activated.deallocate() }
                    for i in pixels {
                        let pixel = values + i * channels
                        switch activation {
                        case .none:
                            for c in 0..<channels { planar[c * count + i] = pixel[c] }
                        case .sigmoid:
                            for c in 0..<channels { planar[c * count + i] = Self.sigmoid(pixel[c]) }
                        case .softmax:
                            var largest = pixel[0]
                            for c in 1..<max(channels, 1) where pixel[c] > largest { largest = pixel[c] }
                            var denominator: Float = 0
                            for c in 0..<channels {
                                let d = pixel[c] - largest
                                let e = exponentialOfNegative(-d)
                                denominator += e
                                activated[c] = e
                            }
                            for c in 0..<channels { planar[c * count + i] = activated[c] / denominator }
                        }
                    }
                }
            }
        }
        return (0..<channels).map { planar[($0 * count)..<(($0 + 1) * count)] }
    }

    /// `1. / (1 + std::exp(-value))`: the exponential in float, the division in double, stored as float.
    @inline(__always)
    static func sigmoid(_ value: Float) -> Float {
        Float(1.0 / Double(1 + expf(-value)))
    }

    /// The category mask, `outputWidth × outputHeight` (TensorsToSegmentation's `ProcessForCategoryMaskCpu`).
    func categoryMask(outputWidth: Int, outputHeight: Int) -> Mask {
        // MediaPipe divides by `output - 1`; a one-pixel output (a division by zero there) samples the first pixel.
        let widthScale: Float = outputWidth > 1 ? Float(width - 1) / Float(outputWidth - 1) : 0
        let heightScale: Float = outputHeight > 1 ? Float(height - 1) / Float(outputHeight - 1) : 0
        // Per output column, its two source columns and the weight between them (the same for every row).
        let lastColumn = Float(self.width) - 1
        let columns = (0..<outputWidth).map { x -> (Int, Int, Float) in
            let fx = Float(x) * widthScale
            let x0 = Int(max(fx.rounded(.down), 0)), x1 = Int(min(fx.rounded(.up), lastColumn))
            return (x0, x1, max(min(fx - Float(x0), 1), 0))
        }
        let (width, height, channels, activation) = (width, height, channels, activation)
        return Mask(width: outputWidth, height: outputHeight) { (output: UnsafeMutableBufferPointer<UInt8>) in
            values.withUnsafeBufferPointer { values in columns.withUnsafeBufferPointer { columns in
                var scores = [Float](repeating: 0, count: channels)
                for y in 0..<outputHeight {
                    let fy = Float(y) * heightScale
                    let y0 = Int(max(fy.rounded(.down), 0)), y1 = Int(min(fy.rounded(.up), Float(height) - 1))
                    let t0 = max(min(fy - Float(y0), 1), 0)
                    let row0 = y0 * width, row1 = y1 * width
                    for x in 0..<outputWidth {
                        let (x0, x1, t1) = columns[x]
                        for c in 0..<channels {
                            let v00 = values[(row0 + x0) * channels + c], v10 = values[(row1 + x0) * channels + c]
                            let v01 = values[(row0 + x1) * channels + c], v11 = values[(row1 + x1) * channels + c]
                            // LinearInterpolate(LinearInterpolate(v00, v10, t0), LinearInterpolate(v01, v11, t0), t1).
                            let left = v00 + (v10 - v00) * t0, right = v01 + (v11 - v01) * t0
                            scores[c] = left + (right - left) * t1
                        }
                        // The sigmoid before the argmax too: it saturates, and equal scores take the first category.
                        if activation == .sigmoid {
                            for c in 0..<channels { scores[c] = Self.sigmoid(scores[c]) }
                        }
                        let category: UInt8
                        if channels == 1 {
                            category = scores[0] > 0.5 ? 0 : 255
                        } else {
                            var best = 0
                            for c in 1..<channels where scores[c] > scores[best] { best = c }
                            category = UInt8(truncatingIfNeeded: best)
                        }
                        output[y * outputWidth + x] = category
                    }
                }
            } }
        }
    }
}

/// OpenCV's `cv::resize` as MediaPipe's CPU calculators call it, where our results must match its arithmetic.
enum OpenCVResize {
    /// One axis of `INTER_LINEAR`: per output position, the first source index and its weight (`1 − f`, `f`); an
    /// index past the last source position (or a one-pixel source) reads that last position alone.
    struct LinearAxis {
        let index: [Int]
        let weight: [Float]

        init(source: Int, destination: Int, clampsFraction: Bool) {
            // OpenCV: inv_scale = dsize / ssize (double), scale = 1 / inv_scale, fx = (float)((dx + 0.5)·scale − 0.5).
            let scale = 1.0 / (Double(destination) / Double(source))
            var index = [Int](repeating: 0, count: destination), weight = [Float](repeating: 0, count: destination)
            for d in 0..<destination {
                let position = Float((Double(d) + 0.5) * scale - 0.5)
                var s = Int(position.rounded(.down))
                var f = position - Float(s)
                // Horizontally OpenCV clamps the fraction with the index; vertically only the rows are clamped.
                if clampsFraction {
                    if s < 0 { s = 0; f = 0 }
                    if s >= source - 1 { s = source - 1; f = 0 }
                }
                index[d] = s
                weight[d] = f
            }
            self.index = index
            self.weight = weight
        }
    }

    /// `cv::resize(src, dst, size, 0, 0, INTER_LINEAR)` of one float channel, in OpenCV's order: each of the two
    /// source rows resized horizontally, then the two rows blended. An exact halving is OpenCV's `INTER_AREA`.
    /// `rows`: the output rows to write (all by default), so that threads can share one output.
    static func linear(_ source: UnsafeBufferPointer<Float>, width: Int, height: Int,
                       into output: UnsafeMutableBufferPointer<Float>, width outputWidth: Int, height outputHeight: Int,
                       rows outputRows: Range<Int>? = nil) {
        guard width > 0, height > 0, outputWidth > 0, outputHeight > 0 else { return }
        let outputRows = (outputRows ?? 0..<outputHeight).clamped(to: 0..<outputHeight)
        if outputWidth == width && outputHeight == height {
            let span = (outputRows.lowerBound * width)..<(outputRows.upperBound * width)
            _ = UnsafeMutableBufferPointer(rebasing: output[span]).update(fromContentsOf: UnsafeBufferPointer(rebasing: source[span]))
            return
        }
        if width == 2 * outputWidth && height == 2 * outputHeight {
            for y in outputRows {
                for x in 0..<outputWidth {
                    let i = 2 * y * width + 2 * x
                    output[y * outputWidth + x] = (source[i] + source[i + 1] + source[i + width] + source[i + width + 1]) * 0.25
                }
            }
            return
        }
        let columns = LinearAxis(source: width, destination: outputWidth, clampsFraction: true)
        let rows = LinearAxis(source: height, destination: outputHeight, clampsFraction: false)
        var row0 = [Float](repeating: 0, count: outputWidth), row1 = row0
        var rows01 = (-1, -1)
        // Raw pointers and wrapping index arithmetic in the loops (each index is within its row by construction): with
        // overflow checks neither pass vectorized.
        func horizontal(_ y: Int, into row: inout [Float]) {
            let line = source.baseAddress! + y * width
            columns.index.withUnsafeBufferPointer { index in
                columns.weight.withUnsafeBufferPointer { weight in
                    row.withUnsafeMutableBufferPointer { row in
                        let index = index.baseAddress!, weight = weight.baseAddress!, row = row.baseAddress!
                        for x in 0..<outputWidth {
                            let s = index[x], f = weight[x]
                            row[x] = s &+ 1 < width ? line[s] * (1 - f) + line[s &+ 1] * f : line[s]
                        }
                    }
                }
            }
        }
        for y in outputRows {
            let s = rows.index[y], f = rows.weight[y]
            // Upscaling reads each source row for many output rows: each is resized horizontally once.
            let wanted = (min(max(s, 0), height - 1), min(max(s + 1, 0), height - 1))
            if wanted != rows01 {
                if wanted.0 == rows01.1 {
                    swap(&row0, &row1)
                } else {
                    horizontal(wanted.0, into: &row0)
                }
                if wanted.1 == wanted.0 { row1 = row0 } else { horizontal(wanted.1, into: &row1) }
                rows01 = wanted
            }
            let b0 = 1 - f, line = output.baseAddress! + y * outputWidth
            row0.withUnsafeBufferPointer { row0 in
                row1.withUnsafeBufferPointer { row1 in
                    let row0 = row0.baseAddress!, row1 = row1.baseAddress!
                    for x in 0..<outputWidth { line[x] = row0[x] * b0 + row1[x] * f }
                }
            }
        }
    }
}

/// A source and an output that several threads use at once, each writing only its own part of the output.
private struct SharedBuffers: @unchecked Sendable {
    let source: UnsafeBufferPointer<Float>
    let output: UnsafeMutableBufferPointer<Float>
}
