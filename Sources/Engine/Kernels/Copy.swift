import VisionTasksModelFormat

/// RESHAPE, SQUEEZE, EXPAND_DIMS and other operators that keep the bytes and change only the shape.
struct CopyKernel: Kernel {
    let input: Int
    let output: Int
    let byteCount: Int

    init(_ context: OperatorContext) throws(EngineError) {
        input = try context.input(0)
        output = try context.output(0)
        guard context.type(input) == context.type(output),
              context.graph.elementCount(input) == context.graph.elementCount(output) else {
            throw context.fail("reshape of \(context.shape(input)) into \(context.shape(output))")
        }
        byteCount = context.graph.byteCount(input)
    }

    func run(_ memory: TensorMemory) {
        guard memory.raw(input) != memory.raw(output) else { return }
        memory.raw(output).copyMemory(from: memory.raw(input), byteCount: byteCount)
    }
}
