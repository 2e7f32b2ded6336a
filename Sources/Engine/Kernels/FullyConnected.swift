import CVisionTasksBLAS
import VisionTasksModelFormat

/// FULLY_CONNECTED: rows of the input (all dimensions but the last flattened) times the [out, in] weights.
///
/// Through our packed micro-kernel where its tiles are fast (as a 1 × 1 convolution's product: a classifier's head is
/// one row, which OpenBLAS's sgemm took 1.2 ms over for EfficientNetV2-B0's 1280 → 1000, XNNPACK 0.12), split over
/// the threads by panels when the rows are few; OpenBLAS otherwise (a build without optimization, the portable tier).
struct FullyConnectedKernel: Kernel {
    let input: Int
    let output: Int
    let rows: Int
    let depth: Int
    let units: Int
    /// The [units × depth] weights for OpenBLAS; empty when they are packed (a 1280 → 1000 head holds 5 MB).
    let weights: [Float]
    let bias: [Float]
    let activation: Activation
    let packed: PackedGEMM?

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .fullyConnected(options) = context.options else { throw context.fail("missing FullyConnectedOptions") }
        guard options.weightsFormat == 0 else { throw context.unsupported("shuffled weights") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        try context.requireFloat([input, output, filter])
        let f = context.shape(filter)
        guard f.count == 2, f[1] > 0 else { throw context.fail("weights shape \(f)") }
        let count = context.graph.elementCount(input)
        guard count % f[1] == 0 else { throw context.fail("input of \(count) values is not rows of \(f[1])") }
        depth = f[1]
        units = f[0]
        rows = count / depth
        let weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: units)
        guard weights.count == units * depth, bias.count == units else { throw context.fail("weights/bias sizes") }
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        // Conv2DKernel's choice for a 1 × 1 convolution of `rows` pixels (tanh, which the tiles leave to a pass after
        // them, stays on the path that applies it per row).
        packed = context.kernels.floatGEMM != .openBLAS && activation != .tanh
            && (ownGEMMKernelsAreFast || context.kernels.floatGEMMTiles != nil)
            && (weights.count <= KernelConfig.packedFilterMaximumWeights || rows <= KernelConfig.matrixVectorMaximumPixels)
            ? PackedGEMM(weights: weights, bias: bias, columns: units, depth: depth, kernels: context.kernels) : nil
        self.weights = packed == nil ? weights : []
        let inputShape = context.shape(input)
        let expected = options.keepNumDims ? Array(inputShape.dropLast()) + [units] : [rows, units]
        try context.expect(expected, forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let destination = memory.floats(output)
        if let packed {
            let product = Product(packed: packed, a: memory.floats(input), rows: rows, c: destination, activation: activation)
            if rows < KernelConfig.convolutionMinimumPixelsPerThread * memory.parallel.threads, packed.panelCount > 1 {
                // Few rows, many units: threads take panels (each column's sums are its own: the same bits).
                memory.parallel.forEach(packed.panelCount, Panels(product: product))
            } else {
                memory.parallel.forEach(rows, minimumPerThread: KernelConfig.convolutionMinimumPixelsPerThread, product)
            }
            return
        }
        weights.withUnsafeBufferPointer { w in
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(units), Int32(depth),
                        1, memory.floats(input), Int32(depth), w.baseAddress, Int32(depth), 0, destination, Int32(units))
        }
        bias.withUnsafeBufferPointer { bias in
            for r in 0..<rows {
                let out = destination + r * units
                for u in 0..<units { out[u] = activation(out[u] + bias[u]) }
            }
        }
    }

    /// Rows of the product.
    private struct Product: ParallelLoop {
        let packed: PackedGEMM
        let a: UnsafeMutablePointer<Float>
        let rows: Int
        let c: UnsafeMutablePointer<Float>
        let activation: Activation
        func run(_ range: Range<Int>) {
            packed.run(a: a + range.lowerBound * packed.depth, lda: packed.depth, rows: 0..<range.count,
                       c: c + range.lowerBound * packed.columns, ldc: packed.columns, activation: activation)
        }
    }

    /// Panels of the product over all its rows.
    private struct Panels: ParallelLoop {
        let product: Product
        func run(_ panels: Range<Int>) {
            let p = product
            p.packed.run(a: p.a, lda: p.packed.depth, rows: 0..<p.rows, c: p.c, ldc: p.packed.columns, activation: p.activation, panels: panels)
        }
    }
}
