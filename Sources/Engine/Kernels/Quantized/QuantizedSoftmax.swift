import Foundation
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// SOFTMAX on uint8 or int8 along the last axis. XNNPACK does not take it, so LiteRT runs its builtin kernel, whose
/// arithmetic depends on the machine LiteRT was built for (tensorflow/lite/kernels/activations.cc):
/// - x86-64 (``Arithmetic/floatTable``): a table of exp(−input scale × β × d) for every distance d of a stored value
///   below the row's largest, a float sum of the row's entries in order, each entry times 1 / (sum × output scale),
///   then for uint8 truncated after adding ½ — the output zero point ignored (converters give softmax outputs zero
///   point 0) — and for int8 rounded half away from zero plus the zero point; saturated.
/// - aarch64 (``Arithmetic/sixteenBitTable``; clang there defines `TFLITE_SOFTMAX_USE_UINT16_LUT`): the table holds
///   exp(input scale × β × (v − 255)) × 65535 rounded to 16 bits, the row's entries sum in integers, and each output
///   is its entry times TFLite's fixed-point multiplier of 1 / (sum × output scale), plus the zero point (uint8's
///   too), saturated. The two round apart about once in a thousand outputs (the bird classifier's 965 classes: one
///   output a step apart on two photos of five, against LiteRT on arm64).
struct QuantizedSoftmaxKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let rows: Int
    let depth: Int
    let arithmetic: Arithmetic
    let outputScale: Float
    let outputZeroPoint: Int32
    /// A build without optimization (``KernelConfig/ononeLoops``), where SIMD code runs lane by lane: the plain loop.
    let ononeLoops: Bool

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
        arithmetic = Arithmetic.litertBuild(inputScale: q.scale, beta: beta)
        outputScale = out.scale
        outputZeroPoint = out.zeroPoint
        ononeLoops = context.kernels.ononeLoops
    }

    /// LiteRT's two arithmetics, each with its table.
    enum Arithmetic {
        /// exp(−scale β d) at index 255 − d.
        case floatTable([Float])
        /// exp(scale β (v − 255)) × 65535 at index v.
        case sixteenBitTable([UInt16])

        /// The one LiteRT's build for this machine runs.
        static func litertBuild(inputScale: Float, beta: Float) -> Arithmetic {
            #if arch(arm64)
            return sixteenBitTable(inputScale: inputScale, beta: beta)
            #else
            return floatTable(inputScale: inputScale, beta: beta)
            #endif
        }

        static func floatTable(inputScale: Float, beta: Float) -> Arithmetic {
            let scale = -inputScale * beta
            return .floatTable((0...255).map { d in expf(scale * Float(255 - d)) })
        }

        /// `PopulateSoftmaxUInt8LookupTable`: the float exponential times 65535, ½ added in double, truncated and
        /// capped. A NaN (a hostile scale) gives 0, as arm64's conversion does, instead of trapping.
        static func sixteenBitTable(inputScale: Float, beta: Float) -> Arithmetic {
            let scale = inputScale * beta
            return .sixteenBitTable((0...255).map { v in
                let entry = Double(expf(scale * Float(v - 255)) * 65535) + 0.5
                return entry.isNaN ? 0 : entry >= 65535 ? 65535 : UInt16(max(entry, 0))
            })
        }
    }

    func run(_ memory: TensorMemory) {
        switch arithmetic {
        case let .floatTable(table):
            if signed { run(memory, table: table, as: Int8.self) } else { run(memory, table: table, as: UInt8.self) }
        case let .sixteenBitTable(table):
            if signed { run(memory, table: table, as: Int8.self) } else { run(memory, table: table, as: UInt8.self) }
        }
    }

    /// The aarch64 form (`SoftmaxInt8LUT`), which reads int8 values as bytes with the sign bit flipped. The sum is
    /// taken modulo 2^32 as its unsigned lanes take it; its multiplier's products never need the vector loop's own
    /// rounding (``FixedPointMultiplier/vectorLoopForm(_:)``): entries and multiplier are non-negative, where the two
    /// forms agree.
    private func run<Element: QuantizedElement>(_ memory: TensorMemory, table: [UInt16], as _: Element.Type) {
        let x = UnsafeRawPointer(memory.raw(input))
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        let flip: UInt8 = Element.isSigned ? 0x80 : 0
        table.withUnsafeBufferPointer { table in
            for r in 0..<rows {
                let row = x + r * depth, out = z + r * depth
                var largest: UInt8 = 0
                for j in 0..<depth { largest = max(largest, row.load(fromByteOffset: j, as: UInt8.self) ^ flip) }
                // Index v + (255 − largest): v's distance below the row's largest, from the table's end.
                let base = table.baseAddress! + 255 - Int(largest)
                var sum: UInt32 = 0
                for j in 0..<depth { sum &+= UInt32(base[Int(row.load(fromByteOffset: j, as: UInt8.self) ^ flip)]) }
                let multiplier = FixedPointMultiplier(Double(1 / (Float(Int32(bitPattern: sum)) * outputScale)))
                for j in 0..<depth {
                    let value = multiplier(Int32(base[Int(row.load(fromByteOffset: j, as: UInt8.self) ^ flip)])) &+ outputZeroPoint
                    out[j] = Element(truncatingIfNeeded: min(max(value, Int32(Element.min)), Int32(Element.max)))
                }
            }
        }
    }

    /// Sixteen outputs of a row: the entries `p` (already × 1 / (sum × output scale)) rounded as the scalar loop below
    /// rounds them — int8 half away from zero, uint8 + ½ truncated — and saturated to int32 as `Int32(saturating:)`
    /// does, through round-half-to-even conversions and exact corrections: x86 has no half-away rounding instruction
    /// (the scalar `rounded()` is a `roundf` call) and a truncating one is no cheaper here. Element by element, the
    /// compare-and-branch chains of YOLOv8's 8,400-row softmax ran at 2.7 times LiteRT's time.
    @inline(__always)
    static func roundedLanes(_ p: SIMD16<Float>, signed: Bool) -> SIMD16<Int32> {
        let zero = SIMD16<Int32>(), one = SIMD16<Int32>(repeating: 1)
        // NaN (a sum of zeros) gives 0, as Int32(saturating:); beyond int16 every value saturates the byte anyway.
        var v = p.replacing(with: 0, where: p .!= p)
        v = v.replacing(with: -32768, where: v .< -32768).replacing(with: 32767, where: v .> 32767)
        if signed {
            // A tie the conversion sent toward zero goes one further; p − n is exact.
            let n = v.roundedToInt32, d = v - n.floats
            return n &+ zero.replacing(with: one, where: (d .== 0.5) .& (v .> 0)) &- zero.replacing(with: one, where: (d .== -0.5) .& (v .< 0))
        }
        let t = v + 0.5, n = t.roundedToInt32, f = n.floats
        return n &- zero.replacing(with: one, where: (f .> t) .& (t .> 0)) &+ zero.replacing(with: one, where: (f .< t) .& (t .< 0))
    }

    /// The x86-64 form.
    private func run<Element: QuantizedElement>(_ memory: TensorMemory, table: [Float], as _: Element.Type) {
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
                var start = 0
                if !ononeLoops {
                    let scale = SIMD16<Float>(repeating: inverse)
                    let zeroPoint = SIMD16<Int32>(repeating: Element.isSigned ? outputZeroPoint : 0)
                    let lowest = SIMD16<Int32>(repeating: Int32(Element.min)), highest = SIMD16<Int32>(repeating: Int32(Element.max))
                    while start + 16 <= depth {
                        var entries = SIMD16<Float>()
                        for lane in 0..<16 { entries[lane] = base[Int(row[start + lane])] }
                        var value = Self.roundedLanes(entries * scale, signed: Element.isSigned) &+ zeroPoint
                        value = value.replacing(with: lowest, where: value .< lowest).replacing(with: highest, where: value .> highest)
                        UnsafeMutableRawPointer(out + start).storeBytes(of: narrowToBytes(value, signed: Element.isSigned), as: SIMD16<UInt8>.self)
                        start += 16
                    }
                }
                for j in start..<depth {
                    let p = base[Int(row[j])] * inverse
                    let value = Element.isSigned ? Int32(saturating: p.rounded()) &+ outputZeroPoint : Int32(saturating: p + 0.5)
                    out[j] = Element(truncatingIfNeeded: min(max(value, Int32(Element.min)), Int32(Element.max)))
                }
            }
        }
    }
}
