import Foundation

/// MediaPipe's legacy preprocessing for segmentation models that take four channels (the hair model, the interactive
/// segmenter): `image_segmenter_graph.cc` sends them through ImageTransformationCalculator and
/// TensorConverterCalculator instead of ImageToTensorCalculator, so that the whole RGBA buffer is stretched to the
/// model's size with OpenCV's `resize` — `INTER_AREA` when both sides shrink, `INTER_LINEAR` otherwise — and each byte
/// is mapped linearly to the model's range. No region and no rotation reaches this path (its NORM_RECT is unused):
/// the buffer is taken as stored, whatever the image's orientation. Our own code because the bytes must be OpenCV's
/// (its fixed-point bilinear arithmetic and its area weights); Debian's OpenCV is not a dependency of the library.
enum FourChannelInput {
    /// Stretches `rgba` (`width × height`, four bytes a pixel) to the tensor's size and writes it as floats:
    /// `byte × (range.upper − range.lower) / 255 + range.lower` (TensorConverterCalculator's `NormalizeUInt8Image`).
    /// `resized` holds the stretched bytes (reused from frame to frame).
    static func write(rgba: [UInt8], width: Int, height: Int, into tensor: UnsafeMutableBufferPointer<Float>,
                      tensorWidth: Int, tensorHeight: Int, range: (lower: Float, upper: Float), resized: inout [UInt8]) {
        let source: [UInt8]
        if width == tensorWidth && height == tensorHeight {
            source = rgba
        } else {
            OpenCVResize.rgba(rgba, width: width, height: height, toWidth: tensorWidth, toHeight: tensorHeight, into: &resized)
            source = resized
        }
        let scale = (range.upper - range.lower) / 255, bias = range.lower
        source.withUnsafeBufferPointer { source in
            for i in 0..<min(source.count, tensor.count) { tensor[i] = Float(source[i]) * scale + bias }
        }
    }
}

extension OpenCVResize {
    /// OpenCV's fixed-point bilinear coefficients: `INTER_RESIZE_COEF_BITS` = 11.
    static let coefficientScale: Float = 2048

    /// ImageTransformationCalculator's CPU resize of four-channel bytes (STRETCH, LINEAR mode): `INTER_AREA` when the
    /// output is smaller on both sides, else `INTER_LINEAR` (which OpenCV itself turns into `INTER_AREA` for an exact
    /// halving). The stretched bytes go into `output`, whose memory is reused when it is large enough.
    static func rgba(_ source: [UInt8], width: Int, height: Int, toWidth: Int, toHeight: Int, into output: inout [UInt8]) {
        if width == toWidth && height == toHeight {
            output = source
            return
        }
        // Zeros where a degenerate size leaves bytes unwritten, as a fresh array had them.
        let count = toWidth * toHeight * 4
        if output.count != count {
            output.removeAll(keepingCapacity: true)
            output.append(contentsOf: repeatElement(0, count: count))
        }
        if (width > toWidth && height > toHeight) || (width == 2 * toWidth && height == 2 * toHeight) {
            area(source, width: width, height: height, toWidth: toWidth, toHeight: toHeight, into: &output)
        } else {
            linear(source, width: width, height: height, toWidth: toWidth, toHeight: toHeight, into: &output)
        }
    }

