import VisionTasksEngineSIMD
import CVisionTasksBLAS
import CVisionTasksOnoneKernels
import VisionTasksModelFormat

/// CONV_2D: NHWC input, OHWI filter, per-output-channel bias.
///
/// 1×1 stride-1 convolutions are one GEMM over the input as it lies; others are a GEMM over im2col rows (output
/// pixels, columns in the filter's (ky, kx, channel) order) — our packed micro-kernel (``PackedGEMM``), which reads
/// whole windows where they lie in the input and gathers the rest chunk by chunk, or OpenBLAS for large filters over
/// many pixels. The RGB stem runs directly (``StemConvolution``), and few output channels by dot products (`direct`).
struct Conv2DKernel: EpilogueFusable {
    let input: Int
    private(set) var output: Int
    let batch: Int
    let inputChannels: Int
    let outputChannels: Int
    let y: WindowAxis
    let x: WindowAxis
    /// [outputChannels, kh × kw × inputChannels], the model's OHWI layout flattened.
    let weights: [Float]
    let bias: [Float]
    let activation: Activation
    /// The weights packed for our micro-kernel, when the filter is small enough for it to beat sgemm.
    let packed: PackedGEMM?
    /// Element-wise operators after this one that the plan folded in.
    private(set) var epilogue: Epilogue?
    /// The direct kernel for an RGB stem convolution, if this is one.
    let stem: StemConvolution?

    /// The GEMM applies tanh in a pass after all tiles, where the epilogue would already have run.
    var acceptsEpilogue: Bool { activation != .tanh }

    func fusing(_ epilogue: Epilogue, output: Int) -> any Kernel {
        var fused = self
        fused.epilogue = epilogue
        fused.output = output
        return fused
    }

    /// Elements between the addend's pixels: the output's channels, or fewer when the addend is a channel PAD's input.
    private var addendStride: Int { epilogue?.addendChannels ?? outputChannels }

    var isPointwise: Bool { Self.isPointwise(y, x) }

    private static func isPointwise(_ y: WindowAxis, _ x: WindowAxis) -> Bool {
        y.filter == 1 && x.filter == 1 && y.stride == 1 && x.stride == 1 && y.padBefore == 0 && x.padBefore == 0
    }

    var patchSize: Int { y.filter * x.filter * inputChannels }

    /// Few output channels over channels that fill SIMD8 lanes (segmentation heads: 8 → 1): each output value is
    /// a dot product taken straight from the input, with no im2col matrix whose columns would mostly go unused.
    var isDirect: Bool { outputChannels <= 4 && inputChannels % 8 == 0 && !throughOpenBLAS }
    /// Every product through OpenBLAS (``KernelConfig/FloatGEMMKernel/openBLAS``), the direct kernel's included.
    let throughOpenBLAS: Bool
    /// im2col, the bias, the activation and the epilogue through their C twins (``KernelConfig/ononeLoops``).
    let ononeLoops: Bool

    var scratchBytes: Int { isPointwise || isDirect ? 0 : y.output * x.output * patchSize * 4 }

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .conv2D(options) = context.options else { throw context.fail("missing Conv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        try context.requireFloat([input, output, filter])
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input \(context.shape(input)) / filter \(context.shape(filter)) are not 4-D")
        }
        let f = context.shape(filter)
        guard f[3] == i.c else { throw context.unsupported("grouped convolution (filter depth \(f[3]), input \(i.c))") }
        batch = i.n
        inputChannels = i.c
        outputChannels = f[0]
        let padded = context.paddedSpatialSize(i)
        let (windowY, windowX) = context.unpadding(
            try context.windowAxis(input: padded.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding),
            try context.windowAxis(input: padded.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding))
        let weights = try context.constantFloats(1)
        bias = context.hasInput(2) ? try context.constantFloats(2) : Array(repeating: 0, count: f[0])
        guard bias.count == outputChannels, weights.count == outputChannels * f[1] * f[2] * i.c else {
            throw context.fail("weights/bias sizes do not match the filter shape")
        }
        if let live = droppingDeadTaps(weights, outputChannels: outputChannels, inputChannels: i.c, y: windowY, x: windowX) {
            (self.weights, y, x) = live
        } else {
            (self.weights, y, x) = (weights, windowY, windowX)
        }
        activation = try Activation(options.activation, operatorIndex: context.index, name: context.name)
        try context.expect([batch, y.output, x.output, outputChannels], forOutput: 0)
        // Through our packed tiles or OpenBLAS: the rule every float product shares (``PackedGEMM/carries(weightCount:depth:rows:kernels:)``).
        throughOpenBLAS = context.kernels.floatGEMM == .openBLAS
        ononeLoops = context.kernels.ononeLoops
        let depth = y.filter * x.filter * i.c
        if PackedGEMM.carries(weightCount: self.weights.count, depth: depth, rows: y.output * x.output, kernels: context.kernels) {
            packed = PackedGEMM(weights: self.weights, bias: bias, columns: outputChannels, depth: depth, kernels: context.kernels)
        } else if PackedGEMM.tilesAreFast(context.kernels) {
            // A filter too large for the rule above whose windows the tiles would read through pointers (a small
            // map's 3 × 3 layers, dilated ones) stays on them: OpenBLAS packed the whole im2col matrix of such a
            // layer on every call (YOLOv8n-like's 20² × 128 → 10² × 256, 1.2 MB of weights: a fifth of its time in
            // sgemm_incopy; 0.99 → 0.83 ms, LiteRT 0.83; DeepLab v3's 17² × 320 → 256 at rate 6, U-Net's 16² and
            // 32² and MiDaS-like's 8² and 16² ones alike).
            packed = Self.readsPointers(PackedGEMM.takesPointers(context.kernels), y, x, activation)
                && !Self.readsWindowsInPlace(PackedGEMM.takesWindows(context.kernels), y, x, activation)
                ? PackedGEMM(weights: self.weights, bias: bias, columns: outputChannels, depth: depth, kernels: context.kernels) : nil
        } else {
            packed = nil
        }
        // The stem's direct loops are Swift of the build's tier: in a portable build that runs C tiles, im2col and
        // those tiles beat its SSE2 loops.
        stem = packed != nil && activation != .tanh && (ownGEMMKernelsAreFast || context.kernels.floatGEMMTiles == nil)
            ? StemConvolution(weights: self.weights, bias: bias, outputChannels: outputChannels, inputChannels: i.c, y: y, x: x) : nil
    }

