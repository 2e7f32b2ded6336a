import Foundation
import VisionTasksModelFormat

/// The addresses of every tensor of a subgraph for one run, plus the shared scratch area.
///
/// Kernels are built once with tensor indices and packed weights; at run time they find their inputs and
/// outputs here. Unsafe pointers stay inside the engine.
struct TensorMemory {
    let addresses: UnsafePointer<UnsafeMutableRawPointer>
    let scratch: UnsafeMutableRawPointer
    /// How kernels may split their work.
    let parallel: Parallel

    @inline(__always) func floats(_ tensor: Int) -> UnsafeMutablePointer<Float> {
        addresses[tensor].assumingMemoryBound(to: Float.self)
    }

    @inline(__always) func raw(_ tensor: Int) -> UnsafeMutableRawPointer { addresses[tensor] }
}

/// One prepared operator.
protocol Kernel: Sendable {
    /// Bytes of scratch space the kernel needs while it runs (e.g. an im2col buffer).
    var scratchBytes: Int { get }
    /// Shapes the kernel gives outputs that the model leaves without one (a custom operator's outputs, sized by its
    /// options: TFLite_Detection_PostProcess), by tensor index.
    var outputShapes: [Int: [Int]] { get }
    func run(_ memory: TensorMemory)
}

extension Kernel {
    var scratchBytes: Int { 0 }
    var outputShapes: [Int: [Int]] { [:] }
}

/// The fused activation applied after an operator's arithmetic.
enum Activation: Sendable {
    case none, relu, relu6, reluMinus1To1, tanh

    init(_ fused: FusedActivation, operatorIndex: Int, name: String) throws(EngineError) {
        switch fused {
        case .none: self = .none
        case .relu: self = .relu
        case .relu6: self = .relu6
        case .reluN1To1: self = .reluMinus1To1
        case .tanh: self = .tanh
        case .signBit:
            throw .unsupportedOperator(name: name, operatorIndex: operatorIndex, reason: "fused SIGN_BIT activation")
        }
    }

    @inline(__always) func callAsFunction(_ x: Float) -> Float {
        switch self {
        case .none: return x
        case .relu: return max(x, 0)
        case .relu6: return min(max(x, 0), 6)
        case .reluMinus1To1: return min(max(x, -1), 1)
        case .tanh: return Float(Foundation.tanh(Double(x)))
        }
    }

    /// Applies the activation in place over `count` values.
    func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
        switch self {
        case .none: return
        case .relu: clamp(values, count, lower: 0, upper: .infinity)
        case .relu6: clamp(values, count, lower: 0, upper: 6)
        case .reluMinus1To1: clamp(values, count, lower: -1, upper: 1)
        case .tanh: for i in 0..<count { values[i] = self(values[i]) }
        }
    }

    private func clamp(_ values: UnsafeMutablePointer<Float>, _ count: Int, lower: Float, upper: Float) {
        // Compare-and-select per element; LLVM turns this loop into packed max/min.
        for i in 0..<count {
            let v = values[i]
            values[i] = v < lower ? lower : (v > upper ? upper : v)
        }
    }

    /// The activation of eight lanes at once.
    @inline(__always) func callAsFunction(_ v: SIMD8<Float>) -> SIMD8<Float> {
        switch self {
        case .none: return v
        case .relu, .relu6, .reluMinus1To1: return ActivationClamp(self)(v)
        case .tanh:
            var out = v
            for lane in 0..<8 { out[lane] = self(v[lane]) }
            return out
        }
    }

    /// The activation of sixteen lanes at once (the AVX-512 tiers' depthwise loops), lane for lane as on eight.
    @inline(__always) func callAsFunction(_ v: SIMD16<Float>) -> SIMD16<Float> {
        switch self {
        case .none: return v
        case .relu, .relu6, .reluMinus1To1: return ActivationClamp(self)(v)
        case .tanh:
            var out = v
            for lane in 0..<16 { out[lane] = self(v[lane]) }
            return out
        }
    }
}

/// A fused activation that is a clamp (none, ReLU, ReLU6, ReLU-1…1), applied to whole vectors in a kernel's epilogue
/// without branching on the activation; tanh is not a clamp, so kernels apply it in a pass of their own.
struct ActivationClamp: Sendable {
    let lower: SIMD8<Float>
    let upper: SIMD8<Float>

    init(_ activation: Activation) {
        switch activation {
        case .none, .tanh: (lower, upper) = (SIMD8(repeating: -.infinity), SIMD8(repeating: .infinity))
        case .relu: (lower, upper) = (SIMD8(repeating: 0), SIMD8(repeating: .infinity))
        case .relu6: (lower, upper) = (SIMD8(repeating: 0), SIMD8(repeating: 6))
        case .reluMinus1To1: (lower, upper) = (SIMD8(repeating: -1), SIMD8(repeating: 1))
        }
    }

    // A select per lane in the operand order of x86's max/min (first operand if the comparison holds, else the
    // second; NaN passes through): LLVM makes one vmaxps and one vminps of it. The mask-and-replace form became a
    // compare and a blend per bound inside the kernels' loops — four operations on the FMA ports instead of two —
    // and the stdlib's generic pointwiseMin/Max stay calls.
    @inline(__always) func callAsFunction(_ v: SIMD8<Float>) -> SIMD8<Float> {
        var result = v
        for lane in 0..<8 {
            let raised = lower[lane] > v[lane] ? lower[lane] : v[lane]
            result[lane] = upper[lane] < raised ? upper[lane] : raised
        }
        return result
    }

    /// Sixteen lanes (one zmm register on AVX-512), with the same selects: one vmaxps and one vminps there.
    @inline(__always) func callAsFunction(_ v: SIMD16<Float>) -> SIMD16<Float> {
        let lower = SIMD16(lowHalf: self.lower, highHalf: self.lower), upper = SIMD16(lowHalf: self.upper, highHalf: self.upper)
        var result = v
        for lane in 0..<16 {
            let raised = lower[lane] > v[lane] ? lower[lane] : v[lane]
            result[lane] = upper[lane] < raised ? upper[lane] : raised
        }
        return result
    }
}

/// Whether our SIMD8 micro-kernels (PackedGEMM, StemConvolution) are the fastest GEMM here: with AVX2 and FMA in the
/// target (a tuned x86-64 build), and on arm64. In a portable x86-64 build SIMD8<Float> is two SSE registers, the
/// 6 × 16 tile's twelve accumulators spill, and multiply-adds are not fused: convolutions then go to OpenBLAS, which
/// chooses AVX2 kernels at run time on a CPU that has them (pose detector, one thread: 29 → 17 ms; BENCHMARKS.md).
#if arch(x86_64) && !VISION_TASKS_FMA
let ownGEMMKernelsAreFast = false
#else
let ownGEMMKernelsAreFast = true
#endif
