import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// QUANTIZE: float32 to uint8/int8, or uint8/int8 to another scale, zero point or type — on the path LiteRT takes:
///
/// - From float (XNNPACK): x × (1 / scale) in float, capped at 32767 (NaN too on x86; NaN is 0 on arm64, as LiteRT's
///   kernels there convert it), rounded half to even, saturated to int16, zero point added, saturated to int16 and to
///   the type.
/// - Same type, input scale / output scale (float) in [1/256, 128] (XNNPACK): the ratio as an 8-bit-fraction
///   multiplier, ((x − zero point) × m + 128) >> 8, plus the output zero point, saturated.
/// - Otherwise (uint8 ↔ int8 always; LiteRT's builtin `Requantize`): TFLite's ``FixedPointMultiplier`` of the double
///   ratio, which its x86 build applies with half-up rounding in its 16-element vector loop and with gemmlowp's
///   rounding on the tail past the last whole 16.
struct QuantizeKernel: Kernel {
    enum Arithmetic: Sendable {
        /// uint8 ↔ int8 with the same scale and the zero point moved by 128: the builtin's arithmetic gives exactly
        /// the value with its top bit flipped (the multiplier of a ratio of 1 is exact), which is what this does.
        case flipSignBit
        case fromFloat(inverseScale: Float)
        case xnnpack(multiplier: Int32)
        case builtin(FixedPointMultiplier)
    }

