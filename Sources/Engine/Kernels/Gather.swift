import VisionTasksModelFormat

/// GATHER along one axis (batch_dims 0): out = params[..., indices, ...]. Indices outside the axis give zeros
/// (TFLite reports an error there; a kernel at run time has no way to, and zeros keep the output defined).
struct GatherKernel: Kernel {
    let params: Int
    let indices: Int
    let output: Int
    let indicesAre64Bit: Int
    let indexCount: Int
    let outer: Int
    let axisSize: Int
    let innerBytes: Int

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .gather(axisValue, batchDims) = context.options else { throw context.fail("missing GatherOptions") }
        guard batchDims == 0 else { throw context.unsupported("batch_dims \(batchDims)") }
        params = try context.input(0)
        indices = try context.input(1)
        output = try context.output(0)
        guard [.int32, .int64].contains(context.type(indices)) else { throw context.unsupported("\(context.type(indices).name) indices") }
        guard context.type(params) == context.type(output), let elementBytes = context.type(params).byteSize else {
            throw context.fail("params and output types differ")
        }
        indicesAre64Bit = context.type(indices) == .int64 ? 1 : 0
        let shape = context.shape(params)
        let axis = Int(axisValue) < 0 ? Int(axisValue) + shape.count : Int(axisValue)
        guard axis >= 0, axis < shape.count else { throw context.fail("axis \(axisValue) for rank \(shape.count)") }
        indexCount = context.graph.elementCount(indices)
        outer = shape[..<axis].reduce(1, *)
        axisSize = shape[axis]
        innerBytes = shape[(axis + 1)...].reduce(1, *) * elementBytes
        let expected = Array(shape[..<axis]) + context.shape(indices) + Array(shape[(axis + 1)...])
        try context.expect(expected, forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let source = memory.raw(params), destination = memory.raw(output), positions = memory.raw(indices)
        for o in 0..<outer {
            for i in 0..<indexCount {
                let index = indicesAre64Bit == 1
                    ? Int(positions.load(fromByteOffset: 8 * i, as: Int64.self))
                    : Int(positions.load(fromByteOffset: 4 * i, as: Int32.self))
                let target = destination + (o * indexCount + i) * innerBytes
                if index >= 0, index < axisSize {
                    target.copyMemory(from: source + (o * axisSize + index) * innerBytes, byteCount: innerBytes)
                } else {
                    target.initializeMemory(as: UInt8.self, repeating: 0, count: innerBytes)
                }
            }
        }
    }
}
