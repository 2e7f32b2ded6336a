import VisionTasksModelFormat

/// What the RESIZE_* operators share: a non-empty 4-D input, a constant size of two positive sides as input 1, and
/// the output's shape, checked (size cap, declared shape) before a kernel allocates its sampling tables — a size of
/// 2^31 − 1 would otherwise allocate gigabytes of taps first.
struct ResizeGeometry {
    let batch: Int
    let height: Int
    let width: Int
    let channels: Int
    let outputHeight: Int
    let outputWidth: Int

    init(_ context: OperatorContext, input: Int) throws(EngineError) {
        guard context.shape(input).count == 4, let i = nhwc(context.shape(input)) else { throw context.fail("input is not 4-D") }
        let size = try context.constantIntegers(1)
        guard size.count == 2, size[0] > 0, size[1] > 0 else { throw context.fail("size \(size)") }
        // An empty input has nothing to sample (bilinear taps would read row −1).
        guard i.n > 0, i.h > 0, i.w > 0, i.c > 0 else { throw context.fail("input \(context.shape(input)) has no elements") }
        try context.expect([i.n, size[0], size[1], i.c], forOutput: 0)
        (batch, height, width, channels) = (i.n, i.h, i.w, i.c)
        (outputHeight, outputWidth) = (size[0], size[1])
    }
}
