import VisionTasksModelFormat

/// MEAN on uint8 or int8 over the spatial axes of an NHWC tensor (what converters make of global average pooling):
/// the sum less the zero point, requantized with input scale / (output scale × count).
struct QuantizedMeanKernel<Element: QuantizedElement>: Kernel {
    let input: Int
    let output: Int
    let outer: Int
    let reduced: Int
    let inner: Int
    let zeroPoint: Int32
    let scale: Float
    let requantization: Requantization

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        _ = try context.requireSameQuantizedType([output])
        let shape = context.shape(input)
        let axes = Set(try context.constantIntegers(1).map { $0 < 0 ? $0 + shape.count : $0 })
        guard !axes.isEmpty, axes.allSatisfy({ (0..<shape.count).contains($0) }) else { throw context.fail("axes \(axes) of \(shape)") }
        let sorted = axes.sorted()
        guard sorted.last! - sorted.first! + 1 == sorted.count else {
            throw context.unsupported("mean over axes \(sorted) that are not adjacent")
        }
        outer = shape[..<sorted.first!].reduce(1, *)
        reduced = shape[sorted.first!...sorted.last!].reduce(1, *)
        inner = shape[(sorted.last! + 1)...].reduce(1, *)
        guard context.graph.elementCount(output) == outer * inner else { throw context.fail("output size") }
        let q = try context.quantization(input), out = try context.quantization(output)
        zeroPoint = q.zeroPoint
        scale = q.scale / (out.scale * Float(max(reduced, 1)))
        requantization = Requantization(output: out, bounds: out.range)
    }

    func run(_ memory: TensorMemory) {
        let x = memory.raw(input).assumingMemoryBound(to: Element.self)
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        for o in 0..<outer {
            for i in 0..<inner {
                var sum: Int32 = 0
                for r in 0..<reduced { sum &+= Int32(x[(o * reduced + r) * inner + i]) - zeroPoint }
                z[o * inner + i] = Element(truncatingIfNeeded: requantization(sum, scale: scale))
            }
        }
    }
}
