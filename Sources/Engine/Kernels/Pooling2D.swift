import Format

/// MAX_POOL_2D and AVERAGE_POOL_2D. The average counts only window positions inside the input, as TFLite does.
struct Pooling2DKernel: Kernel {
    enum Mode: Sendable { case maximum, average }

    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let y: WindowAxis
    let x: WindowAxis
    let mode: Mode
    let activation: Activation

    init(_ context: OperatorContext, mode: Mode) throws(EngineError) {
        guard case let .pool2D(options) = context.options else { throw context.fail("missing Pool2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireFloat([input, output])
        guard let i = nhwc(context.shape(input)) else { throw context.fail("input is not 4-D") }
        batch = i.n
        channels = i.c
        y = try context.windowAxis(input: i.h, filter: Int(options.filterHeight), stride: options.strideHeight, dilation: 1, padding: options.padding)
        x = try context.windowAxis(input: i.w, filter: Int(options.filterWidth), stride: options.strideWidth, dilation: 1, padding: options.padding)
        self.mode = mode
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        try context.expect([batch, y.output, x.output, channels], forOutput: 0)
    }

    func run(_ memory: TensorMemory) {
        for b in 0..<batch {
            let source = memory.floats(input) + b * y.input * x.input * channels
            let destination = memory.floats(output) + b * y.output * x.output * channels
            for oy in 0..<y.output {
                let y0 = max(y.source(oy, 0), 0), y1 = min(y.source(oy, 0) + y.filter, y.input)
                for ox in 0..<x.output {
                    let x0 = max(x.source(ox, 0), 0), x1 = min(x.source(ox, 0) + x.filter, x.input)
                    let out = destination + (oy * x.output + ox) * channels
                    out.update(repeating: mode == .maximum ? -.greatestFiniteMagnitude : 0, count: channels)
                    for iy in y0..<max(y0, y1) {
                        for ix in x0..<max(x0, x1) {
                            let pixel = source + (iy * x.input + ix) * channels
                            switch mode {
                            case .maximum: for c in 0..<channels { out[c] = max(out[c], pixel[c]) }
                            case .average: for c in 0..<channels { out[c] += pixel[c] }
                            }
                        }
                    }
                    if mode == .average {
                        let count = Float(max((y1 - y0) * (x1 - x0), 1))
                        for c in 0..<channels { out[c] /= count }
                    }
                    activation.apply(out, count: channels)
                }
            }
        }
    }
}
