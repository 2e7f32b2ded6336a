import Foundation
import VisionTasksModelFormat

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
        activation = try Activation(Self.fusedActivation(context.options), operatorIndex: context.index, name: context.name)
        guard let plan = BroadcastPlan(output: context.shape(output), a: context.shape(a), b: context.shape(b)) else {
            throw context.fail("shapes \(context.shape(a)) and \(context.shape(b)) do not broadcast to \(context.shape(output))")
        }
        self.plan = plan
    }

    /// The activation the options carry (ADD, SUB, MUL and DIV have one); the plan's passes read it before this
    /// kernel exists.
    static func fusedActivation(_ options: BuiltinOptions) -> FusedActivation {
        switch options {
        case let .add(activation, _), let .sub(activation, _): return activation
        case let .mul(activation), let .div(activation): return activation
        default: return .none
        }
    }

    func run(_ memory: TensorMemory) {
        let x = memory.floats(a), y = memory.floats(b), out = memory.floats(output)
        let dimensions = plan.dimensions
        if plan.repeatedShortRun != nil {
            // An image and its per-channel constants: as rows of three, 0.25 ms each over a 224² image at one thread
            // (EfficientNetV2's SUB and MUL); through tiles 0.07 ms, the same values (each element alone).
            plan.forEachRun(a: UnsafePointer(x), b: UnsafePointer(y)) { xa, yb, offsetOut, count, strideA, strideB in
                apply(rows: 0..<1, UnsafeMutablePointer(mutating: xa), (0, 0), UnsafeMutablePointer(mutating: yb), (strideA, strideB),
                      out + offsetOut, count)
            }
            return
        }
        if dimensions.count <= 2 {
            // Rows of a [rows, count] view (one row when the shapes are equal or one side is a scalar; a
            // per-channel operand such as PReLU's alpha repeats along the rows): threads take bands of rows, and
            // the operation is chosen once per band rather than once per row.
            let rows = dimensions.count == 2 ? dimensions[0] : 1
            let count = dimensions[dimensions.count - 1]
            let inner = plan.strides[dimensions.count - 1], outer = dimensions.count == 2 ? plan.strides[0] : (0, 0)
            let geometry = Rows(kernel: self, a: x, b: y, output: out, count: count, outer: outer, inner: inner)
            if rows == 1 {
                memory.parallel.forEach(count, minimumPerThread: KernelConfig.elementwiseMinimumPerThread, Slices(rows: geometry))
            } else {
                memory.parallel.forEach(rows, minimumPerThread: max(1, (1 << 13) / max(count, 1)), geometry)
            }
            return
        }
        plan.forEachRun { offsetA, offsetB, offsetOut, count, strideA, strideB in
            apply(rows: 0..<1, x + offsetA, (0, 0), y + offsetB, (strideA, strideB), out + offsetOut, count)
        }
    }

    /// Rows `range` of the [rows, count] view: row r reads a at r · outer.0 and b at r · outer.1.
    private struct Rows: ParallelLoop {
        let kernel: ElementwiseBinaryKernel
        let a: UnsafeMutablePointer<Float>
        let b: UnsafeMutablePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let count: Int
        let outer: (Int, Int)
        let inner: (Int, Int)

        func run(_ range: Range<Int>) {
            kernel.apply(rows: range, a, outer, b, inner, output, count)
        }
    }

    /// Slices of a single row.
    private struct Slices: ParallelLoop {
        let rows: Rows

        func run(_ range: Range<Int>) {
            let (strideA, strideB) = rows.inner
            rows.kernel.apply(rows: 0..<1, rows.a + range.lowerBound * strideA, (0, 0), rows.b + range.lowerBound * strideB,
                              rows.inner, rows.output + range.lowerBound, range.count)
        }
    }

    /// Applies the operation to rows `rows` of `count` values each, then the fused activation to all of them.
    @inline(__always)
    private func apply(rows: Range<Int>, _ xa: UnsafeMutablePointer<Float>, _ outer: (Int, Int), _ yb: UnsafeMutablePointer<Float>,
                       _ inner: (Int, Int), _ o: UnsafeMutablePointer<Float>, _ count: Int) {
        // The operation is chosen once so that each loop below is a plain, vectorizable one.
        switch operation {
        case .add: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 + $1 }
        case .subtract: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 - $1 }
        case .multiply: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 * $1 }
        case .divide: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 / $1 }
        case .maximum: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 > $1 ? $0 : $1 }
        case .minimum: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 < $1 ? $0 : $1 }
        case .squaredDifference: Self.apply(rows, xa, outer, yb, inner, o, count) { ($0 - $1) * ($0 - $1) }
        case .power: Self.apply(rows, xa, outer, yb, inner, o, count) { powf($0, $1) }
        case .preluAlpha: Self.apply(rows, xa, outer, yb, inner, o, count) { $0 >= 0 ? $0 : $0 * $1 }
        }
        activation.apply(o + rows.lowerBound * count, count: rows.count * count)
    }

    @inline(__always)
    private static func apply(_ rows: Range<Int>, _ xa: UnsafeMutablePointer<Float>, _ outer: (Int, Int), _ yb: UnsafeMutablePointer<Float>,
                              _ inner: (Int, Int), _ o: UnsafeMutablePointer<Float>, _ count: Int, _ f: (Float, Float) -> Float) {
        let (strideX, strideY) = inner
        for row in rows {
            let x = xa + row &* outer.0, y = yb + row &* outer.1, out = o + row &* count
            if strideX == 1, strideY == 1 {
                for i in 0..<count { out[i] = f(x[i], y[i]) }
            } else if strideY == 0, strideX == 1 {
                let constant = y[0]
                for i in 0..<count { out[i] = f(x[i], constant) }
            } else if strideX == 0, strideY == 1 {
                let constant = x[0]
                for i in 0..<count { out[i] = f(constant, y[i]) }
            } else {
                for i in 0..<count { out[i] = f(x[i &* strideX], y[i &* strideY]) }
            }
        }
    }
}
