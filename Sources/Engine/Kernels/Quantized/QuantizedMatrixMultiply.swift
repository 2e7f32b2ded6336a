import CVisionTasksOnoneKernels
/// The quantized GEMM a convolution or fully connected layer chose when it was prepared (``KernelConfig/
/// quantizedGEMM``), with what it reads: int16 rows less the zero point for ``QuantizedGEMM``, bytes made unsigned
/// (and one sum per row where the filter needs it) for ``QuantizedDotGEMM``.
enum QuantizedMatrixMultiply: Sendable {
    case pairs(QuantizedGEMM)
    case quads(QuantizedDotGEMM)
    /// OpenBLAS's exact dgemm, in a build without optimization (``KernelConfig/ononeLoops``): no panels are packed
    /// for the other two, whose packing is itself slow Swift there.
    case doubles(QuantizedOnoneProduct)

    init(_ layer: QuantizedLayer, signed: Bool, columns: Int, depth: Int, kernels: KernelConfig) {
        if kernels.ononeLoops {
            self = .doubles(QuantizedOnoneProduct(layer, columns: columns, depth: depth))
            return
        }
        switch kernels.quantizedGEMM {
        case .int16Pairs:
            self = .pairs(QuantizedGEMM(weights: layer.weights, bias: layer.bias, scales: layer.scales, columns: columns, depth: depth,
                                        tiles: kernels.quantizedGEMMTiles))
        case .int8Quads:
            self = .quads(QuantizedDotGEMM(
                weights: layer.weights, filterZeroPoints: layer.filterZeroPoints, signed: signed, inputZeroPoint: layer.input.zeroPoint,
                bias: layer.bias, scales: layer.scales, columns: columns, depth: depth, tiles: kernels.quantizedGEMMTiles))
        }
    }

    /// The padded depth: the length of A's rows in elements.
    var depth: Int {
        switch self {
        case let .pairs(gemm): gemm.depth
        case let .quads(gemm): gemm.depth
        case let .doubles(product): product.depth
        }
    }

    var columns: Int {
        switch self {
        case let .pairs(gemm): gemm.columns
        case let .quads(gemm): gemm.columns
        case let .doubles(product): product.columns
        }
    }

    var panelCount: Int {
        switch self {
        case let .pairs(gemm): gemm.panelCount
        case let .quads(gemm): gemm.panelCount
        case .doubles: 1
        }
    }

    /// Scratch bytes for `rows` rows of A (and, for quads, their sums after them, 64-byte aligned), checked.
    func scratchBytes(rows: Int, _ arithmetic: ShapeArithmetic) throws(EngineError) -> Int {
        switch self {
        case let .pairs(gemm):
            return try arithmetic.product([rows, gemm.depth, 2], "int16 rows of A")
        case let .quads(gemm):
            let bytes = try arithmetic.product([rows, gemm.depth], "byte rows of A")
            return try arithmetic.add(Self.rowSumOffset(bytes), try arithmetic.multiply(rows, 4, "row sums"), "rows of A and their sums")
        case let .doubles(product):
            return try product.scratchBytes(rows: rows, arithmetic)
        }
    }

    /// Where the row sums start in the scratch area after `bytes` of rows.
    static func rowSumOffset(_ bytes: Int) -> Int { (bytes + 63) / 64 * 64 }

