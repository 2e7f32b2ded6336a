import CVisionTasksOnoneKernels
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// ADD and SUB on uint8 or int8, with NumPy broadcasting.
///
/// XNNPACK's fixed-point form, which LiteRT takes when each input scale / output scale (float) lies in
/// [1/1024, 256): the two ratios as integers with `shift` fraction bits, where the larger ratio gets 21 significant
/// bits; acc = bias + a × aMul + b × bMul on the stored values (the bias holds the zero points and half of the last
/// step), shifted right arithmetically (ties toward +∞), the output zero point added, clamped. SUB negates b's
/// multiplier. Outside that range LiteRT runs its builtin kernel: each input less its zero point shifted left by 20,
/// scaled by its own ``FixedPointMultiplier`` of scale / (2 × the larger input scale), summed and scaled by twice the
/// larger scale / (2²⁰ × output scale).
struct QuantizedAddKernel: Kernel {
    enum Operation: Sendable { case add, subtract }

    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let a: Int
    let b: Int
    let output: Int
    let plan: BroadcastPlan
    let arithmetic: Arithmetic
    let bounds: ClosedRange<Int32>
    let outputZeroPoint: Int32
    /// XNNPACK's form through its C twin (``KernelConfig/ononeLoops``: a build without optimization).
    let ononeLoops: Bool

    enum Arithmetic: Sendable {
        case xnnpack(aMultiplier: Int32, bMultiplier: Int32, bias: Int32, shift: Int32)
        case builtin(aZeroPoint: Int32, bZeroPoint: Int32, a: FixedPointMultiplier, b: FixedPointMultiplier,
                     output: FixedPointMultiplier, negateB: Bool)
    }

