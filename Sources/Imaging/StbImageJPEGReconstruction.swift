/// The last half of stb_image 2.26's JPEG decoder (commit b42009b, the one MediaPipe 0.10.14 builds and its Python
/// `mp.Image.create_from_file` calls): inverse DCT, chroma upsampling and YCbCr → RGB, from the quantized
/// coefficients libjpeg-turbo's entropy decoder leaves.
///
/// Why not libjpeg-turbo's own pixels: its islow IDCT keeps 13 fractional bits where stb keeps 12, its "fancy"
/// upsampling alternates rounding biases of 8 and 7 where stb always adds 8, and its colour tables round differently.
/// Each is at most a level or two, but MediaPipe's reference results were computed on stb's pixels, and a level or
/// two moves a quantized detector's boxes by more than the reference tolerances (an SSD box at IoU 0.944 and scores
/// 3/256 apart on `obj_street_people.jpg`). Entropy decoding is lossless, so it stays with libjpeg-turbo (baseline,
/// progressive, arithmetic coding, its error handling); only the lossy arithmetic after it is stb's, bit for bit.
///
/// The code follows stb's order of operations and integer widths exactly (its SSE2 kernels are documented as
/// bit-identical to the scalar ones; step-3 output takes the scalar colour path), written afresh in Swift.
struct StbImageJPEGReconstruction {
    struct Component {
        /// Quantized coefficients: `heightInBlocks` rows of `widthInBlocks` blocks, 64 per block in natural order.
        let blockRows: [UnsafePointer<Int16>?]
        let quantization: [UInt16]
        let widthInBlocks: Int
        let heightInBlocks: Int
        let horizontalSampling: Int
        let verticalSampling: Int
        let id: Int
    }

    let width: Int
    let height: Int
    let components: [Component]
    let sawJFIF: Bool
    /// The APP14 Adobe colour transform, or -1 without that marker (stb's initial value).
    let adobeTransform: Int

    /// Whether stb would decode these components the way this type does: one, three or four components, sampling
    /// factors 1…4 that divide the largest ones (stb's resampler assumes integer expansion factors), and coefficient
    /// arrays that cover every component's samples.
    var isSupported: Bool {
        guard [1, 3, 4].contains(components.count), width > 0, height > 0 else { return false }
        let maxH = components.map(\.horizontalSampling).max()!, maxV = components.map(\.verticalSampling).max()!
        return components.allSatisfy { c in
            (1...4).contains(c.horizontalSampling) && (1...4).contains(c.verticalSampling)
                && maxH % c.horizontalSampling == 0 && maxV % c.verticalSampling == 0
                && c.quantization.count == 64
                && c.blockRows.count == c.heightInBlocks && c.blockRows.allSatisfy { $0 != nil }
                && c.widthInBlocks * 8 >= (width * c.horizontalSampling + maxH - 1) / maxH
                && c.heightInBlocks * 8 >= (height * c.verticalSampling + maxV - 1) / maxV
        }
    }

