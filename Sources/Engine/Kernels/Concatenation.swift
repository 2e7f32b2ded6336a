import VisionTasksModelFormat

/// CONCATENATION along one axis (negative axes count from the end), of any element type. Quantized inputs whose
/// scale or zero point differ from the output's are requantized as LiteRT's builtin kernel does it (XNNPACK does not
/// take such a concatenation): value × (input scale / output scale) − zero point × that, in float, rounded half away
/// from zero, plus the output zero point, saturated.
struct ConcatenationKernel: Kernel {
    /// Per input: nil to copy, or its 256 possible stored bytes' requantized bytes (computed at load with the
    /// builtin's arithmetic, so that the run is a table lookup).
    let rescaling: [[UInt8]?]
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
            let signed = context.type(output) == .int8
            var rescaling: [[UInt8]?] = []
            for tensor in inputs {
                let q = try context.quantization(tensor)
                guard q != out else { rescaling.append(nil); continue }
                let scale = q.scale * (1 / out.scale), offset = -Float(q.zeroPoint) * scale
                rescaling.append((0..<256).map { byte in
                    let stored = signed ? Float(Int8(truncatingIfNeeded: byte)) : Float(byte)
                    let value = Int32(saturating: (stored * scale + offset).rounded()) &+ out.zeroPoint
                    return UInt8(truncatingIfNeeded: min(max(value, out.range.lowerBound), out.range.upperBound))
                })
            }
            self.rescaling = rescaling
        } else {
            rescaling = Array(repeating: nil, count: inputs.count)
        }
    }

    /// The outer rows over threads, each input's slice of a row copied (``StridedRuns``: an int8 U-Net's 16-byte
    /// slices went through a memcpy each) or mapped through its rescaling table.
    func run(_ memory: TensorMemory) {
        let rowBytes = chunks.reduce(0, +) * elementBytes
        // A float CONCATENATION's fused activation runs over the whole output after the copies, as before.
        if activation == .none {
            memory.parallel.forEach(outer, minimumPerThread: max(1, KernelConfig.elementwiseMinimumPerThread / max(rowBytes, 1)),
                                    Rows(kernel: self, memory: memory, rowBytes: rowBytes))
        } else {
            Rows(kernel: self, memory: memory, rowBytes: rowBytes).run(0..<outer)
            activation.apply(memory.floats(output), count: outer * rowBytes / 4)
        }
    }

    private struct Rows: ParallelLoop {
        let kernel: ConcatenationKernel
        let memory: TensorMemory
        let rowBytes: Int

        func run(_ rows: Range<Int>) {
            guard !rows.isEmpty else { return }
            let k = kernel, destination = memory.raw(k.output) + rows.lowerBound * rowBytes
            var column = 0
            for (index, (tensor, chunk)) in zip(k.inputs, k.chunks).enumerated() {
                let chunkBytes = chunk * k.elementBytes
                let source = UnsafeRawPointer(memory.raw(tensor)) + rows.lowerBound * chunkBytes
                if let table = k.rescaling[index] {
                    let from = source.assumingMemoryBound(to: UInt8.self)
                    let to = (destination + column).assumingMemoryBound(to: UInt8.self)
                    table.withUnsafeBufferPointer { table in
                        for o in 0..<rows.count {
                            for j in 0..<chunk { to[o &* rowBytes &+ j] = table[Int(from[o &* chunk &+ j])] }
                        }
                    }
                } else {
                    StridedRuns.copy(count: rows.count, runBytes: chunkBytes, from: source, sourceStride: chunkBytes,
                                     to: destination + column, destinationStride: rowBytes)
                }
                column += chunkBytes
            }
        }
    }
}

extension Activation: Equatable {}