    func run(_ memory: TensorMemory) {
        let pixels = y.output * x.output
        for b in 0..<batch {
            let source = memory.floats(input) + b * y.input * x.input * inputChannels
            let destination = memory.floats(output) + b * pixels * outputChannels
            let addend = epilogue?.addend(in: memory, offset: b * pixels * addendStride)
            if isDirect {
                memory.parallel.forEach(pixels, minimumPerThread: KernelConfig.directConvolutionMinimumPixelsPerThread, DirectPixels(kernel: self, source: source, destination: destination, addend: addend))
                continue
            }
            if let stem {
                memory.parallel.forEach(y.output, minimumPerThread: KernelConfig.stemRowsMinimumPerThread, StemRows(
                    kernel: self, stem: stem, source: source, destination: destination, addend: addend,
                    scratch: memory.scratch.assumingMemoryBound(to: Float.self)))
                continue
            }
            if let packed, isPointwise {
                withTileEpilogue(addend) { epilogue in
                    packed.run(a: source, lda: inputChannels, rows: pixels, c: destination, ldc: outputChannels,
                               activation: activation, epilogue: epilogue, parallel: memory.parallel)
                }
                continue
            }
            if let packed, packed.splitsPanels(rows: pixels, parallel: memory.parallel) {
                splitChannels(packed, source, destination, addend, memory)
                continue
            }
            // Each thread takes a band of output pixels: its own im2col rows, its own products, its own bias pass.
            let loop = Pixels(kernel: self, source: source, destination: destination, addend: addend,
                              scratch: memory.scratch.assumingMemoryBound(to: Float.self), pixels: pixels)
            if packed == nil {
                // OpenBLAS's sgemm sums a row otherwise depending on how many rows it is given (its small-matrix
                // kernels and the tails of its unrolled ones): its calls take fixed blocks of pixels at fixed places
                // (``blasRowsPerCall``), and threads whole blocks, so that a pixel's sums do not depend on the
                // thread count (a debug build and the portable tier differed at one and two threads).
                memory.parallel.forEach((pixels + Self.blasRowsPerCall - 1) / Self.blasRowsPerCall, BLASBlocks(pixels: loop))
            } else {
                memory.parallel.forEach(pixels, minimumPerThread: KernelConfig.convolutionMinimumPixelsPerThread, loop)
            }
        }
    }

    private struct DirectPixels: ParallelLoop {
        let kernel: Conv2DKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        func run(_ pixels: Range<Int>) {
            kernel.direct(source, destination, pixels)
            kernel.finish(pixels, destination, addend)
        }
    }

    private struct StemRows: ParallelLoop {
        let kernel: Conv2DKernel
        let stem: StemConvolution
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        let scratch: UnsafeMutablePointer<Float>
        func run(_ rows: Range<Int>) { kernel.stemRows(rows, stem, source, destination, addend, scratch) }
    }

