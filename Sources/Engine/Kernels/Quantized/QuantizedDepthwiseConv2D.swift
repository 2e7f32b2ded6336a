import CVisionTasksOnoneKernels
import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// DEPTHWISE_CONV_2D on uint8 or int8 tensors: per output pixel, eight channels at a time in int32 lanes
/// (input − zero point times filter − zero point, exact), requantized per channel like ``QuantizedGEMM``'s tiles.
/// Taps outside the input are skipped, which is padding with the zero point. Output rows are split over threads.
/// Pixels whose window lies inside the input, with 16 channels or more, take two taps per int16 multiply-add
/// (``pairedPixels``); SSD's depthwise layers ran 1.4–1.6 × faster that way than on int32 lanes.
///
/// This file plans the work; the channel loops are the tier's (``KernelConfig/quantizedDepthwise``), chosen when the
/// kernel is built: eight channels per vector in QuantizedDepthwiseConv2DEightChannels.swift, sixteen in
/// QuantizedDepthwiseConv2DSixteenChannels.swift. Their int32 sums are exact, so both give the same bytes.
struct QuantizedDepthwiseConv2DKernel: Kernel {
    /// int8 rather than uint8 (not a generic type: see ``QuantizedConv2DKernel``).
    let signed: Bool
    let input: Int
    let output: Int
    let batch: Int
    let inputChannels: Int
    let channels: Int
    let multiplier: Int
    let y: WindowAxis
    let x: WindowAxis
    let inputZeroPoint: Int32
    /// [tap][output channel], filter less its zero point.
    let weights: [Int32]
    let bias: [Int32]
    let scales: [Float]
    /// Bias less input zero point × the channel's filter sum: the whole accumulator's zero-point term for pixels
    /// whose window lies inside the input, so their taps multiply the stored values directly.
    let interiorBias: [Int32]
    let requantization: Requantization
    /// Which channel loops run: the tier's choice, made once here.
    let channelLoops: KernelConfig.DepthwiseKernel
    /// The CPU's tier's C loop that runs the paired pixels in place of the Swift one (``KernelConfig/
    /// quantizedDepthwiseLoops``), or nil.
    let pairedLoop: QuantizedDepthwiseLoops?
    /// Where the unchecked pixel loop takes 16 channels at a time, two taps per multiply-add (``TapPairs``): the
    /// first channel of each group — every 16, plus an overlapping last group when the count is not a multiple of
    /// 16 (24 channels: 0 and 8; the overlap is computed twice and stored alike). Empty below 16 channels or with a
    /// channel multiplier.
    let pairedGroups: [Int]
    /// Per group, per pair of taps (the last one alone when the count is odd): the low then the high tap pairs'
    /// weights, interleaved as ``TapPairs/interleave(_:_:)`` interleaves the inputs.
    let pairedWeights: [Int16]
    /// Per group, ``interiorBias`` and the scales in the pairs' channel order (low channels, then high).
    let pairedBias: [Int32]
    let pairedScales: [Float]
    /// The sixteen-channel loops' groups (chosen as ``pairedGroups`` are: every 16 channels, the last overlapping)
    /// and, per group and pair of taps, the two taps' weights for each of its sixteen channels in channel order
    /// (first, second), as its pixel loop pairs the inputs. Empty in the eight-channel loops, as ``pairedGroups`` and
    /// its packing are in the sixteen-channel ones.
    let wideGroups: [Int]
    let wideWeights: [Int16]
    /// Size of a copy of the input padded with the zero point on every side the windows reach, when the border
    /// pixels are too many to take the per-tap checked path (5 × 5 filters on 14 × 14 maps: half the pixels): every
    /// pixel then runs the unrolled interior loop over the copy.
    let padded: (height: Int, width: Int)?
    /// Rows through the C loop of a build without optimization (``KernelConfig/ononeLoops``; channel multiplier 1).
    let ononeLoops: Bool

