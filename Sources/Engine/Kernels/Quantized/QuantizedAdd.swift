import VisionTasksModelFormat

/// ADD and SUB on uint8 or int8, with NumPy broadcasting: each input less its zero point, scaled by its scale over
/// the output's, summed, requantized.
struct QuantizedAddKernel<Element: QuantizedElement>: Kernel {
    enum Operation: Sendable { case add, subtract }

    let a: Int
    let b: Int
    let output: Int
    let plan: BroadcastPlan
    let aZeroPoint: Int32
    let bZeroPoint: Int32
    let aScale: Float
    let bScale: Float
    let requantization: Requantization

    init(_ context: OperatorContext, operation: Operation) throws(EngineError) {
        a = try context.input(0)
        b = try context.input(1)
        output = try context.output(0)
        _ = try context.requireSameQuantizedType([b, output])
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
        guard let bounds = out.bounds(activation) else { throw context.unsupported("fused \(activation) on a quantized output") }
        aZeroPoint = qa.zeroPoint
        bZeroPoint = qb.zeroPoint
        aScale = qa.scale / out.scale
        bScale = (operation == .add ? 1 : -1) * qb.scale / out.scale
        requantization = Requantization(output: out, bounds: bounds)
    }

    func run(_ memory: TensorMemory) {
        let x = memory.raw(a).assumingMemoryBound(to: Element.self), y = memory.raw(b).assumingMemoryBound(to: Element.self)
        let z = memory.raw(output).assumingMemoryBound(to: Element.self)
        plan.forEachRun { offsetA, offsetB, offsetOut, count, strideA, strideB in
            for i in 0..<count {
                let sum = Float(Int32(x[offsetA + i * strideA]) - aZeroPoint) * aScale + Float(Int32(y[offsetB + i * strideB]) - bZeroPoint) * bScale
                z[offsetOut + i] = Element(truncatingIfNeeded: requantization(sum))
            }
        }
    }
}