    /// Output rows of a stem convolution: whole windows through the direct kernel, and the pixels at either end of
    /// the row (whose windows leave the image, and the interior's last few) through the same kernel on windows copied
    /// with zeros for the missing taps; rows whose windows leave the image at the top or bottom through im2col and the
    /// GEMM, whole.
    private func stemRows(_ rows: Range<Int>, _ stem: StemConvolution, _ source: UnsafeMutablePointer<Float>,
                          _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?, _ scratch: UnsafeMutablePointer<Float>) {
        let interior = x.interior, perStep = stem.pixelsPerStep, clamp = ActivationClamp(activation)
        // The row's own im2col rows hold the copied windows and their outputs (a row of fewer pixels than that takes
        // the GEMM, as the top and bottom rows do).
        let copiedFits = x.output * patchSize >= perStep * (patchSize + outputChannels)
        for oy in rows {
            let first = oy * x.output, end = first + x.output
            guard y.validTaps(oy).count == y.filter, !interior.isEmpty else {
                band(first..<end, source, destination, addend, scratch)
                continue
            }
            let steps = interior.count / perStep
            let direct = first + interior.lowerBound..<first + interior.lowerBound + steps * perStep
            if steps > 0 {
                let rowStep = x.input * inputChannels
                let window = source + (oy * y.stride - y.padBefore) * rowStep + (interior.lowerBound * x.stride - x.padBefore) * inputChannels
                stem.run(steps: steps, window: window, pixelStep: x.stride * inputChannels, rowStep: rowStep,
                         out: destination + direct.lowerBound * outputChannels, activation: clamp)
                finish(direct, destination, addend)
            }
            // One band per end cost a GEMM call with its fixed costs for one to five pixels, twice a row: on
            // BlazeFace's 5 × 5 stem as much time as the whole interior.
            func rowEnd(_ pixels: Range<Int>) {
                guard !pixels.isEmpty else { return }
                guard copiedFits else { return band(pixels, source, destination, addend, scratch) }
                stemCopiedWindows(oy, columns: pixels.lowerBound - first..<pixels.upperBound - first, stem, source, destination,
                                  scratch + first * patchSize, clamp)
                finish(pixels, destination, addend)
            }
            rowEnd(first..<direct.lowerBound)
            rowEnd(direct.upperBound..<end)
        }
    }

    /// Output pixels `columns` of row `oy` through the stem's kernel, ``StemConvolution/pixelsPerStep`` at a time, on
    /// their windows copied into `scratch` with zeros for the taps outside the image: the kernel multiplies and adds
    /// tap by tap in the patch's order from the bias, as the GEMM's tile does over an im2col row, so every pixel gets
    /// the bits it got there.
    private func stemCopiedWindows(_ oy: Int, columns: Range<Int>, _ stem: StemConvolution, _ source: UnsafeMutablePointer<Float>,
                                   _ destination: UnsafeMutablePointer<Float>, _ scratch: UnsafeMutablePointer<Float>,
                                   _ clamp: ActivationClamp) {
        let perStep = stem.pixelsPerStep, run = x.filter * inputChannels, channels = inputChannels
        // Laid as the kernel reads an image: filter row ky of pixel i at ky · perStep · run + i · run.
        let rowStep = perStep * run
        let windows = scratch, outputs = scratch + perStep * patchSize
        let taps = y.validTaps(oy)
        var column = columns.lowerBound
        while column < columns.upperBound {
            let count = min(perStep, columns.upperBound - column)
            windows.update(repeating: 0, count: perStep * patchSize)
            for i in 0..<count {
                let ox = column + i
                let tapColumns = x.validTaps(ox)
                guard !tapColumns.isEmpty else { continue }
                for ky in taps {
                    let iy = oy * y.stride - y.padBefore + ky
                    let from = source + (iy * x.input + ox * x.stride - x.padBefore + tapColumns.lowerBound) * channels
                    (windows + ky * rowStep + i * run + tapColumns.lowerBound * channels).update(from: from, count: tapColumns.count * channels)
                }
            }
            stem.run(steps: 1, window: windows, pixelStep: run, rowStep: rowStep, out: outputs, activation: clamp)
            (destination + (oy * x.output + column) * outputChannels).update(from: outputs, count: count * outputChannels)
            column += count
        }
    }

