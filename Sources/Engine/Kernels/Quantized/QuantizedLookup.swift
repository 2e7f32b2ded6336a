import Foundation
import VisionTasksEngineSIMD
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
    /// Output byte for each input byte (as stored: uint8, or int8's bit pattern), applied 32 bytes a lookup where
    /// the tier has one (`ByteLookup`).
    let lookup: ByteLookup
    /// The C loop of a higher tier than the build's, if the process runs one (``KernelConfig/byteLookupLoop``).
    let loop: ByteLookupLoop?

    /// The one input and output every table maps between: quantized, of one type and size.
    private struct Operands {
        let input: Int
        let output: Int
        let count: Int
        let signed: Bool
        let inputQuantization: Quantization
        let outputQuantization: Quantization

        init(_ context: OperatorContext) throws(EngineError) {
            input = try context.input(0)
            output = try context.output(0)
            signed = try context.requireSameQuantizedType([output]) == .int8
            count = context.graph.elementCount(input)
            guard context.graph.elementCount(output) == count else { throw context.fail("output size differs from the input's") }
            inputQuantization = try context.quantization(input)
            outputQuantization = try context.quantization(output)
        }

        /// The value a table index stands for: the byte as stored (uint8, or int8's bit pattern).
        func stored(_ byte: Int) -> Int32 {
            signed ? Int32(Int8(truncatingIfNeeded: byte)) : Int32(byte)
        }
    }

    private init(_ operands: Operands, table: [UInt8], loop: ByteLookupLoop?) {
        input = operands.input
        output = operands.output
        count = operands.count
        lookup = ByteLookup { table[Int($0)] }
        self.loop = loop
    }

    init(_ context: OperatorContext, function: Function) throws(EngineError) {
        let operands = try Operands(context)
        let q = operands.inputQuantization, out = operands.outputQuantization
        let table = (0...255).map { (byte: Int) -> UInt8 in
            let stored = operands.stored(byte)
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
        self.init(operands, table: table, loop: context.kernels.byteLookupLoop)
    }

    /// RELU, RELU6 and RELU_N1_TO_1 (`activation`) as LiteRT's builtin `QuantizedReluX` computes them, which is what
    /// LiteRT runs: XNNPACK's delegate takes no quantized RELU (tools/litert_kernel_sweeps.py's relu family records
    /// it). The converter writes a standalone RELU where it cannot fuse one (a MiDaS-like decoder's RELUs on residual
    /// sums), with its output quantized on its own range. The input minus its zero point, times input scale ÷ output
    /// scale (divided in float, as TFLite does, then its Q31 multiplier and shift), plus the output zero point,
    /// clamped to the activation's bounds (`CalculateActivationRangeQuantized`).
    init(_ context: OperatorContext, clamp activation: FusedActivation) throws(EngineError) {
        let operands = try Operands(context)
        let q = operands.inputQuantization, out = operands.outputQuantization
        guard let bounds = out.builtinBounds(activation) else { throw context.fail("no clamp for \(activation)") }
        let multiplier = FixedPointMultiplier(Double(q.scale / out.scale))
        let table = (0...255).map { (byte: Int) -> UInt8 in
            let stored = operands.stored(byte)
            // Wrapping: with absurd scales the Q31 product saturates and the sum wraps as TFLite's int32 does; the
            // clamp below keeps the byte in range.
            let value = out.zeroPoint &+ multiplier(stored &- q.zeroPoint)
            return UInt8(truncatingIfNeeded: min(max(value, bounds.lowerBound), bounds.upperBound))
        }
        self.init(operands, table: table, loop: context.kernels.byteLookupLoop)
    }

    /// HARD_SWISH on uint8/int8 as LiteRT computes it: XNNPACK's delegate does not take a quantized HARD_SWISH (a
    /// converted MobileNetV3-Large's int8 graph falls into 22 delegate partitions around its 21), and on x86 TFLite's
    /// builtin kernel runs the reference arithmetic for every element (optimized_ops' NEON loop is compiled for ARM
    /// alone: arm_neon_sse.h's saturating shifts are wrong for a zero shift). That arithmetic, in int16 fixed point
    /// (`reference_ops::HardSwish`, multipliers from `HardSwishPrepare`): the input on a 2⁷-finer scale; once
    /// multiplied onto the output scale, and once onto a scale where 3 is 2¹⁵ (a "relu-ish" value saturated to
    /// [−1, 1], then moved to [0, 1]); their product with a truncating doubling high multiply, shifted right onto
    /// the output scale, plus the output zero point, saturated. LiteRT refuses an output multiplier above 1, so do we.
    init(hardSwish context: OperatorContext) throws(EngineError) {
        let operands = try Operands(context)
        let q = operands.inputQuantization, out = operands.outputQuantization
        // In Float, as TFLite computes them, before QuantizeMultiplier takes them as double.
        let hiresInputScale: Float = (1 / 128) * q.scale
        let outputMultiplier = FixedPointMultiplier(Double(hiresInputScale / out.scale))
        let reluishMultiplier = FixedPointMultiplier(Double(hiresInputScale / (3 / 32768)))
        guard outputMultiplier.shift <= 0 else {
            throw context.unsupported("output multiplier \(hiresInputScale / out.scale) above 1 (LiteRT refuses it too)")
        }
        let outputFixed = Int16Arithmetic.downscale(outputMultiplier.multiplier)
        let reluishFixed = Int16Arithmetic.downscale(reluishMultiplier.multiplier)
        let reluishExponent = reluishMultiplier.shift
        let table = (0...255).map { (byte: Int) -> UInt8 in
            typealias A = Int16Arithmetic
            let stored = operands.stored(byte)
            let value = Int16(truncatingIfNeeded: stored &- q.zeroPoint)
            let hires = Int16(truncatingIfNeeded: Int32(value) &* (1 << 7))
            let preshiftOutput = A.roundingDoublingHighMultiply(hires, outputFixed)
            var reluish = hires
            if reluishExponent > 0 { reluish = A.saturatingLeftShift(reluish, reluishExponent - 1) }
            reluish = A.roundingDoublingHighMultiply(reluish, reluishFixed)
            if reluishExponent > 0 { reluish = A.saturatingLeftShift(reluish, 1) }
            if reluishExponent < 0 { reluish = A.roundingDivideByPowerOfTwo(reluish, -reluishExponent) }
            reluish = Int16(truncatingIfNeeded: (Int32(reluish) + (1 << 15)) >> 1)
            let product = A.doublingHighMultiply(reluish, preshiftOutput)
            let shifted = A.roundingDivideByPowerOfTwo(product, -outputMultiplier.shift)
            let result = Int32(Int16(truncatingIfNeeded: Int32(shifted) &+ out.zeroPoint))
            return UInt8(truncatingIfNeeded: min(max(result, out.range.lowerBound), out.range.upperBound))
        }
        self.init(operands, table: table, loop: context.kernels.byteLookupLoop)
    }

    func run(_ memory: TensorMemory) {
        let x = memory.raw(input).assumingMemoryBound(to: UInt8.self)
        let z = memory.raw(output).assumingMemoryBound(to: UInt8.self)
        // Each byte its own lookup, so slices on several threads give the bytes of one. EfficientDet-Lite0's int8
        // LOGISTIC over its 1.7 million class scores took about 1 ms on one thread byte by byte (AVX2 host), LiteRT's
        // 0.34 ms at one thread and 0.16 ms at two (XNNPACK's `vpshufb` table, split over threads too); below some
        // 16 K bytes a second thread costs more to wake than it saves.
        memory.parallel.forEach(count, minimumPerThread: 16_384, Slice(x: x, z: z, lookup: lookup, loop: loop))
    }

    private struct Slice: ParallelLoop {
        let x: UnsafeMutablePointer<UInt8>
        let z: UnsafeMutablePointer<UInt8>
        let lookup: ByteLookup
        let loop: ByteLookupLoop?

        func run(_ range: Range<Int>) {
            lookup.apply(x + range.lowerBound, z + range.lowerBound, count: range.count, through: loop)
        }
    }
}