    /// Rows `pixels` of C for a 1 × 1, stride-1 convolution: A's row p is pixel p of `source` (`channels` values, as
    /// they lie), made in `scratch` in this GEMM's form — laid out for `pixelCount` rows in all, as
    /// ``scratchBytes(rows:_:)`` sized it — then the GEMM into `c`, `ldc` elements a row.
    func runPointwise<Element: QuantizedElement>(_ pixels: Range<Int>, pixelCount: Int, source: UnsafePointer<Element>, channels: Int,
                                                 inputZeroPoint: Int32, scratch: UnsafeMutableRawPointer,
                                                 c: UnsafeMutablePointer<Element>, ldc: Int, requantization: Requantization) {
        switch self {
        case let .pairs(gemm):
            let rows = scratch.assumingMemoryBound(to: Int16.self), zero = Int16(truncatingIfNeeded: inputZeroPoint), depth = gemm.depth
            if depth == channels {
                // The band's pixels lie in one run: widened in one loop.
                let start = source + pixels.lowerBound * channels, target = rows + pixels.lowerBound * depth
                for i in 0..<pixels.count * channels { target[i] = Int16(start[i]) &- zero }
            } else {
                for p in pixels {
                    let pixel = source + p * channels, row = rows + p * depth
                    for c in 0..<channels { row[c] = Int16(pixel[c]) &- zero }
                    (row + channels).initialize(repeating: 0, count: depth - channels)
                }
            }
            gemm.run(a: rows, lda: depth, rows: pixels, c: c, ldc: ldc, requantization: requantization)
        case let .quads(dot):
            let depth = dot.depth, bytes = UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self)
            let rows = scratch.assumingMemoryBound(to: UInt8.self)
            let a: UnsafePointer<UInt8>, lda: Int
            if depth == channels && dot.inputOffset == 0 {
                (a, lda) = (bytes, channels)
            } else if depth == channels {
                // The band's pixels lie in one run: flip it in one loop. Gathered pixel by pixel, this copy took a
                // fifth of an int8 EfficientNet-Lite0's time (its 1 × 1 convolutions over 112² and 56² pixels of
                // 16–144 channels). Flipping in the tiles instead (as XNNPACK's signed VNNI kernels do) cost the deep
                // layers more than it saved: the XOR turns each memory broadcast into a load, an XOR and a shuffle.
                let start = pixels.lowerBound * depth
                copyBytes(bytes + start, to: rows + start, count: pixels.count * depth, flip: dot.inputOffset)
                (a, lda) = (UnsafePointer(rows), depth)
            } else {
                // Channels that do not fill whole quads: each row's last quad padded with zeros.
                for p in pixels {
                    copyBytes(bytes + p * channels, to: rows + p * depth, count: channels, flip: dot.inputOffset)
                    (rows + p * depth + channels).initialize(repeating: 0, count: depth - channels)
                }
                (a, lda) = (UnsafePointer(rows), depth)
            }
            let sums = (scratch + Self.rowSumOffset(pixelCount * depth)).assumingMemoryBound(to: Int32.self)
            if dot.needsRowSums {
                for p in pixels { sums[p] = dot.rowSum(a + p * lda, count: depth) }
            }
            dot.run(a: a, lda: lda, rowSums: dot.needsRowSums ? UnsafePointer(sums) : nil, rows: pixels, c: c, ldc: ldc,
                    requantization: requantization)
        case let .doubles(onone):
            // The patches of a 1 × 1 window over one row of `pixelCount` pixels.
            let band = scratch + pixels.lowerBound * (onone.depth + onone.columns) * MemoryLayout<Double>.stride
            vt_onone_quantized_patches(source, Element.isSigned ? 1 : 0, inputZeroPoint, Int32(pixels.lowerBound), Int32(pixels.upperBound),
                                       Int32(pixelCount), 1, Int32(pixelCount), Int32(channels), 1, 1, 1, 1, 1, 1, 0, 0,
                                       Int32(onone.depth), band.assumingMemoryBound(to: Double.self))
            onone.run(band, rows: pixels.count, c: UnsafeMutableRawPointer(c + pixels.lowerBound * ldc), ldc: ldc, signed: Element.isSigned)
        }
    }
}

/// `count` bytes from `source` to `target`, each XORed with `flip`: 0 copies uint8 as it is, 128 turns int8 into the
/// unsigned bytes ``QuantizedDotGEMM`` reads (+128 modulo 256).
/// Runs shorter than 64 bytes (an im2col row of a 3 × 3 window over RGB is three runs of 9) go eight bytes at a time:
/// through `memmove` or the vectorized loop, with their set-up and tails, such a run cost some 30 cycles.
@inline(__always)
func copyBytes(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int, flip: UInt8) {
    if count < 64 {
        let mask = UInt64(flip) &* 0x0101_0101_0101_0101
        var i = 0
        while i &+ 8 <= count {
            UnsafeMutableRawPointer(target + i).storeBytes(of: UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self) ^ mask, as: UInt64.self)
            i &+= 8
        }
        while i < count { target[i] = source[i] ^ flip; i &+= 1 }
    } else if flip == 0 {
        target.update(from: source, count: count)
    } else {
        for i in 0..<count { target[i] = source[i] ^ flip }
    }
}
