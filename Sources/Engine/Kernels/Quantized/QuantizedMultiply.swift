import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// MUL on uint8 or int8, with NumPy broadcasting: the product of the inputs less their zero points, requantized
/// with (a scale × b scale) / output scale in float — XNNPACK's fp32 requantization when that ratio lies in
/// [1/65536, 256) (its "rndnu" on arm64, uint8 and int8 alike: ``Requantization/roundsHalfUp``), else LiteRT's builtin
/// kernel, which takes the same float ratio through ``FixedPointMultiplier``.
struct QuantizedMultiplyKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let a: Int
    let b: Int
    let output: Int
    let plan: BroadcastPlan
    let aZeroPoint: Int32
    let bZeroPoint: Int32
    let scale: Float
    let requantization: Requantization
    /// Set when LiteRT would run its builtin kernel (ratio out of XNNPACK's range).
    let builtin: FixedPointMultiplier?
    let builtinRange: ClosedRange<Int32>
    /// A build without optimization (``KernelConfig/ononeLoops``), where SIMD code runs lane by lane through generic
    /// calls: the plain loop there.
    let ononeLoops: Bool

    init(_ context: OperatorContext) throws(EngineError) {
        a = try context.input(0)
        b = try context.input(1)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([b, output]) == .int8
        guard case let .mul(activation) = context.options else { throw context.fail("missing MulOptions") }
        let qa = try context.quantization(a), qb = try context.quantization(b), out = try context.quantization(output)
        guard let plan = BroadcastPlan(output: context.shape(output), a: context.shape(a), b: context.shape(b)) else {
            throw context.fail("shapes \(context.shape(a)) and \(context.shape(b)) do not broadcast to \(context.shape(output))")
        }
        self.plan = plan
        guard let bounds = out.bounds(activation), let builtinBounds = out.builtinBounds(activation) else {
            throw context.unsupported("fused \(activation) on a quantized output")
        }
        aZeroPoint = qa.zeroPoint
        bZeroPoint = qb.zeroPoint
        scale = qa.scale * qb.scale / out.scale
        requantization = Requantization(output: out, bounds: bounds, roundsHalfUp: Requantization.multiplyRoundsHalfUp)
        builtin = (Float(1) / 65536 ..< 256).contains(scale) ? nil : FixedPointMultiplier(Double(scale))
        builtinRange = builtinBounds
        ononeLoops = context.kernels.ononeLoops
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let x = memory.raw(a).assumingMemoryBound(to: Element.self), y = memory.raw(b).assumingMemoryBound(to: Element.self)
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        plan.forEachRun(a: UnsafePointer(x), b: UnsafePointer(y)) { x, y, offsetOut, count, strideA, strideB in
            var start = 0
            if builtin == nil, !ononeLoops, strideA == 1, strideB <= 1 {
                // Sixteen lanes at a time where a runs contiguously and b too or is one value (SiLU's x · sigmoid(x),
                // a tensor times a scalar): the same product and requantizing store as the GEMMs'. Element by element,
                // the 59 MULs of an int8 YOLOv8-n-like network took 15.8 of its ~40 ms at one thread (a profile on a
                // loaded host); now 0.58 ms, LiteRT's 0.73.
                let store = RequantizedStore<Element>(requantization), scales = SIMD8<Float>(repeating: scale)
                let za = SIMD8<Int32>(repeating: aZeroPoint), zb = SIMD8<Int32>(repeating: bZeroPoint)
                let single = SIMD8<Int32>(repeating: Int32(y[0])) &- zb
                @inline(__always) func products(_ i: Int) -> SIMD8<Int32> {
                    let va = SIMD8<Int32>(widening: x + i, signed: Element.isSigned) &- za
                    let vb = strideB == 0 ? single : SIMD8<Int32>(widening: y + i, signed: Element.isSigned) &- zb
                    return va &* vb
                }
                while start + 16 <= count {
                    store.store(products(start), products(start + 8), scales, scales, z + offsetOut + start, 16)
                    start += 16
                }
            }
            for i in start..<count {
                let product = (Int32(x[i * strideA]) - aZeroPoint) * (Int32(y[i * strideB]) - bZeroPoint)
                if let builtin {
                    let value = builtin(product) &+ requantization.zeroPoint
                    z[offsetOut + i] = Element(truncatingIfNeeded: min(max(value, builtinRange.lowerBound), builtinRange.upperBound))
                } else {
                    z[offsetOut + i] = Element(truncatingIfNeeded: requantization(product, scale: scale))
                }
            }
        }
    }
}