    /// `INTER_LINEAR` on 8-bit pixels: 11-bit weights, each source row resized horizontally into integers, then the
    /// two rows blended as OpenCV's SIMD loop does (`VResizeLinearVec_32s8u`: `((S0 >> 4) · b0 >> 16) + ((S1 >> 4) · b1
    /// >> 16)`, rounded by two bits), which every output of a row whose width is a multiple of the vector takes.
    static func linear(_ source: [UInt8], width: Int, height: Int, toWidth: Int, toHeight: Int, into output: inout [UInt8]) {
        let cn = 4
        let columns = LinearAxis(source: width, destination: toWidth, clampsFraction: true)
        let rows = LinearAxis(source: height, destination: toHeight, clampsFraction: false)
        func fixed(_ value: Float) -> Int32 { Int32((value * coefficientScale).rounded(.toNearestOrEven)) }
        // Per output column: the first source byte's offset and the two weights (the second 0 past the last column,
        // where OpenCV reads the last column alone, times 2048).
        var offsets = [Int](repeating: 0, count: toWidth)
        var alpha0 = [Int32](repeating: 0, count: toWidth), alpha1 = alpha0
        for x in 0..<toWidth {
            let s = columns.index[x]
            offsets[x] = s * cn
            if s + 1 < width {
                alpha0[x] = fixed(1 - columns.weight[x])
                alpha1[x] = fixed(columns.weight[x])
            } else {
                alpha0[x] = Int32(coefficientScale)
            }
        }
        guard width > 0, height > 0, toWidth > 0, toHeight > 0, source.count >= width * height * cn,
              output.count == toWidth * toHeight * cn else { return }
        var row0 = [Int32](repeating: 0, count: toWidth * cn), row1 = row0
        var rows01 = (-1, -1)
        // Unchecked pointers and wrapping integer arithmetic (no product here leaves Int32: bytes × 2048, Int16 × 2048)
        // so that both passes vectorize: with checked arithmetic and array indexing they took 6 ms of a 640 × 480 →
        // 512 × 512 stretch. The arithmetic is unchanged, so are the bytes.
        source.withUnsafeBufferPointer { source in offsets.withUnsafeBufferPointer { offsets in
        alpha0.withUnsafeBufferPointer { alpha0 in alpha1.withUnsafeBufferPointer { alpha1 in
            let source = source.baseAddress!, offsets = offsets.baseAddress!, alpha0 = alpha0.baseAddress!, alpha1 = alpha1.baseAddress!
            func horizontal(_ y: Int, into row: inout [Int32]) {
                let line = source + y &* width &* cn
                row.withUnsafeMutableBufferPointer { row in
                    let row = row.baseAddress!
                    for x in 0..<toWidth {
                        let at = line + offsets[x], a0 = alpha0[x], a1 = alpha1[x]
                        // The second column is read only where it exists (its weight is 0 elsewhere).
                        let next = a1 != 0 ? at + cn : at
                        let out = row + x &* cn
                        out[0] = Int32(at[0]) &* a0 &+ Int32(next[0]) &* a1
                        out[1] = Int32(at[1]) &* a0 &+ Int32(next[1]) &* a1
                        out[2] = Int32(at[2]) &* a0 &+ Int32(next[2]) &* a1
                        out[3] = Int32(at[3]) &* a0 &+ Int32(next[3]) &* a1
                    }
                }
            }
            output.withUnsafeMutableBufferPointer { output in
                let output = output.baseAddress!
                for y in 0..<toHeight {
                    let s = rows.index[y], f = rows.weight[y]
                    // Each source row is resized horizontally once, however many output rows read it.
                    let wanted = (min(max(s, 0), height - 1), min(max(s + 1, 0), height - 1))
                    if wanted != rows01 {
                        if wanted.0 == rows01.1 { swap(&row0, &row1) } else { horizontal(wanted.0, into: &row0) }
                        if wanted.1 == wanted.0 { row1 = row0 } else { horizontal(wanted.1, into: &row1) }
                        rows01 = wanted
                    }
                    let b0 = fixed(1 - f), b1 = fixed(f)
                    let line = output + y &* toWidth &* cn
                    row0.withUnsafeBufferPointer { row0 in
                        row1.withUnsafeBufferPointer { row1 in
                            let row0 = row0.baseAddress!, row1 = row1.baseAddress!
                            for i in 0..<(toWidth &* cn) {
                                let top = (Int32(Int16(clamping: row0[i] &>> 4)) &* b0) &>> 16
                                let bottom = (Int32(Int16(clamping: row1[i] &>> 4)) &* b1) &>> 16
                                line[i] = UInt8(clamping: (top &+ bottom &+ 2) &>> 2)
                            }
                        }
                    }
                }
            }
        } } } }
    }

