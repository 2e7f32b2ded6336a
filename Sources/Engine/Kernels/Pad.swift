import VisionTasksModelFormat

/// PAD and PADV2: constant padding (zero, or PADV2's scalar) given as a constant [rank, 2] tensor. On float32
/// tensors and on uint8/int8 ones, where "zero" is the zero point (TFLite keeps the input's quantization on the
/// output) and PADV2's value is stored already quantized.
struct PadKernel: Kernel {
    let input: Int
    let output: Int
    let inputShape: [Int]
    let outputShape: [Int]
    let before: [Int]
    let value: Float
    /// Bytes per element (4 for float32, 1 for uint8/int8) and the byte a quantized pad writes.
    let elementBytes: Int
    let quantizedFill: UInt8
    /// Element strides of the output.
    let outputStrides: [Int]

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        if context.isQuantized {
            _ = try context.requireSameQuantizedType([output])
            let q = try context.quantization(input)
            guard q == (try context.quantization(output)) else { throw context.unsupported("output quantization differs from the input's") }
            elementBytes = 1
            if context.hasInput(2) {
                let values = try context.constantQuantizedValues(2)
                guard values.count == 1 else { throw context.fail("PADV2 value must be one element") }
                quantizedFill = UInt8(truncatingIfNeeded: values[0])
            } else {
                quantizedFill = UInt8(truncatingIfNeeded: q.zeroPoint)
            }
        } else {
            try context.requireFloat([input, output])
            elementBytes = 4
            quantizedFill = 0
        }
        let inputShape = context.shape(input)
        self.inputShape = inputShape
        let paddings = try context.constantIntegers(1)
        guard paddings.count == 2 * inputShape.count, paddings.allSatisfy({ $0 >= 0 }) else {
            throw context.unsupported("paddings \(paddings) for rank \(inputShape.count) (negative padding is not supported)")
        }
        before = stride(from: 0, to: paddings.count, by: 2).map { paddings[$0] }
        // Paddings are the file's values (up to Int64.max): the padded sizes are summed with checks.
        let arithmetic = context.arithmetic
        var outputShape: [Int] = []
        for d in inputShape.indices {
            let widened = try arithmetic.add(inputShape[d], paddings[2 * d], "padded dimension \(d)")
            outputShape.append(try arithmetic.add(widened, paddings[2 * d + 1], "padded dimension \(d)"))
        }
        self.outputShape = outputShape
        try context.expect(outputShape, forOutput: 0)
        value = context.hasInput(2) && elementBytes == 4 ? (try context.constantFloats(2).first ?? 0) : 0
        outputStrides = try arithmetic.strides(outputShape, "output")
    }

    /// Whether the PAD only appends zeros after the last dimension's values (a channel widening of NHWC).
    var appendsZeroChannels: Bool {
        value == 0 && elementBytes == 4 && !inputShape.isEmpty && before.allSatisfy { $0 == 0 }
            && inputShape.dropLast() == outputShape.dropLast() && inputShape.last! > 0
    }

    func run(_ memory: TensorMemory) {
        let source = memory.raw(input), destination = memory.raw(output)
        if elementBytes == 4 {
            memory.floats(output).update(repeating: value, count: outputShape.reduce(1, *))
        } else {
            destination.initializeMemory(as: UInt8.self, repeating: quantizedFill, count: outputShape.reduce(1, *))
        }
        let rank = inputShape.count
        guard rank > 0, inputShape.allSatisfy({ $0 > 0 }) else { return }
        // Trailing dimensions without padding are contiguous in both tensors: copy them as one run
        // (an image padded in H and W copies whole rows of W × C, not C floats at a time).
        var inner = rank - 1
        while inner > 0, before[inner] == 0, inputShape[inner] == outputShape[inner] { inner -= 1 }
        let runLength = inputShape[inner...].reduce(1, *)
        let runStart = before[inner] * outputShape[(inner + 1)...].reduce(1, *)
        let runs = inputShape[..<inner].reduce(1, *)
        // The index counter lives on the stack: invokes allocate nothing.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(inner, 1)) { index in
            index.initialize(repeating: 0)
            for run in 0..<runs {
                var offset = runStart
                for d in 0..<inner { offset += (index[d] + before[d]) * outputStrides[d] }
                (destination + offset * elementBytes).copyMemory(from: source + run * runLength * elementBytes, byteCount: runLength * elementBytes)
                var d = inner - 1
                while d >= 0 {
                    index[d] += 1
                    if index[d] < inputShape[d] { break }
                    index[d] = 0
                    d -= 1
                }
            }
        }
    }
}