    init(_ context: OperatorContext) throws(EngineError) {
        guard case let .depthwiseConv2D(options) = context.options else { throw context.fail("missing DepthwiseConv2DOptions") }
        input = try context.input(0)
        output = try context.output(0)
        let filter = try context.input(1)
        signed = try context.requireSameQuantizedType([output, filter]) == .int8
        guard let i = nhwc(context.shape(input)), context.shape(filter).count == 4 else {
            throw context.fail("input or filter is not 4-D")
        }
        let f = context.shape(filter)
        guard f[0] == 1, i.c > 0, f[3] % i.c == 0 else { throw context.fail("filter \(f) for \(i.c) input channels") }
        batch = i.n
        inputChannels = i.c
        channels = f[3]
        multiplier = f[3] / i.c
        let padded = context.paddedSpatialSize(i)
        (y, x) = context.unpadding(
            try context.windowAxis(input: padded.h, filter: f[1], stride: options.strideHeight, dilation: options.dilationHeight, padding: options.padding),
            try context.windowAxis(input: padded.w, filter: f[2], stride: options.strideWidth, dilation: options.dilationWidth, padding: options.padding))
        try context.expect([batch, y.output, x.output, channels], forOutput: 0)
        let layer = try QuantizedLayer(context, filter: filter, filterAxis: 3, channels: channels, activation: options.activation)
        inputZeroPoint = layer.input.zeroPoint
        weights = layer.weights.map(Int32.init)
        bias = layer.bias
        scales = layer.scales
        requantization = layer.requantization
        let taps = f[1] * f[2], zero = layer.input.zeroPoint, filterWeights = weights
        interiorBias = (0..<f[3]).map { c in
            (0..<taps).reduce(layer.bias[c]) { $0 &- zero &* filterWeights[$1 * f[3] + c] }
        }
        channelLoops = context.kernels.quantizedDepthwise
        pairedLoop = channelLoops == .eightChannels ? context.kernels.quantizedDepthwiseLoops : nil
        var groups: [Int] = []
        if multiplier == 1, f[3] >= 16 {
            groups = Array(Swift.stride(from: 0, through: f[3] - 16, by: 16))
            if f[3] % 16 != 0 { groups.append(f[3] - 16) }
        }
        let pairs = (taps + 1) / 2, outputChannels = f[3]
        /// Taps 2 × `pair` and 2 × `pair` + 1 of channel `c` (0 for the second past the last tap).
        func pairWeights(_ pair: Int, _ c: Int) -> [Int16] {
            let first = filterWeights[2 * pair * outputChannels + c]
            let second = 2 * pair + 1 < taps ? filterWeights[(2 * pair + 1) * outputChannels + c] : 0
            return [Int16(first), Int16(second)]
        }
        switch channelLoops {
        case .eightChannels:
            let order = TapPairs.lowChannels + TapPairs.highChannels
            pairedGroups = groups
            pairedWeights = groups.flatMap { c in (0..<pairs).flatMap { pair in order.flatMap { pairWeights(pair, c + $0) } } }
            let bias = interiorBias, scales = layer.scales
            pairedBias = groups.flatMap { c in order.map { bias[c + $0] } }
            pairedScales = groups.flatMap { c in order.map { scales[c + $0] } }
            (wideGroups, wideWeights) = ([], [])
        case .sixteenChannels:
            wideGroups = groups
            wideWeights = groups.flatMap { c in (0..<pairs).flatMap { pair in (0..<16).flatMap { pairWeights(pair, c + $0) } } }
            (pairedGroups, pairedWeights, pairedBias, pairedScales) = ([], [], [], [])
        }
        ononeLoops = context.kernels.ononeLoops && multiplier == 1
        let pixels = y.output * x.output, interiorPixels = y.interior.count * x.interior.count
        if !ononeLoops, multiplier == 1, f[1] == f[2], f[1] == 3 || f[1] == 5, y.dilation == 1, x.dilation == 1, (pixels - interiorPixels) * 10 > pixels {
            self.padded = ((y.output - 1) * y.stride + y.filter, (x.output - 1) * x.stride + x.filter)
        } else {
            self.padded = nil
        }
    }

    var scratchBytes: Int { padded.map { $0.height * $0.width * channels } ?? 0 }

