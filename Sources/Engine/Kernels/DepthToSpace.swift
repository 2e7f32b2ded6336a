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
        // block_size is the file's Int32: its square and the output sizes are computed with checks.
        let arithmetic = context.arithmetic
        let block = Int(blockSize)
        guard let i = nhwc(context.shape(input)), block >= 1,
              case let square = try arithmetic.multiply(block, block, "block_size²"), i.c % square == 0 else {
            throw context.fail("block \(blockSize) for input \(context.shape(input))")
        }
        batch = i.n
        height = i.h
        width = i.w
        self.block = block
        outputChannels = i.c / square
        try context.expect([batch, try arithmetic.multiply(height, block, "output height"),
                            try arithmetic.multiply(width, block, "output width"), outputChannels], forOutput: 0)
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
