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
    }

    func run(_ memory: TensorMemory) {
        let out = outputQuantization
        let destination = memory.raw(output).assumingMemoryBound(to: UInt8.self)
        @inline(__always) func store(_ i: Int, _ value: Int32) {
            destination[i] = UInt8(truncatingIfNeeded: min(max(value, out.range.lowerBound), out.range.upperBound))
        }
        let source = memory.raw(input).assumingMemoryBound(to: UInt8.self)
        @inline(__always) func stored(_ i: Int) -> Int32 {
            inputSigned ? Int32(Int8(bitPattern: source[i])) : Int32(source[i])
        }
        switch arithmetic {
        case .flipSignBit:
            for i in 0..<count { destination[i] = source[i] ^ 0x80 }
        case let .fromFloat(inverseScale):
            let x = memory.floats(input)
            for i in 0..<count {
                let scaled = x[i] * inverseScale
                #if arch(arm64)
                let capped = scaled.isNaN ? 0 : min(scaled, 32767)
                #else
                let capped = scaled < 32767 ? scaled : 32767
                #endif
                let rounded = capped.rounded(.toNearestOrEven)
                let wide = rounded >= -32768 ? Int32(rounded) : -32768
                store(i, min(max(wide + out.zeroPoint, -32768), 32767))
            }
        case let .xnnpack(multiplier):
            for i in 0..<count {
                store(i, (((stored(i) - inputZeroPoint) &* multiplier &+ 128) >> 8) &+ out.zeroPoint)
            }
        case let .builtin(multiplier):
            let vectorEnd = count / 16 * 16
            for i in 0..<count {
                let d = stored(i) - inputZeroPoint
                store(i, (i < vectorEnd ? multiplier.vectorLoopForm(d) : multiplier(d)) &+ out.zeroPoint)
            }
        }
    }
}