    func run(_ memory: TensorMemory) {
        if let padded {
            let copy = memory.scratch.assumingMemoryBound(to: UInt8.self)
            for b in 0..<batch {
                // The zero point everywhere, then the input's rows at their padded place (clipped to what is read).
                copy.initialize(repeating: UInt8(truncatingIfNeeded: inputZeroPoint), count: padded.height * padded.width * channels)
                let source = UnsafeRawPointer(memory.raw(input)) + b * y.input * x.input * inputChannels
                let columns = min(x.input, padded.width - x.padBefore)
                for iy in 0..<min(y.input, padded.height - y.padBefore) {
                    (copy + ((iy + y.padBefore) * padded.width + x.padBefore) * channels)
                        .update(from: (source + iy * x.input * channels).assumingMemoryBound(to: UInt8.self), count: columns * channels)
                }
                memory.parallel.forEach(y.output, PaddedRows(
                    kernel: self, source: UnsafeRawPointer(copy), destination: memory.raw(output) + b * y.output * x.output * channels))
            }
            return
        }
        if ononeLoops {
            for b in 0..<batch {
                memory.parallel.forEach(y.output, OnoneRows(
                    kernel: self, source: UnsafeRawPointer(memory.raw(input)) + b * y.input * x.input * inputChannels,
                    destination: memory.raw(output) + b * y.output * x.output * channels))
            }
            return
        }
        for b in 0..<batch {
            memory.parallel.forEach(y.output, Rows(
                kernel: self, source: UnsafeRawPointer(memory.raw(input)) + b * y.input * x.input * inputChannels,
                destination: memory.raw(output) + b * y.output * x.output * channels))
        }
    }

    private struct Rows: ParallelLoop {
        let kernel: QuantizedDepthwiseConv2DKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer

        func run(_ rows: Range<Int>) {
            switch kernel.channelLoops {
            case .eightChannels: kernel.eightChannelRows(rows, source, destination)
            case .sixteenChannels: kernel.sixteenChannelRows(rows, source, destination)
            }
        }
    }

    /// Output rows through the C loop of a build without optimization: the same exact sums and requantization.
    private struct OnoneRows: ParallelLoop {
        let kernel: QuantizedDepthwiseConv2DKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer

        func run(_ rows: Range<Int>) {
            let k = kernel, channels = k.channels, requantization = k.requantization
            k.weights.withUnsafeBufferPointer { weights in
                k.bias.withUnsafeBufferPointer { bias in
                    k.scales.withUnsafeBufferPointer { scales in
                        for oy in rows {
                            let taps = k.y.validTaps(oy)
                            vt_onone_quantized_depthwise_row(
                                source + (oy &* k.y.stride &- k.y.padBefore) &* k.x.input &* channels, k.signed ? 1 : 0,
                                k.y.dilation &* k.x.input &* channels, Int32(taps.lowerBound), Int32(taps.upperBound), Int32(k.x.output),
                                Int32(k.x.input), Int32(channels), Int32(k.x.filter), Int32(k.x.stride), Int32(k.x.dilation),
                                Int32(k.x.padBefore), k.inputZeroPoint, weights.baseAddress, bias.baseAddress, scales.baseAddress,
                                requantization.lower, requantization.upper, requantization.zeroPoint,
                                destination + oy &* k.x.output &* channels, requantization.roundsHalfUp ? 1 : 0)
                        }
                    }
                }
            }
        }
    }

    private struct PaddedRows: ParallelLoop {
        let kernel: QuantizedDepthwiseConv2DKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer

        func run(_ rows: Range<Int>) {
            switch kernel.channelLoops {
            case .eightChannels: kernel.eightChannelPaddedRows(rows, source, destination)
            case .sixteenChannels: kernel.sixteenChannelPaddedRows(rows, source, destination)
            }
        }
    }
}

/// A square depthwise filter's side as a type, so that loops over its taps have constant bounds.
protocol FilterTaps { static var size: Int { get } }
enum ThreeTaps: FilterTaps { static var size: Int { 3 } }
enum FiveTaps: FilterTaps { static var size: Int { 5 } }
