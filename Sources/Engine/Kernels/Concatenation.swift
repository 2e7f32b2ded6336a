import VisionTasksModelFormat

/// CONCATENATION along one axis (negative axes count from the end), of any element type. Quantized inputs whose
/// scale or zero point differ from the output's are requantized as LiteRT's builtin kernel does it (XNNPACK does not
/// take such a concatenation): value × (input scale / output scale) − zero point × that, in float, rounded half away
/// from zero, plus the output zero point, saturated.
struct ConcatenationKernel: Kernel {
    /// Per input: nil to copy, or the float scale and offset that map its stored values to the output's.
    let rescaling: [(scale: Float, offset: Float)?]
    let outputQuantization: Quantization?
    let inputs: [Int]
    let output: Int
    /// Per input, the contiguous chunk it contributes per outer index (its axis size × inner size).
    let chunks: [Int]
    let outer: Int
    let elementBytes: Int
    let activation: Activation

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .concatenation(axisValue, fused) = context.options else { throw context.fail("missing ConcatenationOptions") }
        output = try context.output(0)
        inputs = context.inputs
        guard !inputs.isEmpty, inputs.allSatisfy({ $0 >= 0 }) else { throw context.fail("missing inputs") }
        let outputShape = context.shape(output)
        let rank = outputShape.count
        let axis = Int(axisValue) < 0 ? Int(axisValue) + rank : Int(axisValue)
        guard axis >= 0, axis < rank else { throw context.fail("axis \(axisValue) for rank \(rank)") }
        for tensor in inputs where context.type(tensor) != context.type(output) { throw context.fail("mixed types") }
        let inner = outputShape[(axis + 1)...].reduce(1, *)
        var total = 0
        var chunks: [Int] = []
        for tensor in inputs {
            let shape = context.shape(tensor)
            guard shape.count == rank, (0..<rank).allSatisfy({ $0 == axis || shape[$0] == outputShape[$0] }) else {
                throw context.fail("input \(shape) does not fit output \(outputShape) on axis \(axis)")
            }
            total += shape[axis]
            chunks.append(shape[axis] * inner)
        }
        guard total == outputShape[axis] else { throw context.fail("axis sizes add to \(total), not \(outputShape[axis])") }
        self.chunks = chunks
        outer = outputShape[..<axis].reduce(1, *)
        elementBytes = context.type(output).byteSize ?? 4
        activation = try Activation(fused, operatorIndex: context.index, name: context.name)
        if activation != .none { try context.requireFloat([output]) }
        if context.type(output).isQuantizedInteger {
            let out = try context.quantization(output)
            outputQuantization = out
            var rescaling: [(scale: Float, offset: Float)?] = []
            for tensor in inputs {
                let q = try context.quantization(tensor)
                if q == out {
                    rescaling.append(nil)
                } else {
                    let scale = q.scale * (1 / out.scale)
                    rescaling.append((scale, -Float(q.zeroPoint) * scale))
                }
            }
            self.rescaling = rescaling
        } else {
            outputQuantization = nil
            rescaling = Array(repeating: nil, count: inputs.count)
        }
    }

    func run(_ memory: TensorMemory) {
        let destination = memory.raw(output)
        let rowBytes = chunks.reduce(0, +) * elementBytes
        var column = 0
        for (tensor, chunk) in zip(inputs, chunks) {
            let source = memory.raw(tensor)
            for o in 0..<outer {
                (destination + o * rowBytes + column).copyMemory(from: source + o * chunk * elementBytes, byteCount: chunk * elementBytes)
            }
            column += chunk * elementBytes
        }
        for (index, tensor) in inputs.enumerated() {
            guard let rescale = rescaling[index], let out = outputQuantization else { continue }
            let start = chunks[..<index].reduce(0, +)
            if out.range.lowerBound < 0 {
                requantize(memory.raw(tensor).assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self) + start,
                           chunk: chunks[index], rowLength: rowBytes, rescale, out)
            } else {
                requantize(memory.raw(tensor).assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self) + start,
                           chunk: chunks[index], rowLength: rowBytes, rescale, out)
            }
        }
        if activation != .none { activation.apply(memory.floats(output), count: outer * rowBytes / 4) }
    }

    private func requantize<Element: QuantizedElement>(_ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>,
                                                       chunk: Int, rowLength: Int, _ rescale: (scale: Float, offset: Float),
                                                       _ out: Quantization) {
        for o in 0..<outer {
            for j in 0..<chunk {
                let value = Int32(saturating: (Float(source[o * chunk + j]) * rescale.scale + rescale.offset).rounded()) &+ out.zeroPoint
                destination[o * rowLength + j] = Element(truncatingIfNeeded: min(max(value, out.range.lowerBound), out.range.upperBound))
            }
        }
    }
}

extension Activation: Equatable {}
