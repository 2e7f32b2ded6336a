import Foundation
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// SOFTMAX over the last dimension: exp(β·(x − max)) / Σ.
struct SoftmaxKernel: Kernel {
    let input: Int
    let output: Int
    let rows: Int
    let depth: Int
    let beta: Float

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .softmax(beta) = context.options else { throw context.fail("missing SoftmaxOptions") }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        depth = context.shape(input).last ?? 1
        guard depth > 0 else { throw context.fail("empty last dimension") }
        rows = context.graph.elementCount(input) / depth
        self.beta = beta
        // The run writes as many values as it reads (a larger input wrote past a smaller output).
        try context.expect(context.shape(input), forOutput: 0)
    }

    /// Rows over threads, each row alone: the same bits at any thread count.
    func run(_ memory: TensorMemory) {
        memory.parallel.forEach(rows, minimumPerThread: max(1, KernelConfig.elementwiseMinimumPerThread / depth),
                                Rows(kernel: self, x: memory.floats(input), y: memory.floats(output)))
    }

    private struct Rows: ParallelLoop {
        let kernel: SoftmaxKernel
        let x: UnsafeMutablePointer<Float>
        let y: UnsafeMutablePointer<Float>

        func run(_ range: Range<Int>) {
            let depth = kernel.depth
            for r in range { kernel.row(x + r &* depth, y + r &* depth) }
        }
    }

    @inline(__always)
    private func row(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>) {
        var largest = -Float.infinity
        for i in 0..<depth { largest = max(largest, x[i]) }
        if beta > 0, beta.isFinite {
            // e^(β(x − max)) = e^−z for z = β(max − x) ≥ 0, through LOGISTIC's vectorized polynomial (as XNNPACK's
            // softmax, which LiteRT runs, uses a polynomial of its own) rather than libm's `expf` one value at a time:
            // YOLOv8's box decoding (8,400 rows of 16) took 4.5 × LiteRT's time that way.
            let beta = beta
            for i in 0..<depth { y[i] = exponentialOfNegative((largest - x[i]) * beta) }
        } else {
            for i in 0..<depth { y[i] = expf((x[i] - largest) * beta) }
        }
        var partial = SIMD8<Float>(), i = 0
        while i &+ 8 <= depth {
            partial += UnsafeRawPointer(y + i).loadUnaligned(as: SIMD8<Float>.self)
            i &+= 8
        }
        var sum = partial.sum()
        while i < depth {
            sum += y[i]
            i &+= 1
        }
        for i in 0..<depth { y[i] /= sum }
    }
}
