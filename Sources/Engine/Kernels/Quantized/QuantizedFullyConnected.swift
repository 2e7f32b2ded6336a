import VisionTasksModelFormat

/// FULLY_CONNECTED on uint8 or int8: the input's rows (all dimensions but the last flattened) widened to int16 less
/// the zero point into scratch, then ``QuantizedGEMM`` over the [units × depth] weights.
struct QuantizedFullyConnectedKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let rows: Int
    let depth: Int
    let inputZeroPoint: Int32
    let gemm: QuantizedGEMM
    let requantization: Requantization

    var scratchBytes: Int { rows * gemm.depth * 2 }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .fullyConnected(options) = context.options else { throw context.fail("missing FullyConnectedOptions") }
        guard options.weightsFormat == 0 else { throw context.unsupported("shuffled weights") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        signed = try context.requireSameQuantizedType([output, filter]) == .int8
        let f = context.shape(filter)
        guard f.count == 2, f[0] > 0, f[1] > 0 else { throw context.fail("weights shape \(f)") }
        let count = context.graph.elementCount(input)
        guard count % f[1] == 0 else { throw context.fail("input of \(count) values is not rows of \(f[1])") }
        depth = f[1]
        rows = count / depth
        let inputShape = context.shape(input)
        try context.expect(options.keepNumDims ? Array(inputShape.dropLast()) + [f[0]] : [rows, f[0]], forOutput: 0)
        let layer = try QuantizedLayer(context, filter: filter, filterAxis: 0, channels: f[0], activation: options.activation)
        inputZeroPoint = layer.input.zeroPoint
        requantization = layer.requantization
        gemm = QuantizedGEMM(weights: layer.weights, bias: layer.bias, scales: layer.scales, columns: f[0], depth: depth)
    }

    func run(_ memory: TensorMemory) {
        let widened = memory.scratch.assumingMemoryBound(to: Int16.self)
        if signed { widen(memory.raw(input).assumingMemoryBound(to: Int8.self), widened) } else { widen(memory.raw(input).assumingMemoryBound(to: UInt8.self), widened) }
        // One row (the classifiers' heads) has no rows to split: threads take panels of output units instead.
        memory.parallel.forEach(gemm.panelCount, minimumPerThread: 4, Panels(kernel: self, a: widened, c: memory.raw(output)))
    }

    private func widen<Element: QuantizedElement>(_ source: UnsafePointer<Element>, _ widened: UnsafeMutablePointer<Int16>) {
        let zero = Int16(inputZeroPoint)
        for r in 0..<rows {
            let row = widened + r * gemm.depth
            for k in 0..<depth { row[k] = Int16(source[r * depth + k]) &- zero }
            if depth < gemm.depth { row[depth] = 0 }
        }
    }

    private struct Panels: ParallelLoop {
        let kernel: QuantizedFullyConnectedKernel
        let a: UnsafeMutablePointer<Int16>
        let c: UnsafeMutableRawPointer

        func run(_ panels: Range<Int>) {
            let gemm = kernel.gemm
            if kernel.signed {
                gemm.run(a: a, lda: gemm.depth, rows: 0..<kernel.rows, c: c.assumingMemoryBound(to: Int8.self), ldc: gemm.columns,
                         requantization: kernel.requantization, panels: panels)
            } else {
                gemm.run(a: a, lda: gemm.depth, rows: 0..<kernel.rows, c: c.assumingMemoryBound(to: UInt8.self), ldc: gemm.columns,
                         requantization: kernel.requantization, panels: panels)
            }
        }
    }
}
