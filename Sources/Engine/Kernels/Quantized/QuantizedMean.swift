import VisionTasksModelFormat

/// MEAN on uint8 or int8 over adjacent axes (converters make it of global average pooling), as XNNPACK's static
/// reduce computes it: the sum of the stored values times (input scale / output scale) × (1 / count), plus
/// output zero point − count × input zero point × that factor, all in float in that order, rounded half to even.
struct QuantizedMeanKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let outer: Int
    let reduced: Int
    let inner: Int
    /// (input scale / output scale) × (1 / count), and the output zero point less the input's share.
    let factor: Float
    let offset: Float
    let range: ClosedRange<Int32>
    /// A build without optimization: the scalar loop (generic SIMD code unoptimized is the slower one there).
    let scalar: Bool

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([output]) == .int8
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
        let count = Float(max(reduced, 1))
        factor = (q.scale / out.scale) * (1 / count)
        offset = Float(out.zeroPoint) - (count * Float(q.zeroPoint)) * factor
        range = out.range
        scalar = context.kernels.ononeLoops
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let x = memory.raw(input).assumingMemoryBound(to: Element.self)
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        for o in 0..<outer {
            let block = x + o * reduced * inner, out = z + o * inner
            guard inner >= 8, !scalar else {
                for i in 0..<inner {
                    var sum: Int32 = 0
                    for r in 0..<reduced { sum &+= Int32(block[r * inner + i]) }
                    out[i] = store(sum, as: Element.self)
                }
                continue
            }
            // Eight adjacent outputs a step, each summing its column of the block: a global average pool's column
            // one value at a time crossed the whole input per output (EfficientNetV2-B0's int8 squeeze-excites:
            // 1.3 ms, XNNPACK 0.1). The last step ends at the last output, recomputing a few of the step before.
            var i = 0
            while true {
                var sums = SIMD8<Int32>()
                var p = UnsafeRawPointer(block + i)
                for _ in 0..<reduced {
                    sums &+= SIMD8<Int32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD8<Element>.self))
                    p += inner &* MemoryLayout<Element>.stride
                }
                for lane in 0..<8 { out[i + lane] = store(sums[lane], as: Element.self) }
                if i + 8 == inner { break }
                i = min(i + 8, inner - 8)
            }
        }
    }

    /// The output value of one sum, in float as XNNPACK computes it.
    @inline(__always)
    private func store<Element: QuantizedElement>(_ sum: Int32, as _: Element.Type) -> Element {
        let value = Int32(saturating: (Float(sum) * factor + offset).rounded(.toNearestOrEven))
        return Element(truncatingIfNeeded: min(max(value, range.lowerBound), range.upperBound))
    }
}
