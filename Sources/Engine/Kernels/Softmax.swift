import Foundation
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

    func run(_ memory: TensorMemory) {
        for r in 0..<rows {
            let x = memory.floats(input) + r * depth, y = memory.floats(output) + r * depth
            var largest = -Float.infinity
            for i in 0..<depth { largest = max(largest, x[i]) }
            var sum: Float = 0
            for i in 0..<depth {
                y[i] = expf((x[i] - largest) * beta)
                sum += y[i]
            }
            for i in 0..<depth { y[i] /= sum }
        }
    }
}