    /// One output position's share of the source positions along one axis (OpenCV's `computeResizeAreaTab`).
    struct AreaWeight {
        let destination: Int
        let source: Int
        let weight: Float
    }

    static func areaTable(source: Int, destination: Int, scale: Double) -> [AreaWeight] {
        var table: [AreaWeight] = []
        for d in 0..<destination {
            let fs1 = Double(d) * scale, fs2 = fs1 + scale
            let cellWidth = min(scale, Double(source) - fs1)
            var s1 = Int(fs1.rounded(.up)), s2 = Int(fs2.rounded(.down))
            s2 = min(s2, source - 1)
            s1 = min(s1, s2)
            if Double(s1) - fs1 > 1e-3 {
                table.append(AreaWeight(destination: d, source: s1 - 1, weight: Float((Double(s1) - fs1) / cellWidth)))
            }
            for s in s1..<max(s1, s2) {
                table.append(AreaWeight(destination: d, source: s, weight: Float(1.0 / cellWidth)))
            }
            if fs2 - Double(s2) > 1e-3 {
                table.append(AreaWeight(destination: d, source: s2, weight: Float(min(min(fs2 - Double(s2), 1), cellWidth) / cellWidth)))
            }
        }
        return table
    }

    /// `INTER_AREA` on 8-bit pixels: the integer-ratio shortcut (`resizeAreaFast`) or the general float-weighted
    /// average (`resizeArea_<uchar, float>`), rounded to nearest, ties to even.
    static func area(_ source: [UInt8], width: Int, height: Int, toWidth: Int, toHeight: Int, into output: inout [UInt8]) {
        let cn = 4
        let scaleX = 1.0 / (Double(toWidth) / Double(width)), scaleY = 1.0 / (Double(toHeight) / Double(height))
        let integerX = Int(scaleX.rounded()), integerY = Int(scaleY.rounded())
        if abs(scaleX - Double(integerX)) < .ulpOfOne && abs(scaleY - Double(integerY)) < .ulpOfOne {
            let area = integerX * integerY
            let inverse = 1 / Float(area)
            for y in 0..<toHeight {
                for x in 0..<toWidth {
                    for c in 0..<cn {
                        var sum = 0
                        for dy in 0..<integerY {
                            for dx in 0..<integerX { sum += Int(source[((y * integerY + dy) * width + x * integerX + dx) * cn + c]) }
                        }
                        // The SIMD halving rounds up at .5; the general loop multiplies by 1/area and rounds to even.
                        output[(y * toWidth + x) * cn + c] = area == 4
                            ? UInt8((sum + 2) >> 2) : UInt8(clamping: Int((Float(sum) * inverse).rounded(.toNearestOrEven)))
                    }
                }
            }
            return
        }
        let columns = areaTable(source: width, destination: toWidth, scale: scaleX)
        let rows = areaTable(source: height, destination: toHeight, scale: scaleY)
        var buffer = [Float](repeating: 0, count: toWidth * cn), sum = buffer
        var current = rows.first?.destination ?? 0
        func flush(_ y: Int) {
            for i in 0..<(toWidth * cn) {
                output[y * toWidth * cn + i] = UInt8(clamping: Int(sum[i].rounded(.toNearestOrEven)))
                sum[i] = 0
            }
        }
        for row in rows {
            for i in buffer.indices { buffer[i] = 0 }
            let line = row.source * width * cn
            for column in columns {
                for c in 0..<cn {
                    buffer[column.destination * cn + c] += Float(source[line + column.source * cn + c]) * column.weight
                }
            }
            if row.destination != current {
                flush(current)
                current = row.destination
            }
            for i in buffer.indices { sum[i] += row.weight * buffer[i] }
        }
        flush(current)
    }
}
