import CVisionTasksBLAS
import CVisionTasksOnoneKernels

/// A quantized convolution's or fully connected layer's products in a build that compiled this module without
/// optimization (``KernelConfig/ononeLoops``), where ``QuantizedGEMM``'s generic SIMD crawls (SSD's detector: 16 s a
/// photo). The inputs less their zero point and the filter less its zero points are integers held in doubles, so
/// OpenBLAS's dgemm — optimized whatever our build is — multiplies and adds them exactly in any order (products up to
/// 255 × 255, sums far below 2^53): the int32 accumulators are ``QuantizedGEMM``'s, and the requantization is the
/// same C twin of ``Requantization``. The same bytes, at four times the weights' memory (only in such a build).
/// ``QuantizedMatrixMultiply/doubles(_:)`` carries it in place of the packed panels.
struct QuantizedOnoneProduct: Sendable {
    /// [columns × depth], the filter less its zero points.
    let weights: [Double]
    let bias: [Int32]
    let scales: [Float]
    let requantization: Requantization
    let columns: Int
    let depth: Int

    init(_ layer: QuantizedLayer, columns: Int, depth: Int) {
        weights = layer.weights.map(Double.init)
        bias = layer.bias
        scales = layer.scales
        requantization = layer.requantization
        self.columns = columns
        self.depth = depth
    }

    /// Scratch for `rows` rows: their patches, then their products (doubles), checked.
    func scratchBytes(rows: Int, _ arithmetic: ShapeArithmetic) throws(EngineError) -> Int {
        try arithmetic.product([rows, depth + columns, MemoryLayout<Double>.stride], "scratch of the quantized products")
    }

    /// The patches of rows `rows` are in `scratch` (the caller filled them, `depth` doubles a row, from row 0 at its
    /// start); writes the rows' outputs, `ldc` elements apart, from `c` on.
    func run(_ scratch: UnsafeMutableRawPointer, rows: Int, c: UnsafeMutableRawPointer, ldc: Int, signed: Bool) {
        let patches = scratch.assumingMemoryBound(to: Double.self)
        let products = patches + rows * depth
        weights.withUnsafeBufferPointer { weights in
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(columns), Int32(depth),
                        1, patches, Int32(depth), weights.baseAddress, Int32(depth), 0, products, Int32(columns))
        }
        bias.withUnsafeBufferPointer { bias in
            scales.withUnsafeBufferPointer { scales in
                vt_onone_requantize_rows(products, Int32(rows), Int32(columns), bias.baseAddress, scales.baseAddress,
                                         requantization.lower, requantization.upper, requantization.zeroPoint, signed ? 1 : 0, c, ldc,
                                         requantization.roundsHalfUp ? 1 : 0)
            }
        }
    }
}