/// gemmlowp's and TFLite's int16 fixed-point steps, as `reference_ops::HardSwish` uses them: each result stored back
/// into an int16 as C++ stores it (truncating), whatever the shift amounts a file's scales give.
enum Int16Arithmetic {
    /// `DownScaleInt32ToInt16Multiplier`: a Q31 multiplier rounded to Q15.
    static func downscale(_ multiplier: Int32) -> Int16 {
        guard multiplier < Int32.max - (1 << 15) else { return .max }
        return Int16(truncatingIfNeeded: (max(multiplier, 0) + (1 << 15)) >> 16)
    }

    /// gemmlowp's SaturatingRoundingDoublingHighMul on int16: rounded half away from zero.
    static func roundingDoublingHighMultiply(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == .min { return .max }
        let product = Int32(a) * Int32(b)
        let nudge: Int32 = product >= 0 ? 1 << 14 : 1 - (1 << 14)
        return Int16(truncatingIfNeeded: (product + nudge) / (1 << 15))
    }

    /// TFLite's SaturatingDoublingHighMul: truncated toward zero (it cancels the bias of the rounding one above).
    static func doublingHighMultiply(_ a: Int16, _ b: Int16) -> Int16 {
        if a == b && a == .min { return .max }
        return Int16(truncatingIfNeeded: (Int32(a) * Int32(b)) / (1 << 15))
    }

    /// TFLite's SaturatingLeftShift: value × 2^amount saturated to int16.
    static func saturatingLeftShift(_ value: Int16, _ amount: Int) -> Int16 {
        let shifted = Int64(value) << Int64(min(amount, 40))
        return Int16(min(max(shifted, Int64(Int16.min)), Int64(Int16.max)))
    }

    /// gemmlowp's RoundingDivideByPOT on int16 (half away from zero); its mask and threshold truncated to int16 as
    /// the template stores them, so shifts of 16 and more behave as TFLite's do.
    static func roundingDivideByPowerOfTwo(_ x: Int16, _ exponent: Int) -> Int16 {
        guard exponent > 0 else { return x }
        let e = min(exponent, 31)
        let mask = Int16(truncatingIfNeeded: (Int64(1) << e) - 1)
        let remainder = x & mask
        let threshold = Int16(truncatingIfNeeded: Int32(mask >> 1) + (x < 0 ? 1 : 0))
        let shifted = Int16(truncatingIfNeeded: Int32(x) >> Int32(e))
        return Int16(truncatingIfNeeded: Int32(shifted) + (remainder > threshold ? 1 : 0))
    }
}
