import CVisionTasksBLAS
import VisionTasksModelFormat

/// FULLY_CONNECTED: rows of the input (all dimensions but the last flattened) times the [out, in] weights.
///
/// Through our packed micro-kernel as a 1 × 1 convolution's product goes (``PackedGEMM/carries(weightCount:depth:rows:kernels:)``:
/// a classifier's head is one row, which OpenBLAS's sgemm took 1.2 ms over for EfficientNetV2-B0's 1280 → 1000,
/// XNNPACK 0.12); OpenBLAS otherwise.
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
        packed = PackedGEMM.carries(weightCount: weights.count, depth: depth, rows: rows, kernels: context.kernels)
            ? PackedGEMM(weights: weights, bias: bias, columns: units, depth: depth, kernels: context.kernels) : nil
        self.weights = packed == nil ? weights : []
        let inputShape = context.shape(input)
        let expected = options.keepNumDims ? Array(inputShape.dropLast()) + [units] : [rows, units]
        try context.expect(expected, forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let destination = memory.floats(output)
        if let packed {
            packed.run(a: memory.floats(input), lda: depth, rows: rows, c: destination, ldc: units, activation: activation,
                       epilogue: nil, parallel: memory.parallel)
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
}
