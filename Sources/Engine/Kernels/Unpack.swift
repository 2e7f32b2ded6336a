import VisionTasksModelFormat

/// UNPACK: splits the input along `axis` into `num` outputs, each without that dimension.
struct UnpackKernel: Kernel {
    let input: Int
    let outputs: [Int]
    let outer: Int
    let innerBytes: Int

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .unpack(count, axisValue) = context.options else { throw context.fail("missing UnpackOptions") }
        input = try context.input(0)
        outputs = context.outputs
        try context.requireSameType(outputs, as: input)
        let shape = context.shape(input)
        let axis = Int(axisValue) < 0 ? Int(axisValue) + shape.count : Int(axisValue)
        guard axis >= 0, axis < shape.count, shape[axis] == Int(count), outputs.count == Int(count),
              let elementBytes = context.type(input).byteSize else {
            throw context.fail("unpack of \(shape) into \(count) along \(axisValue)")
        }
        outer = shape[..<axis].reduce(1, *)
        innerBytes = shape[(axis + 1)...].reduce(1, *) * elementBytes
        var expected = shape
        expected.remove(at: axis)
        for i in 0..<outputs.count { try context.expect(expected, forOutput: i) }
    }

    func run(_ memory: TensorMemory) {
        let source = memory.raw(input)
        for (k, output) in outputs.enumerated() {
            let destination = memory.raw(output)
            for o in 0..<outer {
                (destination + o * innerBytes).copyMemory(from: source + (o * outputs.count + k) * innerBytes, byteCount: innerBytes)
            }
        }
    }
}