    /// Too few output pixels to give every thread a band of ``KernelConfig/convolutionMinimumPixelsPerThread`` (a
    /// detector's 10 × 10 and 7 × 7 stages ran on one thread, slower at two threads than at one): the threads split
    /// the output channels instead, each over every pixel, as ``PackedGEMM`` splits a product of few rows. First the
    /// patches the tiles read are gathered by all threads (only the border pixels' where the tiles read windows
    /// through pointers), then each thread multiplies its panels; each column's sums are its own, so the same bits as
    /// the bands at any thread count.
    private func splitChannels(_ packed: PackedGEMM, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                               _ addend: UnsafePointer<Float>?, _ memory: TensorMemory) {
        let pixels = y.output * x.output, scratch = memory.scratch.assumingMemoryBound(to: Float.self)
        let pointers = !readsWindowsInPlace(packed) && readsPointers(packed)
        // (A pixel's patch is a whole window of every channel, a 3 × 3 × 128 one 4.6 KB: eight are worth a thread.)
        memory.parallel.forEach(pixels, minimumPerThread: 8, Patches(kernel: self, source: source, scratch: scratch, bordersOnly: pointers))
        if pointers {
            memory.parallel.forEach(packed.panelCount, PointerPanels(
                kernel: self, packed: packed, source: source, destination: destination, addend: addend, scratch: scratch, pixels: pixels))
        } else {
            withTileEpilogue(addend) { epilogue in
                packed.run(a: scratch, lda: patchSize, rows: pixels, c: destination, ldc: outputChannels, activation: activation,
                           epilogue: epilogue, parallel: memory.parallel)
            }
        }
    }

    /// Pixels' patches into their slots of the scratch (pixel p's at p · patchSize); only those whose windows leave
    /// the input when `bordersOnly` (``pointerBand(_:_:_:_:_:_:panels:)`` reads the others in place).
    private struct Patches: ParallelLoop {
        let kernel: Conv2DKernel
        let source: UnsafeMutablePointer<Float>
        let scratch: UnsafeMutablePointer<Float>
        let bordersOnly: Bool
        func run(_ pixels: Range<Int>) {
            let k = kernel
            guard bordersOnly else { return k.gatherPatches(from: source, into: scratch + pixels.lowerBound * k.patchSize, rows: pixels) }
            for pixel in pixels {
                let oy = pixel / k.x.output, ox = pixel - oy * k.x.output
                if !k.windowLiesInside(oy, ox) { k.borderPatch(oy, ox, source, scratch + pixel * k.patchSize) }
            }
        }
    }

    /// A range of panels over every pixel, through pointers (``splitChannels(_:_:_:_:_:)``).
    private struct PointerPanels: ParallelLoop {
        let kernel: Conv2DKernel
        let packed: PackedGEMM
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        let scratch: UnsafeMutablePointer<Float>
        let pixels: Int
        func run(_ panels: Range<Int>) { kernel.pointerBand(0..<pixels, packed, source, destination, addend, scratch, panels: panels) }
    }

    /// Whether output pixel (oy, ox)'s whole window lies in the input (its taps read in place by the pointer tiles).
    @inline(__always)
    private func windowLiesInside(_ oy: Int, _ ox: Int) -> Bool {
        y.validTaps(oy).count == y.filter && x.interior.contains(ox)
    }

    private struct Pixels: ParallelLoop {
        let kernel: Conv2DKernel
        let source: UnsafeMutablePointer<Float>
        let destination: UnsafeMutablePointer<Float>
        let addend: UnsafePointer<Float>?
        let scratch: UnsafeMutablePointer<Float>
        let pixels: Int
        func run(_ rows: Range<Int>) { kernel.band(rows, source, destination, addend, scratch) }
    }

    /// Rows per `cblas_sgemm` call on the OpenBLAS path, each call's rows starting at a multiple of it: the same
    /// calls at any thread count. The threads' granularity of the packed path (``KernelConfig/convolutionMinimumPixelsPerThread``).
    static let blasRowsPerCall = KernelConfig.convolutionMinimumPixelsPerThread

    /// ``Pixels`` by blocks of ``blasRowsPerCall`` pixels.
    private struct BLASBlocks: ParallelLoop {
        let pixels: Pixels
        func run(_ blocks: Range<Int>) {
            let rows = Conv2DKernel.blasRowsPerCall
            pixels.run(blocks.lowerBound * rows..<min(pixels.pixels, blocks.upperBound * rows))
        }
    }