    init(_ context: OperatorContext, operation: Operation) throws(EngineError) {
        a = try context.input(0)
        b = try context.input(1)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([b, output]) == .int8
        let activation: FusedActivation
        switch context.options {
        case let .add(fused, _), let .sub(fused, _): activation = fused
        default: activation = .none
        }
        let qa = try context.quantization(a), qb = try context.quantization(b), out = try context.quantization(output)
        guard let plan = BroadcastPlan(output: context.shape(output), a: context.shape(a), b: context.shape(b)) else {
            throw context.fail("shapes \(context.shape(a)) and \(context.shape(b)) do not broadcast to \(context.shape(output))")
        }
        self.plan = plan
        outputZeroPoint = out.zeroPoint
        ononeLoops = context.kernels.ononeLoops
        let ra = qa.scale / out.scale, rb = qb.scale / out.scale
        if (Float(1) / 1024 ..< 256).contains(ra), (Float(1) / 1024 ..< 256).contains(rb) {
            guard let bounds = out.bounds(activation) else { throw context.unsupported("fused \(activation) on a quantized output") }
            self.bounds = bounds
            let largest = max(ra, rb)
            let shift = 20 - (Int32(largest.bitPattern >> 23) - 127)
            let aMultiplier = Int32((ra * Float(sign: .plus, exponent: Int(shift), significand: 1)).rounded(.toNearestOrEven))
            var bMultiplier = Int32((rb * Float(sign: .plus, exponent: Int(shift), significand: 1)).rounded(.toNearestOrEven))
            if operation == .subtract { bMultiplier = -bMultiplier }
            let bias = (Int32(1) << (shift - 1)) &- aMultiplier &* qa.zeroPoint &- bMultiplier &* qb.zeroPoint
            arithmetic = .xnnpack(aMultiplier: aMultiplier, bMultiplier: bMultiplier, bias: bias, shift: shift)
        } else {
            guard let bounds = out.builtinBounds(activation) else { throw context.unsupported("fused \(activation) on a quantized output") }
            self.bounds = bounds
            let twiceLargest = Double(2 * max(qa.scale, qb.scale))
            arithmetic = .builtin(aZeroPoint: qa.zeroPoint, bZeroPoint: qb.zeroPoint,
                                  a: FixedPointMultiplier(Double(qa.scale) / twiceLargest), b: FixedPointMultiplier(Double(qb.scale) / twiceLargest),
                                  output: FixedPointMultiplier(twiceLargest / (Double(1 << 20) * Double(out.scale))),
                                  negateB: operation == .subtract)
        }
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let x = memory.raw(a).assumingMemoryBound(to: Element.self), y = memory.raw(b).assumingMemoryBound(to: Element.self)
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        let lower = bounds.lowerBound, upper = bounds.upperBound
        switch arithmetic {
        case let .xnnpack(aMultiplier, bMultiplier, bias, shift) where ononeLoops:
            plan.forEachRun(a: UnsafePointer(x), b: UnsafePointer(y)) { x, y, offsetOut, count, strideA, strideB in
                vt_onone_quantized_add_run(x, strideA, y, strideB, z + offsetOut, Int32(count), Element.isSigned ? 1 : 0,
                                           aMultiplier, bMultiplier, bias, shift, outputZeroPoint, lower, upper)
            }
        case let .xnnpack(aMultiplier, bMultiplier, bias, shift):
            plan.forEachRun(a: UnsafePointer(x), b: UnsafePointer(y)) { x, y, offsetOut, count, strideA, strideB in
                var start = 0
                if strideA <= 1, strideB <= 1 {
                    // Eight lanes at a time where both inputs run contiguously (residual ADDs: same shapes) or one
                    // is a value repeated (a constant added to a tensor: MobileNetV3's hard sigmoids, x + 3; one
                    // value at a time they took five times XNNPACK's whole ADD).
                    let vectorBias = SIMD8<Int32>(repeating: bias), am = SIMD8<Int32>(repeating: aMultiplier)
                    let bm = SIMD8<Int32>(repeating: bMultiplier), zero = SIMD8<Int32>(repeating: outputZeroPoint)
                    let shifts = SIMD8<Int32>(repeating: shift)
                    let low = SIMD8<Int32>(repeating: lower), high = SIMD8<Int32>(repeating: upper)
                    while start + 8 <= count {
                        let va = strideA == 0 ? SIMD8<Int32>(repeating: Int32(x[0]))
                            : SIMD8<Int32>(widening: x + start, signed: Element.isSigned)
                        let vb = strideB == 0 ? SIMD8<Int32>(repeating: Int32(y[0]))
                            : SIMD8<Int32>(widening: y + start, signed: Element.isSigned)
                        var value = ((vectorBias &+ va &* am &+ vb &* bm) &>> shifts) &+ zero
                        value = value.replacing(with: low, where: value .< low).replacing(with: high, where: value .> high)
                        let bytes = narrowToBytes(value, .zero, signed: Element.isSigned)
                        UnsafeMutableRawPointer(z + offsetOut + start).storeBytes(of: bytes.lowHalf, as: SIMD8<UInt8>.self)
                        start += 8
                    }
                }
                for i in start..<count {
                    let sum = bias &+ Int32(x[i * strideA]) &* aMultiplier &+ Int32(y[i * strideB]) &* bMultiplier
                    z[offsetOut + i] = Element(truncatingIfNeeded: min(max((sum >> shift) &+ outputZeroPoint, lower), upper))
                }
            }
        case let .builtin(aZeroPoint, bZeroPoint, aScale, bScale, outputScale, negateB):
            plan.forEachRun(a: UnsafePointer(x), b: UnsafePointer(y)) { x, y, offsetOut, count, strideA, strideB in
                for i in 0..<count {
                    let left = aScale((Int32(x[i * strideA]) - aZeroPoint) << 20)
                    let right = bScale((Int32(y[i * strideB]) - bZeroPoint) << 20)
                    let value = outputScale(negateB ? left &- right : left &+ right) &+ outputZeroPoint
                    z[offsetOut + i] = Element(truncatingIfNeeded: min(max(value, lower), upper))
                }
            }
        }
    }
}