    /// RGB8 rows, tightly packed, as stb_image returns for `desired_channels` 0 (grey expanded to RGB here, as
    /// MediaPipe expands a GRAY8 image), placed upright by `exifOrientation` (1–8; nil or 1: as stored) as they are
    /// converted: no second full-size buffer. Call only when `isSupported`.
    func rgbPixels(exifOrientation: Int? = nil) -> [UInt8] {
        let layout = UprightLayout(tag: exifOrientation, width: width, height: height)
        let maxH = components.map(\.horizontalSampling).max()!, maxV = components.map(\.verticalSampling).max()!
        // All planes in one buffer, then one line buffer per component one sample wider than stb's (img_x + 3): the
        // 2× kernels write w_lores · 2 ≤ img_x + 1 samples.
        var planeOffsets: [Int] = [], total = 0
        for c in components {
            planeOffsets.append(total)
            total += c.widthInBlocks * 8 * c.heightInBlocks * 8
        }
        let lineLength = width + 4
        // Uninitialized: the inverse DCT writes every plane byte, the resamplers every line byte before it is read,
        // the conversion every output byte (zero-filling them first cost as much as a pass over the image).
        var samples = [UInt8](unsafeUninitializedCapacity: total + lineLength * components.count) { $1 = $0.count }
        var output = [UInt8](unsafeUninitializedCapacity: width * height * 3) { $1 = $0.count }
        // Rows that cannot be written straight into their upright place (every tag but 1 and 4) are converted into
        // this band of rows first, then placed a band at a time (UprightLayout.place).
        let direct = layout.keepsRowsContiguous, bandRows = UprightLayout.bandRows
        var band = [UInt8](unsafeUninitializedCapacity: direct ? 0 : bandRows * width * 3) { $1 = $0.count }
        // stb: three components are RGB when their ids spell R, G, B, or an Adobe marker says "no transform" and
        // there is no JFIF marker; otherwise YCbCr.
        let isRGB = components.count == 3
            && (zip(components, [82, 71, 66]).allSatisfy { $0.id == $1 } || (adobeTransform == 0 && !sawJFIF))
        samples.withUnsafeMutableBufferPointer { samples in
            for (k, c) in components.enumerated() {
                Self.inverseTransform(c, into: samples.baseAddress! + planeOffsets[k])
            }
            var resamplers = components.enumerated().map { k, c in
                Resampler(plane: UnsafePointer(samples.baseAddress! + planeOffsets[k]),
                          line: samples.baseAddress! + total + k * lineLength, stride: c.widthInBlocks * 8,
                          rows: (height * c.verticalSampling + maxV - 1) / maxV,
                          horizontalFactor: maxH / c.horizontalSampling, verticalFactor: maxV / c.verticalSampling,
                          width: width)
            }
            output.withUnsafeMutableBufferPointer { output in band.withUnsafeMutableBufferPointer { band in
                var rows = [UnsafePointer<UInt8>](repeating: UnsafePointer(samples.baseAddress!), count: components.count)
                for y in 0..<height {
                    for k in components.indices { rows[k] = resamplers[k].nextRow() }
                    let out = direct ? output.baseAddress! + layout.rowStart(y) * 3 : band.baseAddress! + (y % bandRows) * width * 3
                    switch components.count {
                    case 1:
                        for x in 0..<width { out[3 * x] = rows[0][x]; out[3 * x + 1] = rows[0][x]; out[3 * x + 2] = rows[0][x] }
                    case 3 where isRGB:
                        for x in 0..<width { out[3 * x] = rows[0][x]; out[3 * x + 1] = rows[1][x]; out[3 * x + 2] = rows[2][x] }
                    case 3:
                        Self.convertYCbCr(rows[0], rows[1], rows[2], into: out, count: width)
                    default:
                        if adobeTransform == 0 {  // CMYK, stored as stb reads it (not inverted)
                            for x in 0..<width {
                                for c in 0..<3 { out[3 * x + c] = Self.blinn(rows[c][x], rows[3][x]) }
                            }
                        } else {
                            Self.convertYCbCr(rows[0], rows[1], rows[2], into: out, count: width)
                            if adobeTransform == 2 {  // YCCK
                                for x in 0..<width {
                                    for c in 0..<3 { out[3 * x + c] = Self.blinn(255 - out[3 * x + c], rows[3][x]) }
                                }
                            }
                        }
                    }
                    if !direct, y % bandRows == bandRows - 1 || y == height - 1 {
                        let first = y - y % bandRows
                        layout.place(rows: UnsafePointer(band.baseAddress!), firstRow: first, count: y - first + 1,
                                     into: output.baseAddress!)
                    }
                }
            } }
        }
        return output
    }

    // MARK: Inverse DCT

