import Foundation
import VisionTasksModelFormat

/// SOFTMAX on uint8 or int8 along the last axis. XNNPACK does not take it, so LiteRT runs its builtin kernel, and
/// that is the arithmetic here: a table of exp(−input scale × β × d) for every distance d of a stored value below
/// the row's largest, a float sum of the row's entries in order, each entry times 1 / (sum × output scale), then for
/// uint8 truncated after adding ½ — the output zero point ignored, as TFLite's uint8 kernel does on x86 (converters
/// give softmax outputs zero point 0; LiteRT's arm64 build adds it, and so do we there) — and for int8 rounded half
/// away from zero plus the zero point; saturated.
struct QuantizedSoftmaxKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let rows: Int
    let depth: Int
    /// exp(−scale β d) at index 255 − d.
    let table: [Float]
    let outputScale: Float
    let outputZeroPoint: Int32
    /// What a uint8 output adds: LiteRT's x86 build ignores the zero point, its arm64 build adds it.
    let uint8ZeroPoint: Int32

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .softmax(beta) = context.options else { throw context.fail("missing SoftmaxOptions") }
        input = try context.input(0)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([output]) == .int8
        let shape = context.shape(input)
        depth = shape.last ?? 1
        guard depth > 0, context.graph.elementCount(output) == context.graph.elementCount(input) else {
            throw context.fail("output size differs from the input's")
        }
        rows = context.graph.elementCount(input) / depth
        let q = try context.quantization(input), out = try context.quantization(output)
        let scale = -q.scale * beta
        table = (0...255).map { d in expf(scale * Float(255 - d)) }
        outputScale = out.scale
        outputZeroPoint = out.zeroPoint
        #if arch(arm64)
        uint8ZeroPoint = out.zeroPoint
        #else
        uint8ZeroPoint = 0
        #endif
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let x = memory.raw(input).assumingMemoryBound(to: Element.self)
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        table.withUnsafeBufferPointer { table in
            for r in 0..<rows {
                let row = x + r * depth, out = z + r * depth
                var largest = Int32(Element.min)
                for j in 0..<depth { largest = max(largest, Int32(row[j])) }
                // Entry 255 − (largest − v): the distance of v below the row's largest.
                let base = table.baseAddress! + 255 - Int(largest)
                var sum: Float = 0
                for j in 0..<depth { sum += base[Int(row[j])] }
                let inverse = 1 / (sum * outputScale)
                for j in 0..<depth {
                    let p = base[Int(row[j])] * inverse
                    let value = Element.isSigned ? Int32(saturating: p.rounded()) &+ outputZeroPoint : Int32(saturating: p + 0.5) &+ uint8ZeroPoint
                    out[j] = Element(truncatingIfNeeded: min(max(value, Int32(Element.min)), Int32(Element.max)))
                }
            }
        }
    }
}
