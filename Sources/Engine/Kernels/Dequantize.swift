import VisionTasksModelFormat

/// DEQUANTIZE to float32: from float16, or from int8/uint8/int16 with per-tensor or per-channel affine parameters.
/// Usually folded at load (the float models keep fp16 weights behind it).
struct DequantizeKernel: Kernel {
    let input: Int
    let output: Int
    let count: Int
    let sourceType: TensorType
    let scales: [Float]
    let zeroPoints: [Float]
    /// Elements sharing one scale (the product of the dimensions after the quantized one).
    let channelStride: Int

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([output])
        sourceType = context.type(input)
        count = context.graph.elementCount(input)
        guard count == context.graph.elementCount(output) else { throw context.fail("input and output sizes differ") }
        switch sourceType {
        case .float16:
            scales = [1]
            zeroPoints = [0]
            channelStride = max(count, 1)
        case .int8, .uint8, .int16:
            guard let q = context.graph.quantization[input], !q.scale.isEmpty, q.scale.count == q.zeroPoint.count else {
                throw context.fail("quantized input without scales")
            }
            let shape = context.shape(input)
            let dimension = Int(q.quantizedDimension)
            if q.scale.count > 1 {
                guard dimension >= 0, dimension < shape.count, shape[dimension] == q.scale.count else {
                    throw context.fail("\(q.scale.count) scales for dimension \(dimension) of \(shape)")
                }
                channelStride = shape[(dimension + 1)...].reduce(1, *)
            } else {
                channelStride = max(count, 1)
            }
            scales = q.scale
            zeroPoints = q.zeroPoint.map(Float.init)
        default:
            throw context.unsupported("dequantize from \(sourceType.name)")
        }
    }

    func run(_ memory: TensorMemory) {
        let source = memory.raw(input), y = memory.floats(output)
        let channels = scales.count
        for i in 0..<count {
            let c = (i / channelStride) % channels
            let value: Float
            switch sourceType {
            case .float16: value = Float(Float16(bitPattern: source.load(fromByteOffset: 2 * i, as: UInt16.self)))
            case .int8: value = Float(source.load(fromByteOffset: i, as: Int8.self))
            case .uint8: value = Float(source.load(fromByteOffset: i, as: UInt8.self))
            default: value = Float(source.load(fromByteOffset: 2 * i, as: Int16.self))
            }
            y[i] = (value - zeroPoints[c]) * scales[c]
        }
    }
}