    /// One component's samples: every block dequantized (to Int16, wrapping as stb's `(short)` casts do) and
    /// inverse-transformed into a plane `widthInBlocks · 8` wide.
    private static func inverseTransform(_ component: Component, into plane: UnsafeMutablePointer<UInt8>) {
        let stride = component.widthInBlocks * 8
        // The table as eight rows of Int16 lanes: a wrapping Int16 multiply is the product's low 16 bits, which
        // is what stb's `(short)(coefficient * dequant)` keeps (for 16-bit tables too).
        let table = (0..<8).map { row in
            SIMD8<Int16>((0..<8).map { Int16(truncatingIfNeeded: component.quantization[row * 8 + $0]) })
        }
        for by in 0..<component.heightInBlocks {
            let blocks = UnsafeRawPointer(component.blockRows[by]!)
            for bx in 0..<component.widthInBlocks {
                let block = blocks + bx * 128
                @inline(__always) func row(_ k: Int) -> Lanes {
                    Lanes(truncatingIfNeeded: block.loadUnaligned(fromByteOffset: k * 16, as: SIMD8<Int16>.self) &* table[k])
                }
                inverseDCT(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7),
                           into: plane + by * 8 * stride + bx * 8, stride: stride)
            }
        }
    }

    private typealias Lanes = SIMD8<Int32>

    /// stb's constants: 12 fractional bits, `(int)(x * 4096 + 0.5)` (truncating toward zero, so -1.847759065 → -7567).
    private enum Constant {
        static let c0_5411961: Int32 = 2217, cm1_847759065: Int32 = -7567, c0_765366865: Int32 = 3135
        static let c1_175875602: Int32 = 4816, c0_298631336: Int32 = 1223, c2_053119869: Int32 = 8410
        static let c3_072711026: Int32 = 12586, c1_501321110: Int32 = 6149, cm0_899976223: Int32 = -3685
        static let cm2_562915447: Int32 = -10497, cm1_961570560: Int32 = -8034, cm0_390180644: Int32 = -1597
    }

    /// stb's one-dimensional IDCT (derived from libjpeg's jidctint) on eight columns or rows at once: the even part's
    /// x0…x3 and the odd part's t0…t3, before the caller's rounding and shift. Wrapping arithmetic: C's int on
    /// hostile coefficients.
    @inline(__always)
    private static func transform1D(_ s0: Lanes, _ s1: Lanes, _ s2: Lanes, _ s3: Lanes, _ s4: Lanes, _ s5: Lanes,
                                    _ s6: Lanes, _ s7: Lanes) -> (x: (Lanes, Lanes, Lanes, Lanes), t: (Lanes, Lanes, Lanes, Lanes)) {
        let p1 = (s2 &+ s6) &* Constant.c0_5411961
        let t2e = p1 &+ s6 &* Constant.cm1_847759065
        let t3e = p1 &+ s2 &* Constant.c0_765366865
        let t0e = (s0 &+ s4) &<< 12
        let t1e = (s0 &- s4) &<< 12
        let x0 = t0e &+ t3e, x3 = t0e &- t3e, x1 = t1e &+ t2e, x2 = t1e &- t2e
        let p3 = s7 &+ s3, p4 = s5 &+ s1, q1 = s7 &+ s1, q2 = s5 &+ s3
        let p5 = (p3 &+ p4) &* Constant.c1_175875602
        let r1 = p5 &+ q1 &* Constant.cm0_899976223
        let r2 = p5 &+ q2 &* Constant.cm2_562915447
        let r3 = p3 &* Constant.cm1_961570560
        let r4 = p4 &* Constant.cm0_390180644
        let t3 = s1 &* Constant.c1_501321110 &+ r1 &+ r4
        let t2 = s3 &* Constant.c3_072711026 &+ r2 &+ r3
        let t1 = s5 &* Constant.c2_053119869 &+ r2 &+ r4
        let t0 = s7 &* Constant.c0_298631336 &+ r1 &+ r3
        return ((x0, x1, x2, x3), (t0, t1, t2, t3))
    }

    /// One step of an 8 × 8 transpose: the even and the odd lanes of `a` followed by `b`. Three rounds over the
    /// rows (pairs 0-1, 2-3, 4-5, 6-7 → evens to rows 0…3, odds to rows 4…7) move element (r, c) to (c, r).
    @inline(__always)
    private static func unzip(_ a: Lanes, _ b: Lanes) -> (Lanes, Lanes) {
        let joined = SIMD16(lowHalf: a, highHalf: b)
        return (joined.evenHalf, joined.oddHalf)
    }

    @inline(__always)
    private static func transpose(_ r: (Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes))
        -> (Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes, Lanes) {
        var r = r
        for _ in 0..<3 {
            let (e0, o0) = unzip(r.0, r.1), (e1, o1) = unzip(r.2, r.3)
            let (e2, o2) = unzip(r.4, r.5), (e3, o3) = unzip(r.6, r.7)
            r = (e0, e1, e2, e3, o0, o1, o2, o3)
        }
        return r
    }

    /// Columns first (two extra bits kept, rounding 512 >> 10), then rows (rounding 2¹⁶ and the +128 level shift,
    /// >> 17), as `stbi__idct_block`; each pass does all eight lines at once in `Lanes`. stb's all-zero-column
    /// shortcut gives the same numbers as the full transform, so it is not needed.
    @inline(__always)
    private static func inverseDCT(_ d0: Lanes, _ d1: Lanes, _ d2: Lanes, _ d3: Lanes, _ d4: Lanes, _ d5: Lanes,
                                   _ d6: Lanes, _ d7: Lanes, into out: UnsafeMutablePointer<UInt8>, stride: Int) {
        // Lanes are columns: the results are rows 0…7 of the intermediate block.
        let (x, t) = transform1D(d0, d1, d2, d3, d4, d5, d6, d7)
        let x0 = x.0 &+ 512, x1 = x.1 &+ 512, x2 = x.2 &+ 512, x3 = x.3 &+ 512
        let columns = transpose(((x0 &+ t.3) &>> 10, (x1 &+ t.2) &>> 10, (x2 &+ t.1) &>> 10, (x3 &+ t.0) &>> 10,
                                 (x3 &- t.0) &>> 10, (x2 &- t.1) &>> 10, (x1 &- t.2) &>> 10, (x0 &- t.3) &>> 10))
        // Lanes are rows now: the results are output columns 0…7.
        let (y, u) = transform1D(columns.0, columns.1, columns.2, columns.3, columns.4, columns.5, columns.6, columns.7)
        let bias: Int32 = 65536 &+ (128 << 17)
        let y0 = y.0 &+ bias, y1 = y.1 &+ bias, y2 = y.2 &+ bias, y3 = y.3 &+ bias
        @inline(__always) func level(_ v: Lanes) -> Lanes { (v &>> 17).clamped(lowerBound: Lanes(repeating: 0), upperBound: Lanes(repeating: 255)) }
        let rows = transpose((level(y0 &+ u.3), level(y1 &+ u.2), level(y2 &+ u.1), level(y3 &+ u.0),
                              level(y3 &- u.0), level(y2 &- u.1), level(y1 &- u.2), level(y0 &- u.3)))
        @inline(__always) func store(_ r: Int, _ v: Lanes) {
            UnsafeMutableRawPointer(out + r * stride).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: v), as: SIMD8<UInt8>.self)
        }
        store(0, rows.0); store(1, rows.1); store(2, rows.2); store(3, rows.3)
        store(4, rows.4); store(5, rows.5); store(6, rows.6); store(7, rows.7)
    }

    // MARK: Upsampling

    /// stb's per-component resampling state (`stbi__resample`): which two source rows ("near" and "far") feed the
    /// next output row, advanced exactly as `load_jpeg_image` does, so edge rows repeat as stb's do.
    private struct Resampler {
        let plane: UnsafePointer<UInt8>
        let line: UnsafeMutablePointer<UInt8>
        let stride: Int
        let rows: Int
        let horizontalFactor: Int
        let verticalFactor: Int
        let lowResolutionWidth: Int
        var line0 = 0, line1 = 0  // source row indices
        var yStep: Int
        var yPosition = 0

        init(plane: UnsafePointer<UInt8>, line: UnsafeMutablePointer<UInt8>, stride: Int, rows: Int,
             horizontalFactor: Int, verticalFactor: Int, width: Int) {
            self.plane = plane
            self.line = line
            self.stride = stride
            self.rows = rows
            self.horizontalFactor = horizontalFactor
            self.verticalFactor = verticalFactor
            self.lowResolutionWidth = (width + horizontalFactor - 1) / horizontalFactor
            self.yStep = verticalFactor >> 1
        }

        mutating func nextRow() -> UnsafePointer<UInt8> {
            let bottom = yStep >= verticalFactor >> 1
            let near = plane + (bottom ? line1 : line0) * stride, far = plane + (bottom ? line0 : line1) * stride
            let w = lowResolutionWidth
            var row = UnsafePointer(line)
            switch (horizontalFactor, verticalFactor) {
            case (1, 1): row = near
            case (1, 2):
                for i in 0..<w { line[i] = UInt8(truncatingIfNeeded: (3 * Int(near[i]) + Int(far[i]) + 2) >> 2) }
            case (2, 1): StbImageJPEGReconstruction.upsampleHorizontally(near, w, into: line)
            case (2, 2): StbImageJPEGReconstruction.upsampleBoth(near, far, w, into: line)
            default:  // nearest neighbour
                for i in 0..<w {
                    for j in 0..<horizontalFactor { line[i * horizontalFactor + j] = near[i] }
                }
            }
            yStep += 1
            if yStep >= verticalFactor {
                yStep = 0
                line0 = line1
                yPosition += 1
                if yPosition < rows { line1 += 1 }
            }
            return row
        }
    }

    /// `stbi__resample_row_h_2`: 3:1 weights with rounding 2, edge samples copied.
    private static func upsampleHorizontally(_ s: UnsafePointer<UInt8>, _ w: Int, into out: UnsafeMutablePointer<UInt8>) {
        if w == 1 {
            out[0] = s[0]; out[1] = s[0]
            return
        }
        out[0] = s[0]
        out[1] = UInt8(truncatingIfNeeded: (Int(s[0]) * 3 + Int(s[1]) + 2) >> 2)
        var i = 1
        while i < w - 1 {
            let n = 3 * Int(s[i]) + 2
            out[2 * i] = UInt8(truncatingIfNeeded: (n + Int(s[i - 1])) >> 2)
            out[2 * i + 1] = UInt8(truncatingIfNeeded: (n + Int(s[i + 1])) >> 2)
            i += 1
        }
        out[2 * i] = UInt8(truncatingIfNeeded: (Int(s[w - 2]) * 3 + Int(s[w - 1]) + 2) >> 2)
        out[2 * i + 1] = s[w - 1]
    }

    /// `stbi__resample_row_hv_2`: vertical 3:1 sums, then horizontal 3:1 with rounding 8 >> 4 (2 >> 2 at the ends).
    private static func upsampleBoth(_ near: UnsafePointer<UInt8>, _ far: UnsafePointer<UInt8>, _ w: Int,
                                     into out: UnsafeMutablePointer<UInt8>) {
        if w == 1 {
            let value = UInt8(truncatingIfNeeded: (3 * Int(near[0]) + Int(far[0]) + 2) >> 2)
            out[0] = value; out[1] = value
            return
        }
        var t1 = 3 * Int(near[0]) + Int(far[0])
        out[0] = UInt8(truncatingIfNeeded: (t1 + 2) >> 2)
        for i in 1..<w {
            let t0 = t1
            t1 = 3 * Int(near[i]) + Int(far[i])
            out[2 * i - 1] = UInt8(truncatingIfNeeded: (3 * t0 + t1 + 8) >> 4)
            out[2 * i] = UInt8(truncatingIfNeeded: (3 * t1 + t0 + 8) >> 4)
        }
        out[2 * w - 1] = UInt8(truncatingIfNeeded: (t1 + 2) >> 2)
    }

    // MARK: Colour

    /// `stbi__YCbCr_to_RGB_row`: 12-bit constants shifted to 20 bits, rounding 2¹⁹, and the green channel's Cb term
    /// masked to its high 16 bits (stb's "reduced precision" that keeps its SIMD and scalar paths identical).
    private static func convertYCbCr(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                                     into out: UnsafeMutablePointer<UInt8>, count: Int) {
        let crToR: Int32 = 5743 << 8, crToG: Int32 = -(2925 << 8), cbToG: Int32 = -(1410 << 8), cbToB: Int32 = 7258 << 8
        for i in 0..<count {
            let yFixed = (Int32(y[i]) << 20) &+ (1 << 19)
            let crValue = Int32(cr[i]) &- 128, cbValue = Int32(cb[i]) &- 128
            let r = (yFixed &+ crValue &* crToR) >> 20
            let g = (yFixed &+ crValue &* crToG &+ ((cbValue &* cbToG) & Int32(bitPattern: 0xFFFF_0000))) >> 20
            let b = (yFixed &+ cbValue &* cbToB) >> 20
            out[3 * i] = clamp(r)
            out[3 * i + 1] = clamp(g)
            out[3 * i + 2] = clamp(b)
        }
    }

    @inline(__always)
    private static func clamp(_ value: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(value, 0), 255)) }

    /// stb's `stbi__blinn_8x8`: x · y / 255, rounded.
    private static func blinn(_ x: UInt8, _ y: UInt8) -> UInt8 {
        let t = UInt32(x) * UInt32(y) + 128
        return UInt8(truncatingIfNeeded: (t + (t >> 8)) >> 8)
    }
}
