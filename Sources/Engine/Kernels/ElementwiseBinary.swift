import Foundation
import Format

/// ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, POW and PRELU over broadcast float inputs.
struct ElementwiseBinaryKernel: Kernel {
    enum Operation: Sendable {
        case add, subtract, multiply, divide, maximum, minimum, squaredDifference, power
        /// x where x ≥ 0, else x × alpha (alpha is the second input).
        case preluAlpha

        @inline(__always) func callAsFunction(_ a: Float, _ b: Float) -> Float {
            switch self {
            case .add: return a + b
            case .subtract: return a - b
            case .multiply: return a * b
            case .divide: return a / b
            case .maximum: return Swift.max(a, b)
            case .minimum: return Swift.min(a, b)
            case .squaredDifference: return (a - b) * (a - b)
            case .power: return powf(a, b)
            case .preluAlpha: return a >= 0 ? a : a * b
            }
        }
    }

    let a: Int
    let b: Int
    let output: Int
    let operation: Operation
    let activation: Activation
    let plan: BroadcastPlan

    init(_ context: OperatorContext, operation: Operation) throws(EngineError) {
        a = try context.input(0)
        b = try context.input(1)
        output = try context.output(0)
        try context.requireFloat([a, b, output])
        self.operation = operation
        let fused: FusedActivation
        switch context.options {
        case let .add(activation, _), let .sub(activation, _): fused = activation
        case let .mul(activation), let .div(activation): fused = activation
        default: fused = .none
        }
        activation = try Activation(fused, operatorIndex: context.index, name: context.name)
        guard let plan = BroadcastPlan(output: context.shape(output), a: context.shape(a), b: context.shape(b)) else {
            throw context.fail("shapes \(context.shape(a)) and \(context.shape(b)) do not broadcast to \(context.shape(output))")
        }
        self.plan = plan
    }

    func run(_ memory: TensorMemory) {
        let x = memory.floats(a), y = memory.floats(b), out = memory.floats(output)
        let operation = operation, activation = activation
        plan.forEachRun { offsetA, offsetB, offsetOut, count, strideA, strideB in
            let xa = x + offsetA, yb = y + offsetB, o = out + offsetOut
            if strideA == 1, strideB == 1 {
                for i in 0..<count { o[i] = activation(operation(xa[i], yb[i])) }
            } else if strideB == 0 {
                let constant = yb[0]
                for i in 0..<count { o[i] = activation(operation(xa[i * strideA], constant)) }
            } else {
                for i in 0..<count { o[i] = activation(operation(xa[i * strideA], yb[i * strideB])) }
            }
        }
    }
}
