import VisionTasksModelFormat

/// RESIZE_NEAREST_NEIGHBOR with TFLite's sampling rule (`GetNearestNeighbor` in its reference kernel, which LiteRT
/// runs: XNNPACK's delegate does not take the operator): scale = in/out, or (in−1)/(out−1) with align_corners; the
/// source index is floor((o + offset)·scale), rounded half away from zero instead with align_corners, offset ½ with
/// half_pixel_centers, clamped to [0, in−1]. A pure gather, so one kernel serves every element type: quantized
/// tensors are copied byte for byte, as TFLite copies them (the output keeps the input's quantization).
struct ResizeNearestNeighborKernel: Kernel {
    let input: Int
    let output: Int
    let batch: Int
    let inputHeight: Int
    let inputWidth: Int
    /// Bytes of one pixel (channels × element size).
    let pixelBytes: Int
    /// Source row of each output row, source column of each output column.
    let rows: [Int]
    let columns: [Int]

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .resizeNearestNeighbor(alignCorners, halfPixelCenters) = context.options else {
            throw context.fail("missing ResizeNearestNeighborOptions")
        }
        input = try context.input(0)
        output = try context.output(0)
        try context.requireSameType([output], as: input)
        guard let elementBytes = context.type(input).byteSize else { throw context.fail("\(context.type(input).name) elements") }
        let geometry = try ResizeGeometry(context, input: input)
        batch = geometry.batch
        inputHeight = geometry.height
        inputWidth = geometry.width
        pixelBytes = try context.arithmetic.multiply(geometry.channels, elementBytes, "pixel bytes")
        func sources(_ inputSize: Int, _ outputSize: Int) -> [Int] {
            let scale = alignCorners && outputSize > 1
                ? Float(inputSize - 1) / Float(outputSize - 1) : Float(inputSize) / Float(outputSize)
            let offset: Float = halfPixelCenters ? 0.5 : 0
            return (0..<outputSize).map { o in
                let position = (Float(o) + offset) * scale
                let index = alignCorners ? position.rounded(.toNearestOrAwayFromZero) : position.rounded(.down)
                // Clamped before the conversion, so that it is exact; positions are never negative (TFLite's
                // clamp at 0 with half_pixel_centers never applies).
                return max(Int(min(index, Float(inputSize - 1))), 0)
            }
        }
        rows = sources(geometry.height, geometry.outputHeight)
        columns = sources(geometry.width, geometry.outputWidth)
    }

    func run(_ memory: TensorMemory) {
        let source = memory.raw(input), destination = memory.raw(output)
        let inputRowBytes = inputWidth &* pixelBytes
        var out = destination
        for b in 0..<batch {
            let image = source + b &* inputHeight &* inputRowBytes
            for row in rows {
                let line = image + row &* inputRowBytes
                for column in columns {
                    out.copyMemory(from: line + column &* pixelBytes, byteCount: pixelBytes)
                    out += pixelBytes
                }
            }
        }
    }
}
