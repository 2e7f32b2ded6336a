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
        if plan.dimensions.count == 1, plan.dimensions[0] >= 1 << 14 {
            // One long run (same shapes, or one side a scalar): threads take slices of it.
            let (strideA, strideB) = plan.strides[0]
            memory.parallel.forEach(plan.dimensions[0], minimumPerThread: 1 << 13,
                                    Slices(kernel: self, a: x, b: y, output: out, strideA: strideA, strideB: strideB))
            return
        }
        plan.forEachRun { offsetA, offsetB, offsetOut, count, strideA, strideB in
            apply(x + offsetA, y + offsetB, out + offsetOut, count, strideA, strideB)
        }
    }

    private struct Slices: ParallelLoop {
        let kernel: ElementwiseBinaryKernel
        let a: UnsafeMutablePointer<Float>
        let b: UnsafeMutablePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let strideA: Int
        let strideB: Int
        func run(_ range: Range<Int>) {
            kernel.apply(a + range.lowerBound * strideA, b + range.lowerBound * strideB, output + range.lowerBound,
                         range.count, strideA, strideB)
        }
    }

    @inline(__always)
    private func apply(_ xa: UnsafeMutablePointer<Float>, _ yb: UnsafeMutablePointer<Float>, _ o: UnsafeMutablePointer<Float>,
                       _ count: Int, _ strideA: Int, _ strideB: Int) {
        // The operation is chosen once per run so that each loop below is a plain, vectorizable one.
        switch operation {
        case .add: Self.apply(xa, strideA, yb, strideB, o, count) { $0 + $1 }
        case .subtract: Self.apply(xa, strideA, yb, strideB, o, count) { $0 - $1 }
        case .multiply: Self.apply(xa, strideA, yb, strideB, o, count) { $0 * $1 }
        case .divide: Self.apply(xa, strideA, yb, strideB, o, count) { $0 / $1 }
        case .maximum: Self.apply(xa, strideA, yb, strideB, o, count) { $0 > $1 ? $0 : $1 }
        case .minimum: Self.apply(xa, strideA, yb, strideB, o, count) { $0 < $1 ? $0 : $1 }
        case .squaredDifference: Self.apply(xa, strideA, yb, strideB, o, count) { ($0 - $1) * ($0 - $1) }
        case .power: Self.apply(xa, strideA, yb, strideB, o, count) { powf($0, $1) }
        case .preluAlpha: Self.apply(xa, strideA, yb, strideB, o, count) { $0 >= 0 ? $0 : $0 * $1 }
        }
        activation.apply(o, count: count)
    }

    @inline(__always)
    private static func apply(_ x: UnsafeMutablePointer<Float>, _ strideX: Int, _ y: UnsafeMutablePointer<Float>, _ strideY: Int,
                              _ out: UnsafeMutablePointer<Float>, _ count: Int, _ f: (Float, Float) -> Float) {
        if strideX == 1, strideY == 1 {
            for i in 0..<count { out[i] = f(x[i], y[i]) }
        } else if strideY == 0, strideX == 1 {
            let constant = y[0]
            for i in 0..<count { out[i] = f(x[i], constant) }
        } else if strideX == 0, strideY == 1 {
            let constant = x[0]
            for i in 0..<count { out[i] = f(constant, y[i]) }
        } else {
            for i in 0..<count { out[i] = f(x[i * strideX], y[i * strideY]) }
        }
    }
}
