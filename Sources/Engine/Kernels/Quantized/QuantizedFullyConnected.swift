import CVisionTasksOnoneKernels
import VisionTasksModelFormat

/// FULLY_CONNECTED on uint8 or int8: the input's rows (all dimensions but the last flattened) widened to int16 less
/// the zero point into scratch, then ``QuantizedGEMM`` over the [units × depth] weights; in the VNNI tier the rows as
/// unsigned bytes (the input itself when it is uint8 and its rows fill whole quads) and ``QuantizedDotGEMM``.
struct QuantizedFullyConnectedKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let rows: Int
    let depth: Int
    let inputZeroPoint: Int32
    let gemm: QuantizedMatrixMultiply
    let requantization: Requantization
    let scratchBytes: Int

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
        gemm = QuantizedMatrixMultiply(layer, signed: signed, columns: f[0], depth: depth, kernels: context.kernels)
        scratchBytes = try gemm.scratchBytes(rows: rows, context.arithmetic)
    }

    func run(_ memory: TensorMemory) {
        // One row (the classifiers' heads) has no rows to split: threads take panels of output units instead.
        let minimum = KernelConfig.quantizedFullyConnectedMinimumPanelsPerThread
        switch gemm {
        case let .doubles(onone):
            // A build without optimization: the rows as exact doubles (a 1 × 1 window over one-pixel-wide rows), then
            // OpenBLAS's dgemm and the C requantization (``QuantizedOnoneProduct``).
            vt_onone_quantized_patches(UnsafeRawPointer(memory.raw(input)), signed ? 1 : 0, inputZeroPoint, 0, Int32(rows), 1,
                                       Int32(rows), 1, Int32(depth), 1, 1, 1, 1, 1, 1, 0, 0, Int32(depth),
                                       memory.scratch.assumingMemoryBound(to: Double.self))
            onone.run(memory.scratch, rows: rows, c: memory.raw(output), ldc: onone.columns, signed: signed)
        case let .pairs(pairs):
            let widened = memory.scratch.assumingMemoryBound(to: Int16.self)
            if signed { widen(memory.raw(input).assumingMemoryBound(to: Int8.self), widened, pairs) } else { widen(memory.raw(input).assumingMemoryBound(to: UInt8.self), widened, pairs) }
            memory.parallel.forEach(gemm.panelCount, minimumPerThread: minimum, Panels(kernel: self, gemm: pairs, a: widened, c: memory.raw(output)))
        case let .quads(dot):
            let source = UnsafePointer(memory.raw(input).assumingMemoryBound(to: UInt8.self))
            let a: UnsafePointer<UInt8>
            if dot.depth == depth && dot.inputOffset == 0 {
                a = source
            } else {
                let rowsOfA = memory.scratch.assumingMemoryBound(to: UInt8.self)
                for r in 0..<rows {
                    copyBytes(source + r * depth, to: rowsOfA + r * dot.depth, count: depth, flip: dot.inputOffset)
                    (rowsOfA + r * dot.depth + depth).initialize(repeating: 0, count: dot.depth - depth)
                }
                a = UnsafePointer(rowsOfA)
            }
            let sums = (memory.scratch + QuantizedMatrixMultiply.rowSumOffset(rows * dot.depth)).assumingMemoryBound(to: Int32.self)
            if dot.needsRowSums {
                for r in 0..<rows { sums[r] = dot.rowSum(a + r * dot.depth, count: dot.depth) }
            }
            memory.parallel.forEach(gemm.panelCount, minimumPerThread: minimum, QuadPanels(
                kernel: self, gemm: dot, a: a, rowSums: dot.needsRowSums ? UnsafePointer(sums) : nil, c: memory.raw(output)))
        }
    }

    private func widen<Element: QuantizedElement>(_ source: UnsafePointer<Element>, _ widened: UnsafeMutablePointer<Int16>, _ gemm: QuantizedGEMM) {
        let zero = Int16(inputZeroPoint)
        for r in 0..<rows {
            let row = widened + r * gemm.depth
            for k in 0..<depth { row[k] = Int16(source[r * depth + k]) &- zero }
            if depth < gemm.depth { row[depth] = 0 }
        }
    }

    private struct QuadPanels: ParallelLoop {
        let kernel: QuantizedFullyConnectedKernel
        let gemm: QuantizedDotGEMM
        let a: UnsafePointer<UInt8>
        let rowSums: UnsafePointer<Int32>?
        let c: UnsafeMutableRawPointer

        func run(_ panels: Range<Int>) {
            if kernel.signed {
                gemm.run(a: a, lda: gemm.depth, rowSums: rowSums, rows: 0..<kernel.rows, c: c.assumingMemoryBound(to: Int8.self),
                         ldc: gemm.columns, requantization: kernel.requantization, panels: panels)
            } else {
                gemm.run(a: a, lda: gemm.depth, rowSums: rowSums, rows: 0..<kernel.rows, c: c.assumingMemoryBound(to: UInt8.self),
                         ldc: gemm.columns, requantization: kernel.requantization, panels: panels)
            }
        }
    }

    private struct Panels: ParallelLoop {
        let kernel: QuantizedFullyConnectedKernel
        let gemm: QuantizedGEMM
        let a: UnsafeMutablePointer<Int16>
        let c: UnsafeMutableRawPointer

        func run(_ panels: Range<Int>) {
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
