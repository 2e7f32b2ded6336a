import Foundation
import VisionTasksModelFormat

/// Element-wise functions of one uint8 or int8 input (LOGISTIC, TANH; RELU, RELU6, RELU_N1_TO_1): 256 possible
/// inputs, so a table made at load. LOGISTIC and TANH as XNNPACK makes the table: each stored value dequantized in
/// float, the function in double (sigmoid as e / (1 + e), saturated beyond ±100), rounded to float, times the float
/// reciprocal of the output scale plus the zero point, rounded half to even, saturated. The clamps as LiteRT's
/// builtin kernel computes them (see ``init(_:clamp:)``).
struct QuantizedLookupKernel: Kernel {
    enum Function: Sendable { case logistic, tanh }

    let input: Int
    let output: Int
    let count: Int
    /// Output byte for each input byte (as stored: uint8, or int8's bit pattern).
    let table: [UInt8]

    init(_ context: OperatorContext, function: Function) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        let type = try context.requireSameQuantizedType([output])
        count = context.graph.elementCount(input)
        guard context.graph.elementCount(output) == count else { throw context.fail("output size differs from the input's") }
        let q = try context.quantization(input), out = try context.quantization(output)
        table = (0...255).map { (byte: Int) -> UInt8 in
            let stored = type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
            let real = Float(stored - q.zeroPoint) * q.scale
            let y: Float
            switch function {
            case .logistic:
                let e = Foundation.exp(Double(real))
                y = real > 100 ? 1 : (real < -100 ? 0 : Float(e / (1 + e)))
            case .tanh:
                y = Float(Foundation.tanh(Double(real)))
            }
            let scaled = (y * (1 / out.scale) + Float(out.zeroPoint)).rounded(.toNearestOrEven)
            let quantized = min(max(Int32(saturating: scaled), out.range.lowerBound), out.range.upperBound)
            return UInt8(truncatingIfNeeded: min(max(quantized, out.range.lowerBound), out.range.upperBound))
        }
    }

    /// RELU, RELU6 and RELU_N1_TO_1 (`activation`) as LiteRT's builtin `QuantizedReluX` computes them, which is what
    /// LiteRT runs: XNNPACK's delegate takes no quantized RELU (tools/litert_kernel_sweeps.py's relu family records
    /// it). The converter writes a standalone RELU where it cannot fuse one (a MiDaS-like decoder's RELUs on residual
    /// sums), with its output quantized on its own range. The input minus its zero point, times input scale ÷ output
    /// scale (divided in float, as TFLite does, then its Q31 multiplier and shift), plus the output zero point,
    /// clamped to the activation's bounds (`CalculateActivationRangeQuantized`).
    init(_ context: OperatorContext, clamp activation: FusedActivation) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        let type = try context.requireSameQuantizedType([output])
        count = context.graph.elementCount(input)
        guard context.graph.elementCount(output) == count else { throw context.fail("output size differs from the input's") }
        let q = try context.quantization(input), out = try context.quantization(output)
        guard let bounds = out.builtinBounds(activation) else { throw context.fail("no clamp for \(activation)") }
        let multiplier = FixedPointMultiplier(Double(q.scale / out.scale))
        table = (0...255).map { (byte: Int) -> UInt8 in
            let stored = type == .int8 ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
            // Wrapping: with absurd scales the Q31 product saturates and the sum wraps as TFLite's int32 does; the
            // clamp below keeps the byte in range.
            let value = out.zeroPoint &+ multiplier(stored &- q.zeroPoint)
            return UInt8(truncatingIfNeeded: min(max(value, bounds.lowerBound), bounds.upperBound))
        }
    }

    func run(_ memory: TensorMemory) {
        let x = memory.raw(input).assumingMemoryBound(to: UInt8.self)
        let z = memory.raw(output).assumingMemoryBound(to: UInt8.self)
        table.withUnsafeBufferPointer { table in
            for i in 0..<count { z[i] = table[Int(x[i])] }
        }
    }
}
