import Foundation
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// One-input elementwise functions: RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH, NEG, ABS, SQRT,
/// RSQRT, EXP, LOG, SQUARE.
struct ElementwiseUnaryKernel: Kernel {
    enum Function: Sendable {
        case relu, relu6, reluMinus1To1, logistic, tanh, hardSwish, negate, absolute, squareRoot, reciprocalSquareRoot
        case exponential, logarithm, square

        @inline(__always) func callAsFunction(_ x: Float) -> Float {
            switch self {
            case .relu: return Self.reluValue(x)
            case .relu6: return Self.relu6Value(x)
            case .reluMinus1To1: return Self.reluMinus1To1Value(x)
            case .logistic: return Logistic.sigmoid(x)
            case .tanh: return HyperbolicTangent.value(x)
            case .hardSwish: return Self.hardSwishValue(x)
            case .negate: return -x
            case .absolute: return abs(x)
            case .squareRoot: return x.squareRoot()
            case .reciprocalSquareRoot: return 1 / x.squareRoot()
            case .exponential: return expf(x)
            case .logarithm: return logf(x)
            case .square: return x * x
            }
        }

        // "…Value": Swift 6.0 finds `Function.relu(x)` ambiguous between the case and a function of the same name.
        @inline(__always) static func reluValue(_ x: Float) -> Float { max(x, 0) }
        @inline(__always) static func relu6Value(_ x: Float) -> Float { min(max(x, 0), 6) }
        @inline(__always) static func reluMinus1To1Value(_ x: Float) -> Float { min(max(x, -1), 1) }
        /// x · relu6(x + 3) / 6 (MobileNetV3).
        @inline(__always) static func hardSwishValue(_ x: Float) -> Float { x * min(max(x + 3, 0), 6) / 6 }
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

    /// Slices of the elements over threads (ESPCN's two TANH over 224² × 64 and × 32 values ran on one thread while
    /// the convolutions around them used two): each element alone, so the same bits at any thread count.
    func run(_ memory: TensorMemory) {
        memory.parallel.forEach(count, minimumPerThread: KernelConfig.elementwiseMinimumPerThread,
                                Slice(function: function, x: memory.floats(input), y: memory.floats(output)))
    }

    private struct Slice: ParallelLoop {
        let function: Function
        let x: UnsafeMutablePointer<Float>
        let y: UnsafeMutablePointer<Float>

        func run(_ range: Range<Int>) {
            let x = x, y = y
            // One loop per function, with nothing but the function's own arithmetic in its body, which LLVM
            // vectorizes (compare-and-select, exact IEEE operations: the same bits as element by element). The switch
            // inside one loop for every function kept it scalar: the selfie segmenter's eleven HARD_SWISH took 1.4 ms
            // of its 4.2 at one thread, its LOGISTIC through libm's expf 0.3 ms.
            switch function {
            case .relu: for i in range { y[i] = Function.reluValue(x[i]) }
            case .relu6: for i in range { y[i] = Function.relu6Value(x[i]) }
            case .reluMinus1To1: for i in range { y[i] = Function.reluMinus1To1Value(x[i]) }
            case .hardSwish: for i in range { y[i] = Function.hardSwishValue(x[i]) }
            case .logistic: for i in range { y[i] = Logistic.sigmoid(x[i]) }
            case .tanh: for i in range { y[i] = HyperbolicTangent.value(x[i]) }
            case .square: for i in range { y[i] = x[i] * x[i] }
            default:
                let function = function
                for i in range { y[i] = function(x[i]) }
            }
        }
    }
}

/// LOGISTIC as 1 / (1 + e^−x) through a polynomial e^r, as XNNPACK's vectorized sigmoid (which LiteRT runs) does,
/// rather than libm's `expf`: branch-free, so that a loop of it vectorizes. Within 2 ulp of the correctly rounded
/// sigmoid (`GatherKernelTests` checks it against Double); the same bits whatever the thread count or position.
enum Logistic {
    @inline(__always) static func sigmoid(_ x: Float) -> Float {
        // f = e^−z / (1 + e^−z) for z = |x| (no overflow), then 1 − f where x's sign bit is clear. Masks rather
        // than compares and selects: fewer instructions a value, and NaN needs no test of its own (it stays NaN
        // through every step, whatever its sign).
        let z = Float(bitPattern: x.bitPattern & 0x7FFF_FFFF)
        let e = exponentialOfNegative(z)
        let f = e / (e + 1)
        return x.bitPattern & 0x8000_0000 == 0 ? 1 - f : f
    }