    private func band(_ rows: Range<Int>, _ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                      _ addend: UnsafePointer<Float>?, _ scratch: UnsafeMutablePointer<Float>) {
        if let packed {
            let chunkScratch = scratch + rows.lowerBound * patchSize
            guard readsWindowsInPlace(packed) else {
                if readsPointers(packed) { return pointerBand(rows, packed, source, destination, addend, scratch) }
                return gatheredBand(rows, packed, source, destination, addend, chunkScratch)
            }
            // Whole windows six at a time where they lie in the input; the pixels left between them (each output
            // row's ends and the interior's last few, the rows whose windows leave the image at the top or bottom)
            // form runs of adjacent pixels, gathered as before.
            var pending = rows.lowerBound, pixel = rows.lowerBound
            let interior = x.interior
            let windows = ConvolutionWindows(segments: y.filter, segmentLength: x.filter * inputChannels, segmentStride: x.input * inputChannels)
            while pixel < rows.upperBound {
                let oy = pixel / x.output, rowStart = oy * x.output
                let rowEnd = min(rows.upperBound, rowStart + x.output)
                let first = max(rowStart + interior.lowerBound, pixel), end = min(rowStart + interior.upperBound, rowEnd)
                let groups = y.validTaps(oy).count == y.filter ? max(0, end - first) / 6 : 0
                if groups > 0 {
                    gatheredBand(pending..<first, packed, source, destination, addend, chunkScratch)
                    let window = source + ((oy * y.stride - y.padBefore) * x.input + (first - rowStart) * x.stride - x.padBefore) * inputChannels
                    withTileEpilogue(addend.map { $0 + first * addendStride }) { epilogue in
                        packed.runWindows(a: window, lda: x.stride * inputChannels, groups: groups, windows: windows,
                                          c: destination + first * outputChannels, ldc: outputChannels, activation: activation, epilogue: epilogue)
                    }
                    pending = first + groups * 6
                }
                pixel = rowEnd
            }
            gatheredBand(pending..<rows.upperBound, packed, source, destination, addend, chunkScratch)
            return
        }
        let patches: UnsafePointer<Float>
        if isPointwise {
            patches = UnsafePointer(source + rows.lowerBound * inputChannels)
        } else {
            let rowsScratch = scratch + rows.lowerBound * patchSize
            if ononeLoops {
                // A build without optimization: the same patches copied by C.
                vt_onone_gather_patches(source, rowsScratch, Int32(rows.lowerBound), Int32(rows.upperBound), Int32(x.output),
                                        Int32(y.input), Int32(x.input), Int32(inputChannels), Int32(y.filter), Int32(x.filter),
                                        Int32(y.stride), Int32(x.stride), Int32(y.dilation), Int32(x.dilation),
                                        Int32(y.padBefore), Int32(x.padBefore))
            } else {
                gatherPatches(from: source, into: rowsScratch, rows: rows)
            }
            patches = UnsafePointer(rowsScratch)
        }
        let out = destination + rows.lowerBound * outputChannels
        weights.withUnsafeBufferPointer { w in
            // Block by block from the band's start, a multiple of blasRowsPerCall (BLASBlocks).
            var start = 0
            while start < rows.count {
                let count = min(Self.blasRowsPerCall, rows.count - start)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(count), Int32(outputChannels), Int32(patchSize),
                            1, patches + start * patchSize, Int32(patchSize), w.baseAddress, Int32(patchSize), 0,
                            out + start * outputChannels, Int32(outputChannels))
                start += count
            }
        }
        if ononeLoops, activation != .tanh {
            // A build without optimization: the bias, the activation and the epilogue in one pass of C, the same
            // steps (``Epilogue/apply(output:addend:rows:rowStride:channels:ononeLoop:bias:biasActivation:)``).
            bias.withUnsafeBufferPointer { bias in
                (epilogue ?? Epilogue()).apply(
                    output: out, addend: addend.map { $0 + rows.lowerBound * addendStride }, rows: rows.count, rowStride: outputChannels,
                    channels: 0..<outputChannels, ononeLoop: true, bias: bias.baseAddress, biasActivation: activation)
            }
            return
        }
        addBiasAndActivate(out, rows: rows.count)
        finish(rows, destination, addend)
    }

    private func readsWindowsInPlace(_ packed: PackedGEMM) -> Bool { Self.readsWindowsInPlace(packed.takesWindows, y, x, activation) }
    private func readsPointers(_ packed: PackedGEMM) -> Bool { Self.readsPointers(packed.takesPointers, y, x, activation) }

    /// Whether the packed GEMM reads the windows where they lie (``PackedGEMM/runWindows(a:lda:groups:windows:c:ldc:activation:epilogue:)``):
    /// adjacent taps (dilation 1), no tanh activation of the convolution's own (its pass comes after the tiles), and
    /// output rows of at least ``KernelConfig/windowsMinimumRowPixels``.
    private static func readsWindowsInPlace(_ takesWindows: Bool, _ y: WindowAxis, _ x: WindowAxis, _ activation: Activation) -> Bool {
        takesWindows && x.dilation == 1 && y.dilation == 1 && activation != .tanh && x.output >= KernelConfig.windowsMinimumRowPixels
    }

    /// Whether the packed GEMM reads each window through pointers (``pointerBand(_:_:_:_:_:_:panels:)``), where it does not
    /// read them in place: a window of filter rows (dilation 1) or of taps whose table fits a six-row tile's stack
    /// (``PackedGEMM/maximumPointerSegments``), no tanh activation of the convolution's own.
    private static func readsPointers(_ takesPointers: Bool, _ y: WindowAxis, _ x: WindowAxis, _ activation: Activation) -> Bool {
        let segments = x.dilation == 1 && y.dilation == 1 ? y.filter : y.filter * x.filter
        return takesPointers && !isPointwise(y, x) && activation != .tanh && segments <= PackedGEMM.maximumPointerSegments
    }

    /// Output pixels `rows` through the tiles reading each window by pointers
    /// (``PackedGEMM/runPointers(rows:segments:segmentLength:c:ldc:activation:epilogue:panels:fill:)``), in the im2col row's
    /// depth order: an interior pixel's filter rows where they lie in the input (dilation 1: each a run of the
    /// filter's width times the channels) or its taps (dilated); a pixel whose window leaves the input has its patch
    /// gathered, zeros outside, into its own slot of the scratch (pixel p's at p · patchSize, as the OpenBLAS path
    /// lays them) and is read there. The same multiply-adds in the same order as over the gathered rows: the same bits.
    /// With `panels`, only those panels' channels, and the border patches are gathered already (``Patches``): they are
    /// read, not written, so that threads sharing the pixels do not write the same scratch.
    private func pointerBand(_ rows: Range<Int>, _ packed: PackedGEMM, _ source: UnsafeMutablePointer<Float>,
                             _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?,
                             _ scratch: UnsafeMutablePointer<Float>, panels: Range<Int>? = nil) {
        let channels = inputChannels, filterRows = x.dilation == 1 && y.dilation == 1
        let segments = filterRows ? y.filter : y.filter * x.filter, length = filterRows ? x.filter * channels : channels
        let interior = x.interior, rowStep = x.input * channels
        let source = UnsafePointer(source)
        withTileEpilogue(addend.map { $0 + rows.lowerBound * addendStride }) { epilogue in
            packed.runPointers(rows: rows.count, segments: segments, segmentLength: length, c: destination + rows.lowerBound * outputChannels,
                               ldc: outputChannels, activation: activation, epilogue: epilogue, panels: panels) { first, count, table in
                // The group's pixels are consecutive: one division for the first, then steps along the output rows
                // (an integer division is tens of cycles, six a group beside a few thousand of multiply-adds for a
                // 40² × 32 → 32 layer's group).
                let start = rows.lowerBound + first
                var oy = start / x.output, ox = start - oy * x.output, rowInside = y.validTaps(oy).count == y.filter
                for r in 0..<6 {
                    // A group of fewer than six repeats its last pixel (gathered already, if it needed to be).
                    if r > 0, r < count {
                        ox += 1
                        if ox == x.output {
                            ox = 0
                            oy += 1
                            rowInside = y.validTaps(oy).count == y.filter
                        }
                    }
                    let pixel = oy * x.output + ox
                    if rowInside, interior.contains(ox) {
                        if filterRows {
                            var run = source + ((oy * y.stride - y.padBefore) * x.input + ox * x.stride - x.padBefore) * channels
                            for s in 0..<segments {
                                table[s * 6 + r] = run
                                run += rowStep
                            }
                        } else {
                            for ky in 0..<y.filter {
                                let iy = y.source(oy, ky)
                                for kx in 0..<x.filter {
                                    table[(ky * x.filter + kx) * 6 + r] = source + (iy * x.input + x.source(ox, kx)) * channels
                                }
                            }
                        }
                    } else {
                        let patch = scratch + pixel * patchSize
                        if r < count, panels == nil { borderPatch(oy, ox, source, patch) }
                        for s in 0..<segments { table[s * 6 + r] = UnsafePointer(patch + s * length) }
                    }
                }
            }
        }
    }

    /// Output pixels `rows` through their patches gathered and multiplied chunk by chunk, so that the patches are read
    /// back from L1 rather than after the whole band has gone through L2 (the 3-channel stem: 12,544 rows of 27
    /// floats). Every chunk in the same place, `chunkScratch` (the band's first rows of the scratch): chunks laid along
    /// the band wrote each patch to memory not touched before (ESPCN's 3 × 3 × 64 layer: 115 MB of patches, the
    /// gathering a third of the GEMM's time).
    private func gatheredBand(_ rows: Range<Int>, _ packed: PackedGEMM, _ source: UnsafeMutablePointer<Float>,
                              _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?,
                              _ chunkScratch: UnsafeMutablePointer<Float>) {
        let chunk = max(6, (16 << 10) / (patchSize * 4) / 6 * 6)
        var start = rows.lowerBound
        while start < rows.upperBound {
            let end = min(rows.upperBound, start + chunk)
            gatherPatches(from: source, into: chunkScratch, rows: start..<end)
            withTileEpilogue(addend.map { $0 + start * addendStride }) { epilogue in
                packed.run(a: chunkScratch, lda: patchSize, rows: 0..<(end - start), c: destination + start * outputChannels,
                           ldc: outputChannels, activation: activation, epilogue: epilogue)
            }
            start = end
        }
    }

    /// Runs the fused epilogue, if any, over output pixels `pixels` (the direct and OpenBLAS paths).
    @inline(__always)
    private func finish(_ pixels: Range<Int>, _ destination: UnsafeMutablePointer<Float>, _ addend: UnsafePointer<Float>?) {
        guard let epilogue else { return }
        let offset = pixels.lowerBound * outputChannels
        epilogue.apply(output: destination + offset, addend: addend.map { $0 + pixels.lowerBound * addendStride }, rows: pixels.count,
                       rowStride: outputChannels, channels: 0..<outputChannels, ononeLoop: ononeLoops)
    }

    /// The fused epilogue as the GEMM applies it to each tile it stores; `addend` matches the product's first element.
    @inline(__always)
    private func withTileEpilogue(_ addend: UnsafePointer<Float>?, _ body: (PackedGEMM.Epilogue?) -> Void) {
        guard let epilogue else { return body(nil) }
        let clamp = ActivationClamp(epilogue.clamp), clamps = epilogue.clamp != .none
        var tile = PackedGEMM.Epilogue(addend: addend, addendStride: addendStride, addendColumns: epilogue.addendChannels ?? outputChannels,
                                       clamp: clamp, clamps: clamps, alpha: nil, function: epilogue.function)
        guard let alpha = epilogue.alpha else { return body(tile) }
        alpha.withUnsafeBufferPointer {
            tile.alpha = $0.baseAddress
            body(tile)
        }
    }

    private func direct(_ source: UnsafeMutablePointer<Float>, _ destination: UnsafeMutablePointer<Float>, _ pixels: Range<Int>) {
        let channels = inputChannels
        let rowStep = y.dilation &* x.input &* channels, columnStep = x.dilation &* channels
        let tapRowStep = x.filter &* channels, filterStep = y.filter &* tapRowStep
        weights.withUnsafeBufferPointer { w in
            var pixel = pixels.lowerBound
            while pixel < pixels.upperBound {
                // Walk one output row at a time: the filter rows inside the input are the same along it.
                let oy = pixel / x.output
                let rowEnd = min(pixels.upperBound, (oy &+ 1) &* x.output)
                let ky = y.validTaps(oy)
                let rowBase = source + (oy &* y.stride &- y.padBefore) &* x.input &* channels
                var p = pixel
                while p < rowEnd {
                    let ox = p &- oy &* x.output
                    if outputChannels == 1, channels == 8, ky.count == y.filter, p &+ 8 <= rowEnd,
                       x.validTaps(ox).count == x.filter, x.validTaps(ox &+ 7).count == x.filter {
                        // Eight whole-window pixels at once: their channel partial sums reduce together.
                        let base = rowBase + (ox &* x.stride &- x.padBefore) &* channels
                        destination.advanced(by: p).storeEightDots(
                            base: base, pixelStep: x.stride &* channels, taps: w.baseAddress!, ky: ky, kx: 0..<x.filter,
                            rowStep: rowStep, columnStep: columnStep, tapRowStep: tapRowStep, bias: bias[0], activation: activation)
                        p &+= 8
                        continue
                    }
                    defer { p &+= 1 }
                    let kx = x.validTaps(ox)
                    let base = rowBase + (ox &* x.stride &- x.padBefore) &* channels
                    for o in 0..<outputChannels {
                        // Two accumulators (alternating filter rows) keep the multiply-adds from queueing on each other.
                        var acc0 = SIMD8<Float>(), acc1 = SIMD8<Float>()
                        let filter = w.baseAddress! + o &* filterStep
                        for ty in ky {
                            let inputRow = base + ty &* rowStep, tapRow = filter + ty &* tapRowStep
                            for tx in kx {
                                let input = UnsafeRawPointer(inputRow + tx &* columnStep)
                                let taps = UnsafeRawPointer(tapRow + tx &* channels)
                                var c = 0
                                while c < channels {
                                    let v = input.loadUnaligned(fromByteOffset: 4 &* c, as: SIMD8<Float>.self)
                                    let t = taps.loadUnaligned(fromByteOffset: 4 &* c, as: SIMD8<Float>.self)
                                    if ty & 1 == 0 { acc0.accumulate(v, t) } else { acc1.accumulate(v, t) }
                                    c &+= 8
                                }
                            }
                        }
                        destination[p &* outputChannels &+ o] = activation((acc0 + acc1).sum() + bias[o])
                    }
                }
                pixel = rowEnd
            }
        }
    }


    private func gatherPatches(from source: UnsafeMutablePointer<Float>, into scratch: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        // With dilation 1 the taps of one filter row are adjacent input pixels: one contiguous run of
        // filter × channels floats (9 for the 3-channel stem), copied inline along each output row's interior —
        // a memmove call per 3-float tap, and per-tap bounds checks, cost more than the convolution's arithmetic.
        let channels = inputChannels, run = x.filter &* channels, rowStep = x.input &* channels
        let interior = x.dilation == 1 && y.dilation == 1 ? x.interior : 0..<0
        var pixel = rows.lowerBound
        var patch = scratch
        while pixel < rows.upperBound {
            let oy = pixel / x.output
            let rowEnd = min(rows.upperBound, (oy &+ 1) &* x.output)
            let first = pixel &- oy &* x.output, end = rowEnd &- oy &* x.output
            let fast = interior.isEmpty || y.validTaps(oy).count != y.filter
                ? first..<first : interior.clamped(to: first..<end)
            for ox in first..<(fast.isEmpty ? end : fast.lowerBound) { borderPatch(oy, ox, source, patch); patch += patchSize }
            if !fast.isEmpty {
                var input = UnsafePointer(source + ((oy &* y.stride &- y.padBefore) &* x.input &+ fast.lowerBound &* x.stride &- x.padBefore) &* channels)
                let pixelStep = x.stride &* channels
                for _ in fast {
                    var row = input
                    for _ in 0..<y.filter {
                        copyFloats(from: row, to: patch, count: run)
                        row += rowStep
                        patch += run
                    }
                    input += pixelStep
                }
                for ox in fast.upperBound..<end { borderPatch(oy, ox, source, patch); patch += patchSize }
            }
            pixel = rowEnd
        }
    }

    /// One patch with bounds checks per tap; taps outside the input are zeros.
    private func borderPatch(_ oy: Int, _ ox: Int, _ source: UnsafePointer<Float>, _ patch: UnsafeMutablePointer<Float>) {
        var tap = patch
        for ky in 0..<y.filter {
            let iy = y.source(oy, ky)
            for kx in 0..<x.filter {
                let ix = x.source(ox, kx)
                if iy >= 0, iy < y.input, ix >= 0, ix < x.input {
                    copyFloats(from: source + (iy * x.input + ix) * inputChannels, to: tap, count: inputChannels)
                } else {
                    tap.update(repeating: 0, count: inputChannels)
                }
                tap += inputChannels
            }
        }
    }

    @inline(__always)
    private func copyFloats(from source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i &+ 8 <= count {
            UnsafeMutableRawPointer(destination + i).storeBytes(
                of: UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<Float>.self), as: SIMD8<Float>.self)
            i &+= 8
        }
        while i < count {
            destination[i] = source[i]
            i &+= 1
        }
    }

    private func addBiasAndActivate(_ destination: UnsafeMutablePointer<Float>, rows: Int) {
        bias.withUnsafeBufferPointer { bias in
            for r in 0..<rows {
                let out = destination + r * outputChannels
                for c in 0..<outputChannels { out[c] += bias[c] }
                activation.apply(out, count: outputChannels)
            }
        }
    }
}