    let input: Int
    let output: Int
    let count: Int
    let inputSigned: Bool
    let inputZeroPoint: Int32
    let outputQuantization: Quantization
    let arithmetic: Arithmetic
    /// From bytes to bytes, every output is a function of its input byte: the arithmetic below made into tables at
    /// load, looked up 32 bytes a step (``ByteLookup``, as the quantized LOGISTIC's): `body` for the elements before
    /// `bodyEnd`, `tail` past it (the builtin's vector loop and its tail round differently). Nil from float.
    let tables: (body: ByteLookup, tail: ByteLookup, bodyEnd: Int)?
    let loop: ByteLookupLoop?

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        count = context.graph.elementCount(input)
        guard context.graph.elementCount(output) == count else { throw context.fail("output size differs from the input's") }
        let out = try context.quantization(output)
        outputQuantization = out
        let sourceType = context.type(input)
        inputSigned = sourceType == .int8
        switch sourceType {
        case .float32:
            inputZeroPoint = 0
            arithmetic = .fromFloat(inverseScale: 1 / out.scale)
        case .uint8, .int8:
            let q = try context.quantization(input)
            inputZeroPoint = q.zeroPoint
            let ratio = q.scale / out.scale
            let shift = context.type(output) == .int8 ? q.zeroPoint - out.zeroPoint : out.zeroPoint - q.zeroPoint
            if sourceType != context.type(output), q.scale == out.scale, shift == 128 {
                arithmetic = .flipSignBit
            } else if sourceType == context.type(output), ratio >= 1 / 256, ratio <= 128 {
                arithmetic = .xnnpack(multiplier: Int32((256 * ratio).rounded(.toNearestOrEven)))
            } else {
                arithmetic = .builtin(FixedPointMultiplier(Double(q.scale) / Double(out.scale)))
            }
        default:
            throw context.unsupported("quantize from \(sourceType.name)")
        }
        loop = context.kernels.byteLookupLoop
        if case .fromFloat = arithmetic {
            tables = nil
        } else {
            // YOLOv8n-like int8's requantization of its 2,100 × 80 class scores took 0.46 ms at one thread element by
            // element through the 64-bit fixed-point steps, LiteRT's 0.29 whole (AVX2 host).
            let (arithmetic, inputSigned, inputZeroPoint, out) = (arithmetic, inputSigned, inputZeroPoint, out)
            func table(vectorLoop: Bool) -> ByteLookup {
                ByteLookup { byte in
                    Self.requantized(byte, arithmetic, inputSigned: inputSigned, inputZeroPoint: inputZeroPoint, out, vectorLoop: vectorLoop)
                }
            }
            if case .builtin = arithmetic {
                tables = (table(vectorLoop: true), table(vectorLoop: false), count / 16 * 16)
            } else {
                let body = table(vectorLoop: true)
                tables = (body, body, count)
            }
        }
    }

    /// One stored byte of the input requantized, as LiteRT computes it (see the type's description); `vectorLoop`: the
    /// builtin's 16-element vector loop rather than its tail.
    private static func requantized(_ byte: UInt8, _ arithmetic: Arithmetic, inputSigned: Bool, inputZeroPoint: Int32,
                                    _ out: Quantization, vectorLoop: Bool) -> UInt8 {
        let stored = inputSigned ? Int32(Int8(bitPattern: byte)) : Int32(byte)
        let value: Int32
        switch arithmetic {
        case .flipSignBit: return byte ^ 0x80
        case .fromFloat: return 0
        case let .xnnpack(multiplier): value = (((stored - inputZeroPoint) &* multiplier &+ 128) >> 8) &+ out.zeroPoint
        case let .builtin(multiplier):
            let d = stored - inputZeroPoint
            value = (vectorLoop ? multiplier.vectorLoopForm(d) : multiplier(d)) &+ out.zeroPoint
        }
        return UInt8(truncatingIfNeeded: min(max(value, out.range.lowerBound), out.range.upperBound))
    }

    func run(_ memory: TensorMemory) {
        let destination = memory.raw(output).assumingMemoryBound(to: UInt8.self)
        if let tables {
            // Each byte its own lookup: slices on several threads give the bytes of one.
            memory.parallel.forEach(count, minimumPerThread: 16_384, Tables(
                x: memory.raw(input).assumingMemoryBound(to: UInt8.self), z: destination, tables: tables, loop: loop))
            return
        }
        guard case let .fromFloat(inverseScale) = arithmetic else { return }
        let out = outputQuantization
        memory.parallel.forEach(count, minimumPerThread: KernelConfig.elementwiseMinimumPerThread, FromFloat(
            x: memory.floats(input), destination: destination, inverseScale: inverseScale, zeroPoint: out.zeroPoint, range: out.range))
    }

    private struct Tables: ParallelLoop {
        let x: UnsafeMutablePointer<UInt8>
        let z: UnsafeMutablePointer<UInt8>
        let tables: (body: ByteLookup, tail: ByteLookup, bodyEnd: Int)
        let loop: ByteLookupLoop?

        func run(_ range: Range<Int>) {
            let split = min(max(tables.bodyEnd, range.lowerBound), range.upperBound)
            apply(tables.body, range.lowerBound..<split)
            apply(tables.tail, split..<range.upperBound)
        }

        private func apply(_ lookup: ByteLookup, _ range: Range<Int>) {
            guard !range.isEmpty else { return }
            lookup.apply(x + range.lowerBound, z + range.lowerBound, count: range.count, through: loop)
        }
    }

    /// Float to bytes over a slice of the elements: each alone, so the same bytes at any thread count.
    private struct FromFloat: ParallelLoop {
        let x: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<UInt8>
        let inverseScale: Float
        let zeroPoint: Int32
        let range: ClosedRange<Int32>

        func run(_ slice: Range<Int>) {
            let x = x, destination = destination, inverseScale = inverseScale, zeroPoint = zeroPoint
            let lower = range.lowerBound, upper = range.upperBound
            // Branch-free, so that the loop vectorizes (YOLOv8n-like int8's QUANTIZE ran 2.8 × LiteRT's time one
            // value at a time through `Int32(Float)`'s range check): capped to [−32768, 32767] in float, then rounded
            // half to even by adding 1.5 · 2²³ — every value of that range then lies in [2²³, 2²⁴), where a float's
            // step is 1, so the addition rounds as `rounded(.toNearestOrEven)` does and the integer is in the low bits.
            for i in slice {
                let scaled = x[i] * inverseScale
                #if arch(arm64)
                let capped = scaled.isNaN ? 0 : min(scaled, 32767)
                #else
                let capped = scaled < 32767 ? scaled : 32767
                #endif
                let floored = capped > -32768 ? capped : -32768
                let wide = Int32(bitPattern: (floored + 12_582_912).bitPattern) &- 0x4B40_0000
                let value = min(max(wide &+ zeroPoint, -32768), 32767)
                destination[i] = UInt8(truncatingIfNeeded: min(max(value, lower), upper))
            }
        }
    }
}
