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
