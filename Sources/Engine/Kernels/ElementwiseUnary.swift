import Foundation
import VisionTasksModelFormat

/// One-input elementwise functions: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH, NEG, ABS, SQRT,
/// RSQRT, EXP, LOG, SQUARE.
struct ElementwiseUnaryKernel: Kernel {
    enum Function: Sendable {
        case relu, relu6, reluMinus1To1, logistic, tanh, hardSwish, negate, absolute, squareRoot, reciprocalSquareRoot
        case exponential, logarithm, square

        @inline(__always) func callAsFunction(_ x: Float) -> Float {
            switch self {
            case .relu: return max(x, 0)
            case .relu6: return min(max(x, 0), 6)
            case .reluMinus1To1: return min(max(x, -1), 1)
            case .logistic: return 1 / (1 + expf(-x))
            case .tanh: return tanhf(x)
            // x · relu6(x + 3) / 6 (MobileNetV3)
            case .hardSwish: return x * min(max(x + 3, 0), 6) / 6
            case .negate: return -x
            case .absolute: return abs(x)
            case .squareRoot: return x.squareRoot()
            case .reciprocalSquareRoot: return 1 / x.squareRoot()
            case .exponential: return expf(x)
            case .logarithm: return logf(x)
            case .square: return x * x
            }
        }
    }

    let input: Int
    let output: Int
    let count: Int
    let function: Function

    init(_ context: OperatorContext, function: Function) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        count = context.graph.elementCount(input)
        guard count == context.graph.elementCount(output) else { throw context.fail("input and output sizes differ") }
        self.function = function
    }

    func run(_ memory: TensorMemory) {
        let x = memory.floats(input), y = memory.floats(output)
        let function = function
        for i in 0..<count { y[i] = function(x[i]) }
    }
}