extension UnsafeMutablePointer where Pointee == Float {
    /// out[i] = activation(bias + Σ over taps and 8 channels of input(pixel i) · taps), for 8 pixels `pixelStep`
    /// floats apart. Each pixel's 8-channel partial sums stay in one register; the eight registers are reduced
    /// together by three rounds of pairwise adds of even and odd lanes, ending with pixel i's total in lane i.
    @inline(__always)
    func storeEightDots(base: UnsafeMutablePointer<Float>, pixelStep: Int, taps: UnsafePointer<Float>, ky: Range<Int>, kx: Range<Int>,
                        rowStep: Int, columnStep: Int, tapRowStep: Int, bias: Float, activation: Activation) {
        var p0 = SIMD8<Float>(), p1 = p0, p2 = p0, p3 = p0, p4 = p0, p5 = p0, p6 = p0, p7 = p0
        @inline(__always) func load(_ q: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(q).loadUnaligned(as: SIMD8<Float>.self) }
        for ty in ky {
            for tx in kx {
                let t = load(taps + (ty &* tapRowStep &+ tx &* 8))
                let q = UnsafePointer(base + (ty &* rowStep &+ tx &* columnStep))
                p0.accumulate(load(q), t)
                p1.accumulate(load(q + pixelStep), t)
                p2.accumulate(load(q + 2 &* pixelStep), t)
                p3.accumulate(load(q + 3 &* pixelStep), t)
                p4.accumulate(load(q + 4 &* pixelStep), t)
                p5.accumulate(load(q + 5 &* pixelStep), t)
                p6.accumulate(load(q + 6 &* pixelStep), t)
                p7.accumulate(load(q + 7 &* pixelStep), t)
            }
        }
        @inline(__always) func pair(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
            SIMD8(lowHalf: a.evenHalf + a.oddHalf, highHalf: b.evenHalf + b.oddHalf)
        }
        let totals = pair(pair(pair(p0, p1), pair(p2, p3)), pair(pair(p4, p5), pair(p6, p7)))
        let result = activation(totals + SIMD8(repeating: bias))
        for i in 0..<8 { self[i] = result[i] }
    }
}