    /// x · sigmoid(x) (SiLU, or swish: YOLO's activation, a LOGISTIC and a MUL after each convolution): the MUL
    /// kernel's product of the two, the same bits.
    @inline(__always) static func swish(_ x: Float) -> Float { x * sigmoid(x) }
}

/// TANH without libm's `tanhf`, branch-free so that a loop of it vectorizes (ESPCN's two TANH over 224² × 64 and
/// × 32 values went through `tanhf` one value at a time, three times LiteRT's whole operator). One exponential and
/// one division for every |x|: tanh|x| = −m / (m + 2) with m = e^−2|x| − 1, m from 2^n (e^t − 1) + (2^n − 1)
/// (n = round(−2|x| / ln 2), |t| ≤ ln 2 / 2), so that m never cancels; the numerator and the denominator are one
/// fused multiply-add each (1 ± 2^n is exact down to n = −23). An earlier form took both an odd series (below 0.4)
/// and (1 − e) / (1 + e) (above) and selected: 1.3 ns a value, 0.8 now (ESPCN's TANH over 224² × 32 alone 1.75 →
/// 1.36 ms; LiteRT's, with a table and a shorter polynomial, 0.87). Within 2 ulp of tanh in Double
/// (`GatherKernelTests`); the same bits whatever the thread count or position.
enum HyperbolicTangent {
    @inline(__always) static func value(_ x: Float) -> Float {
        let magnitude = Float(bitPattern: x.bitPattern & 0x7FFF_FFFF)
        // Past 13 ln 2 (9.0109) tanh rounds to 1; the clamp also keeps 2^n's exponent in range. NaN stays NaN (a
        // comparison with NaN is false).
        let z = magnitude > 9.010_913 ? 9.010_913 : magnitude
        let u = -2 * z
        // 1.5 · 2^23 + 127 rounds u / ln 2 to an integer n and leaves n + 127 in the low bits, whence 2^n by a shift
        // (as ``exponentialOfNegative(_:)``); t = u − n ln 2 in two parts (Cody–Waite).
        let magic: Float = 12_583_039
        let biased = multiplyAdd(u, 1.442_695_04, magic)
        let n = biased - magic
        var t = multiplyAdd(n, -0.693_145_75, u)
        t = multiplyAdd(n, -1.428_606_8e-6, t)
        // e^t − 1 = t + t² q(t), q's six Taylor terms pairwise (Estrin), truncation below 6e-9 on |t| ≤ ln 2 / 2.
        let t2 = t * t, t4 = t2 * t2
        var q = multiplyAdd(multiplyAdd(t, 1.0 / 120, 1.0 / 24), t2, multiplyAdd(t, 1.0 / 6, 0.5))
        q = multiplyAdd(multiplyAdd(t, 1.0 / 5040, 1.0 / 720), t4, q)
        let expm1t = multiplyAdd(t2, q, t)
        let scale = Float(bitPattern: biased.bitPattern &<< 23)
        let y = multiplyAdd(-scale, expm1t, 1 - scale) / multiplyAdd(scale, expm1t, 1 + scale)
        // y ≥ 0 (its sign bit cleared: −0 / 2 at x = 0) takes x's sign bit: −0 stays −0.
        return Float(bitPattern: y.bitPattern & 0x7FFF_FFFF | x.bitPattern & 0x8000_0000)
    }
}
