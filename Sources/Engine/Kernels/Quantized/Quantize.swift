import VisionTasksModelFormat

/// QUANTIZE: float32 to uint8/int8, or uint8/int8 to another scale, zero point or type.
///
/// From float (XNNPACK's convert): x × (1 / scale) in float, clamped, rounded half to even, zero point added.
/// Between quantized types (LiteRT's builtin `Requantize`; XNNPACK does not take it): the input less its zero point
/// through TFLite's ``FixedPointMultiplier`` of input scale / output scale (in double), the output zero point added,
/// saturated — with the shortcut TFLite takes when only the zero point moves by 128 between uint8 and int8 (the
/// sign bit flipped), which the multiplier also gives.
struct QuantizeKernel: Kernel {
    let input: Int
    let output: Int
    let count: Int
    let sourceType: TensorType
    let inverseScale: Float
    let outputQuantization: Quantization
    let inputZeroPoint: Int32
    let multiplier: FixedPointMultiplier

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        count = context.graph.elementCount(input)
        guard context.graph.elementCount(output) == count else { throw context.fail("output size differs from the input's") }
        sourceType = context.type(input)
        let out = try context.quantization(output)
        outputQuantization = out
        inverseScale = 1 / out.scale
        switch sourceType {
        case .float32:
            inputZeroPoint = 0
            multiplier = FixedPointMultiplier(1)
        case .uint8, .int8:
            let q = try context.quantization(input)
            inputZeroPoint = q.zeroPoint
            multiplier = FixedPointMultiplier(Double(q.scale) / Double(out.scale))
        default:
            throw context.unsupported("quantize from \(sourceType.name)")
        }
    }

    func run(_ memory: TensorMemory) {
        let out = outputQuantization
        let destination = memory.raw(output).assumingMemoryBound(to: UInt8.self)
        let lower = Float(out.range.lowerBound - out.zeroPoint), upper = Float(out.range.upperBound - out.zeroPoint)
        switch sourceType {
        case .float32:
            let x = memory.floats(input)
            for i in 0..<count {
                let scaled = min(max(x[i] * inverseScale, lower), upper)
                destination[i] = UInt8(truncatingIfNeeded: Int32(scaled.rounded(.toNearestOrEven)) + out.zeroPoint)
            }
        default:
            let source = memory.raw(input).assumingMemoryBound(to: UInt8.self)
            let signedInput = sourceType == .int8
            for i in 0..<count {
                let stored = signedInput ? Int32(Int8(bitPattern: source[i])) : Int32(source[i])
                let value = multiplier(stored - inputZeroPoint) + out.zeroPoint
                destination[i] = UInt8(truncatingIfNeeded: min(max(value, out.range.lowerBound), out.range.upperBound))
            }
        }
    }
}
