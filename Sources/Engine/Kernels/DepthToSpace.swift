import VisionTasksModelFormat

/// DEPTH_TO_SPACE: out[n, h·b + dy, w·b + dx, c] = in[n, h, w, (dy·b + dx)·C + c].
struct DepthToSpaceKernel: Kernel {
    let input: Int
    let output: Int
    let batch: Int
    let height: Int
    let width: Int
    let block: Int
    let outputChannels: Int

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .depthToSpace(blockSize) = context.options else { throw context.fail("missing DepthToSpaceOptions") }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        guard let i = nhwc(context.shape(input)), blockSize >= 1, i.c % Int(blockSize * blockSize) == 0 else {
            throw context.fail("block \(blockSize) for input \(context.shape(input))")
        }
        batch = i.n
        height = i.h
        width = i.w
        block = Int(blockSize)
        outputChannels = i.c / (block * block)
        try context.expect([batch, height * block, width * block, outputChannels], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        let source = memory.floats(input), destination = memory.floats(output)
        let outputWidth = width * block
        var s = source
        for n in 0..<batch {
            for h in 0..<height {
                for w in 0..<width {
                    for dy in 0..<block {
                        for dx in 0..<block {
                            let oy = h * block + dy, ox = w * block + dx
                            let d = destination + ((n * height * block + oy) * outputWidth + ox) * outputChannels
                            d.update(from: s, count: outputChannels)
                            s += outputChannels
                        }
                    }
                }
            }
        }
    }
}
