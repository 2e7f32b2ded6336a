import VisionTasksModelFormat

/// RESIZE_BILINEAR on uint8 or int8, as XNNPACK computes it: sample positions as TFLite defines them (float), the
/// fractions as Q11 integers rounded half to even, the interpolation in int32 (horizontal, then vertical) and a
/// rounding shift right by 22. The output keeps the input's quantization.
///
/// The horizontal step of an input row is the same for every output row that reads it: each input row a tap reads is
/// interpolated horizontally once, into the scratch area as int32, and every output row is then one vertical blend of
/// two such rows, eight values a step over the row's whole width. An output pixel at a time read and weighed four
/// input pixels for every value (DeepLab v3's 17² × 21 → 257² upsampling: 5.7 ms, XNNPACK 1.0). The same integer
/// steps, so the same bytes. Where those rows would take more than ``KernelConfig/resizeRowsMaximumScratchBytes``,
/// and in a build without optimization (generic SIMD code unoptimized is far slower than the scalar loop), pixel by
/// pixel.
struct QuantizedResizeBilinearKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    struct Tap: Sendable {
        let lower: Int
        let upper: Int
        /// The fraction toward `upper`, in units of 1/2048.
        let weight: Int32
    }

    let input: Int
    let output: Int
    let batch: Int
    let channels: Int
    let inputHeight: Int
    let inputWidth: Int
    let rows: [Tap]
    let columns: [Tap]
    /// The input rows the taps read, in order, and where each one's horizontal interpolation lies in the scratch
    /// (`slots[inputRow]`, in rows of ``rowLength``); empty when the kernel goes pixel by pixel.
    let readRows: [Int]
    let slots: [Int]
    /// Values of an output row: its width times the channels.
    var rowLength: Int { columns.count * channels }
    var scratchBytes: Int { readRows.count * rowLength * 4 }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .resizeBilinear(alignCorners, halfPixelCenters) = context.options else {
            throw context.fail("missing ResizeBilinearOptions")
        }
        input = try context.input(0)
        output = try context.output(0)
        signed = try context.requireSameQuantizedType([output]) == .int8
        guard try context.quantization(input) == context.quantization(output) else {
            throw context.unsupported("output quantization differs from the input's")
        }
        let geometry = try ResizeGeometry(context, input: input)
        batch = geometry.batch
        channels = geometry.channels
        inputHeight = geometry.height
        inputWidth = geometry.width
        // XNNPACK's indirection setup: positions in float, the half-pixel offset folded as 0.5 × scale − 0.5,
        // clamped to the last row or column, truncated.
        func taps(_ inputSize: Int, _ outputSize: Int) -> [Tap] {
            let adjust = alignCorners && outputSize != 1 ? 1 : 0
            let scale = Float(inputSize - adjust) / Float(outputSize - adjust)
            let last = Float(inputSize - 1)
            return (0..<outputSize).map { o in
                let position: Float
                if alignCorners || !halfPixelCenters {
                    position = min(Float(o) * scale, last)
                } else {
                    let offset = 0.5 * scale - 0.5
                    position = min(max(Float(o) * scale + offset, 0), last)
                }
                let lower = Int(position)
                return Tap(lower: lower, upper: min(lower + 1, inputSize - 1),
                           weight: Int32(((position - Float(lower)) * 2048).rounded(.toNearestOrEven)))
            }
        }
        rows = taps(geometry.height, geometry.outputHeight)
        columns = taps(geometry.width, geometry.outputWidth)
        var read = [Bool](repeating: false, count: geometry.height)
        for row in rows { read[row.lower] = true; read[row.upper] = true }
        let readRows = read.indices.filter { read[$0] }
        // The sizes are the declared output's, which the planner has already charged to the model's memory budget;
        // the product is checked all the same.
        let (values, overflow) = readRows.count.multipliedReportingOverflow(by: geometry.outputWidth * geometry.channels)
        if !context.kernels.ononeLoops, !overflow, values <= KernelConfig.resizeRowsMaximumScratchBytes / 4 {
            self.readRows = readRows
            var slots = [Int](repeating: -1, count: geometry.height)
            for (slot, row) in readRows.enumerated() { slots[row] = slot }
            self.slots = slots
        } else {
            self.readRows = []
            self.slots = []
        }
    }

    func run(_ memory: TensorMemory) {
        if signed { run(memory, as: Int8.self) } else { run(memory, as: UInt8.self) }
    }

    private func run<Element: QuantizedElement>(_ memory: TensorMemory, as _: Element.Type) {
        let source = memory.raw(input).assumingMemoryBound(to: Element.self)
        guard readRows.isEmpty else {
            let horizontal = memory.scratch.assumingMemoryBound(to: Int32.self)
            for b in 0..<batch {
                let image = source + b * inputHeight * inputWidth * channels
                let out = memory.raw(output).assumingMemoryBound(to: Element.self) + b * rows.count * rowLength
                memory.parallel.forEach(readRows.count, minimumPerThread: KernelConfig.resizeRowsMinimumPerThread,
                                        HorizontalRows(kernel: self, image: UnsafeRawPointer(image), horizontal: horizontal))
                memory.parallel.forEach(rows.count, minimumPerThread: KernelConfig.resizeRowsMinimumPerThread,
                                        VerticalRows(kernel: self, horizontal: horizontal, out: UnsafeMutableRawPointer(out)))
            }
            return
        }
        var out = memory.raw(output).assumingMemoryBound(to: Element.self)
        for b in 0..<batch {
            let image = source + b * inputHeight * inputWidth * channels
            for row in rows {
                let top = image + row.lower * inputWidth * channels, bottom = image + row.upper * inputWidth * channels
                for column in columns {
                    let l = column.lower * channels, r = column.upper * channels
                    for k in 0..<channels {
                        let tl = Int32(top[l + k]), tr = Int32(top[r + k]), bl = Int32(bottom[l + k]), br = Int32(bottom[r + k])
                        let upper = (tl << 11) + (tr - tl) * column.weight
                        let lower = (bl << 11) + (br - bl) * column.weight
                        let value = ((upper << 11) + (lower - upper) * row.weight + (1 << 21)) >> 22
                        out[k] = Element(truncatingIfNeeded: value)
                    }
                    out += channels
                }
            }
        }
    }

    // The row loops are not generic over the element: the worker threads run a loop through its conformance's
    // witness, and a generic loop's witness is the unspecialized code, where every SIMD operation on `Element` went
    // through the runtime's generic metadata. At two threads the MiDaS-like int8 model's 128² × 32 → 256² resize took
    // 93 ms (its whole model 190–217 ms, 82 at one thread); each loop picks the specialized code on its own thread.
    private struct HorizontalRows: ParallelLoop {
        let kernel: QuantizedResizeBilinearKernel
        let image: UnsafeRawPointer
        let horizontal: UnsafeMutablePointer<Int32>
        func run(_ range: Range<Int>) {
            if kernel.signed { rows(range, as: Int8.self) } else { rows(range, as: UInt8.self) }
        }

        @inline(__always)
        private func rows<Element: QuantizedElement>(_ range: Range<Int>, as _: Element.Type) {
            let image = UnsafeMutablePointer(mutating: image.assumingMemoryBound(to: Element.self))
            for slot in range {
                kernel.interpolateHorizontally(image + kernel.readRows[slot] * kernel.inputWidth * kernel.channels,
                                               into: horizontal + slot * kernel.rowLength)
            }
        }
    }

    private struct VerticalRows: ParallelLoop {
        let kernel: QuantizedResizeBilinearKernel
        let horizontal: UnsafeMutablePointer<Int32>
        let out: UnsafeMutableRawPointer
        func run(_ range: Range<Int>) {
            if kernel.signed { rows(range, as: Int8.self) } else { rows(range, as: UInt8.self) }
        }

        @inline(__always)
        private func rows<Element: QuantizedElement>(_ range: Range<Int>, as _: Element.Type) {
            let out = out.assumingMemoryBound(to: Element.self)
            for r in range {
                let row = kernel.rows[r], length = kernel.rowLength
                kernel.blendVertically(horizontal + kernel.slots[row.lower] * length, horizontal + kernel.slots[row.upper] * length,
                                       weight: row.weight, into: out + r * length)
            }
        }
    }

    /// (left << 11) + (right − left) · weight for every output column and channel of one input row.
    private func interpolateHorizontally<Element: QuantizedElement>(_ row: UnsafeMutablePointer<Element>, into target: UnsafeMutablePointer<Int32>) {
        let channels = self.channels
        var out = target
        for column in columns {
            let left = row + column.lower &* channels, right = row + column.upper &* channels
            if channels >= 8 {
                // Eight channels a step; the last step ends at the last channel, recomputing a few of the step
                // before it (the same values) rather than reading past the pixel.
                let weight = SIMD8<Int32>(repeating: column.weight)
                var k = 0
                while true {
                    let l = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(left + k).loadUnaligned(as: SIMD8<Element>.self))
                    let r = SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(right + k).loadUnaligned(as: SIMD8<Element>.self))
                    UnsafeMutableRawPointer(out + k).storeBytes(of: (l &<< 11) &+ (r &- l) &* weight, as: SIMD8<Int32>.self)
                    if k &+ 8 == channels { break }
                    k = min(k &+ 8, channels &- 8)
                }
            } else {
                for k in 0..<channels {
                    let l = Int32(left[k]), r = Int32(right[k])
                    out[k] = (l &<< 11) &+ (r &- l) &* column.weight
                }
            }
            out += channels
        }
    }

    /// ((upper << 11) + (lower − upper) · weight + 2²¹) >> 22 over a whole output row.
    private func blendVertically<Element: QuantizedElement>(_ upper: UnsafePointer<Int32>, _ lower: UnsafePointer<Int32>, weight: Int32,
                                                            into out: UnsafeMutablePointer<Element>) {
        let count = rowLength
        guard count >= 8 else {
            for i in 0..<count {
                out[i] = Element(truncatingIfNeeded: ((upper[i] &<< 11) &+ (lower[i] &- upper[i]) &* weight &+ (1 << 21)) &>> 22)
            }
            return
        }
        let w = SIMD8<Int32>(repeating: weight), half = SIMD8<Int32>(repeating: 1 << 21)
        var i = 0
        while true {
            let u = UnsafeRawPointer(upper + i).loadUnaligned(as: SIMD8<Int32>.self)
            let l = UnsafeRawPointer(lower + i).loadUnaligned(as: SIMD8<Int32>.self)
            let value = ((u &<< 11) &+ (l &- u) &* w &+ half) &>> 22
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD8<Element>(truncatingIfNeeded: value), as: SIMD8<Element>.self)
            if i &+ 8 == count { break }
            i = min(i &+ 8, count &- 8)
        }
    }
}
