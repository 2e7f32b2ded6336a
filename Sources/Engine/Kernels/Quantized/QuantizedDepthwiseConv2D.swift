import VisionTasksEngineSIMD
import VisionTasksModelFormat

/// DEPTHWISE_CONV_2D on uint8 or int8 tensors: per output pixel, eight channels at a time in int32 lanes
/// (input − zero point times filter − zero point, exact), requantized per channel like ``QuantizedGEMM``'s tiles.
/// Taps outside the input are skipped, which is padding with the zero point. Output rows are split over threads.
/// Pixels whose window lies inside the input, with 16 channels or more, take two taps per int16 multiply-add
/// (``pairedPixels``); SSD's depthwise layers ran 1.4–1.6 × faster that way than on int32 lanes.
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
    /// Size of a copy of the input padded with the zero point on every side the windows reach, when the border
    /// pixels are too many to take the per-tap checked path (5 × 5 filters on 14 × 14 maps: half the pixels): every
    /// pixel then runs the unrolled interior loop over the copy.
    let padded: (height: Int, width: Int)?

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
        if multiplier == 1, f[3] >= 16 {
            let channels = f[3]
            var groups = Array(Swift.stride(from: 0, through: channels - 16, by: 16))
            if channels % 16 != 0 { groups.append(channels - 16) }
            let order = TapPairs.lowChannels + TapPairs.highChannels, pairs = (taps + 1) / 2
            pairedGroups = groups
            pairedWeights = groups.flatMap { c in
                (0..<pairs).flatMap { pair in
                    order.flatMap { lane -> [Int16] in
                        let first = filterWeights[2 * pair * channels + c + lane]
                        let second = 2 * pair + 1 < taps ? filterWeights[(2 * pair + 1) * channels + c + lane] : 0
                        return [Int16(first), Int16(second)]
                    }
                }
            }
            let bias = interiorBias, scales = layer.scales
            pairedBias = groups.flatMap { c in order.map { bias[c + $0] } }
            pairedScales = groups.flatMap { c in order.map { scales[c + $0] } }
        } else {
            (pairedGroups, pairedWeights, pairedBias, pairedScales) = ([], [], [], [])
        }
        let pixels = y.output * x.output, interiorPixels = y.interior.count * x.interior.count
        if multiplier == 1, f[1] == f[2], f[1] == 3 || f[1] == 5, y.dilation == 1, x.dilation == 1, (pixels - interiorPixels) * 10 > pixels {
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
            if kernel.signed {
                kernel.rows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
            } else {
                kernel.rows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    private struct PaddedRows: ParallelLoop {
        let kernel: QuantizedDepthwiseConv2DKernel
        let source: UnsafeRawPointer
        let destination: UnsafeMutableRawPointer

        func run(_ rows: Range<Int>) {
            if kernel.signed {
                kernel.paddedRows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
            } else {
                kernel.paddedRows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    /// Every pixel of `rows` through the unrolled interior loop, reading the padded copy.
    private func paddedRows<Element: QuantizedElement>(_ rows: Range<Int>, _ source: UnsafePointer<Element>,
                                                       _ destination: UnsafeMutablePointer<Element>) {
        guard let padded else { return }
        weights.withUnsafeBufferPointer { w in
            scales.withUnsafeBufferPointer { s in
                interiorBias.withUnsafeBufferPointer { ib in
                    let (w, s, ib) = (w.baseAddress!, s.baseAddress!, ib.baseAddress!)
                    for oy in rows {
                        let origin = source + oy * y.stride * padded.width * channels
                        let out = destination + oy * x.output * channels
                        if y.filter == 3 {
                            pixels(x.output, origin, padded.width * channels, out, w, ib, s, ThreeTaps.self)
                        } else {
                            pixels(x.output, origin, padded.width * channels, out, w, ib, s, FiveTaps.self)
                        }
                    }
                }
            }
        }
    }

    private func rows<Element: QuantizedElement>(_ rows: Range<Int>, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>) {
        let interiorRows = y.interior, interiorColumns = x.interior
        let square = multiplier == 1 && y.filter == x.filter && y.dilation == 1 && x.dilation == 1
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                scales.withUnsafeBufferPointer { s in
                    interiorBias.withUnsafeBufferPointer { ib in
                        let (w, b, s, ib) = (w.baseAddress!, b.baseAddress!, s.baseAddress!, ib.baseAddress!)
                        for oy in rows {
                            guard square, interiorRows.contains(oy), !interiorColumns.isEmpty, y.filter == 3 || y.filter == 5 else {
                                row(oy, 0..<x.output, source, destination, w, b, s)
                                continue
                            }
                            row(oy, 0..<interiorColumns.lowerBound, source, destination, w, b, s)
                            if y.filter == 3 {
                                interior(oy, interiorColumns, source, destination, w, ib, s, ThreeTaps.self)
                            } else {
                                interior(oy, interiorColumns, source, destination, w, ib, s, FiveTaps.self)
                            }
                            row(oy, interiorColumns.upperBound..<x.output, source, destination, w, b, s)
                        }
                    }
                }
            }
        }
    }

    /// Output pixels whose whole window lies inside the input, for a square 3 × 3 or 5 × 5 filter (a type, so that
    /// the tap loops have constant bounds and unroll): 16 channels at a time through ``pairedPixels`` (8 at a time
    /// below 16 channels), the stored values multiplied directly (the zero point's share is in ``interiorBias``), no
    /// bounds checks.
    private func interior<Element: QuantizedElement, Taps: FilterTaps>(
        _ oy: Int, _ columns: Range<Int>, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>,
        _ w: UnsafePointer<Int32>, _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>, _: Taps.Type) {
        pixels(columns.count, source + (y.source(oy, 0) * x.input + x.source(columns.lowerBound, 0)) * channels, x.input * channels,
               destination + (oy * x.output + columns.lowerBound) * channels, w, bias, scales, Taps.self)
    }

    /// `count` output pixels in a row, the first window's top-left input value at `origin`, input rows `rowStep`
    /// elements apart: no bounds checks, the zero point's share in `bias` (``interiorBias``).
    private func pixels<Element: QuantizedElement, Taps: FilterTaps>(
        _ count: Int, _ origin: UnsafePointer<Element>, _ rowStep: Int, _ out: UnsafeMutablePointer<Element>,
        _ w: UnsafePointer<Int32>, _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>, _: Taps.Type) {
        if !pairedGroups.isEmpty { return pairedPixels(count, origin, rowStep, out, Taps.self) }
        let store = RequantizedStore<Element>(requantization)
        let columnStep = x.stride * channels
        @inline(__always) func widen(_ p: UnsafePointer<Element>) -> SIMD8<Int32> { SIMD8<Int32>(widening: p, signed: Element.isSigned) }
        @inline(__always) func load(_ p: UnsafePointer<Int32>) -> SIMD8<Int32> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Int32>.self) }
        @inline(__always) func loadScale(_ c: Int) -> SIMD8<Float> { UnsafeRawPointer(scales + c).loadUnaligned(as: SIMD8<Float>.self) }
        var origin = origin, out = out
        for _ in 0..<count {
            var c = 0
            if c + 8 <= channels {
                var acc = load(bias + c)
                for ky in 0..<Taps.size {
                    for kx in 0..<Taps.size {
                        acc &+= widen(origin + ky * rowStep + kx * channels + c) &* load(w + (ky * Taps.size + kx) * channels + c)
                    }
                }
                store.store(acc, loadScale(c), out + c)
                c += 8
            }
            while c < channels {
                var acc = bias[c]
                for ky in 0..<Taps.size {
                    for kx in 0..<Taps.size {
                        acc &+= Int32(origin[ky * rowStep + kx * channels + c]) &* w[(ky * Taps.size + kx) * channels + c]
                    }
                }
                out[c] = Element(truncatingIfNeeded: requantization(acc, scale: scales[c]))
                c += 1
            }
            origin += columnStep
            out += channels
        }
    }

    /// ``pixels`` with 16 channels at a time and two taps per multiply-add: each tap's 16 inputs widened to int16,
    /// two taps interleaved into pairs (``TapPairs``), one `vpmaddwd` per 8 channels and pair of taps against
    /// weights packed the same way — half the multiplies of the int32 lanes, and no `vpmulld` (XNNPACK's AVX2 qu8
    /// depthwise kernels widen to int32 and use it). Exact: |input| ≤ 255 and |weight| ≤ 255 keep a pair's sum far
    /// inside int32.
    private func pairedPixels<Element: QuantizedElement, Taps: FilterTaps>(
        _ count: Int, _ origin: UnsafePointer<Element>, _ rowStep: Int, _ out: UnsafeMutablePointer<Element>, _: Taps.Type) {
        let store = RequantizedStore<Element>(requantization)
        let columnStep = x.stride * channels, taps = Taps.size * Taps.size, pairs = (taps + 1) / 2, fullPairs = taps / 2
        @inline(__always) func widen(_ p: UnsafePointer<Element>) -> SIMD16<Int16> { SIMD16<Int16>(widening: p, signed: Element.isSigned) }
        // Each tap's offset from the window's first input, computed once: a 5 × 5 filter's 13 pairs do not unroll,
        // and dividing the tap index by 5 in the loop cost as much as the multiply-adds.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: taps) { offsets in
            for tap in 0..<taps { offsets[tap] = (tap / Taps.size) * rowStep + (tap % Taps.size) * channels }
            pairedWeights.withUnsafeBufferPointer { weights in
                pairedBias.withUnsafeBufferPointer { bias in
                    pairedScales.withUnsafeBufferPointer { scales in
                        pairedGroups.withUnsafeBufferPointer { groups in
                            // Group by group along the row: one group's weights stay in L1 for all pixels.
                            for group in groups.indices {
                                let c = groups[group]
                                let groupBias = UnsafeRawPointer(bias.baseAddress! + group * 16)
                                let groupScales = UnsafeRawPointer(scales.baseAddress! + group * 16)
                                let groupWeights = UnsafeRawPointer(weights.baseAddress! + group * pairs * 32)
                                let lowScale = groupScales.loadUnaligned(as: SIMD8<Float>.self)
                                let highScale = groupScales.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                                var pixel = origin + c, target = out + c
                                for _ in 0..<count {
                                    var low = groupBias.loadUnaligned(as: SIMD8<Int32>.self)
                                    var high = groupBias.loadUnaligned(fromByteOffset: 32, as: SIMD8<Int32>.self)
                                    @inline(__always) func accumulate(_ pair: Int, _ first: SIMD16<Int16>, _ second: SIMD16<Int16>) {
                                        let (pairedLow, pairedHigh) = TapPairs.interleave(first, second)
                                        low.accumulatePairs(pairedLow, groupWeights.loadUnaligned(fromByteOffset: pair * 64, as: SIMD16<Int16>.self))
                                        high.accumulatePairs(pairedHigh, groupWeights.loadUnaligned(fromByteOffset: pair * 64 + 32, as: SIMD16<Int16>.self))
                                    }
                                    for pair in 0..<fullPairs {
                                        accumulate(pair, widen(pixel + offsets[2 * pair]), widen(pixel + offsets[2 * pair + 1]))
                                    }
                                    if taps % 2 == 1 { accumulate(fullPairs, widen(pixel + offsets[taps - 1]), .zero) }
                                    store.storePaired(low, high, lowScale, highScale, target)
                                    pixel += columnStep
                                    target += channels
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Output pixels `range` of row `oy`, any filter: taps outside the input skipped, the zero point subtracted per tap.
    private func row<Element: QuantizedElement>(_ oy: Int, _ range: Range<Int>, _ source: UnsafePointer<Element>,
                                                _ destination: UnsafeMutablePointer<Element>,
                                                _ w: UnsafePointer<Int32>, _ bias: UnsafePointer<Int32>, _ scales: UnsafePointer<Float>) {
        let taps = y.validTaps(oy)
        let store = RequantizedStore<Element>(requantization)
        let zero = SIMD8<Int32>(repeating: inputZeroPoint)
        let vectorChannels = multiplier == 1 ? channels & ~7 : 0
        for ox in range {
            let columns = x.validTaps(ox)
            let out = destination + (oy * x.output + ox) * channels
            var c = 0
            while c < vectorChannels {
                var acc = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Int32>.self)
                for ky in taps {
                    let line = source + y.source(oy, ky) * x.input * inputChannels
                    for kx in columns {
                        let values = SIMD8<Int32>(widening: line + x.source(ox, kx) * inputChannels + c, signed: Element.isSigned)
                        let tap = UnsafeRawPointer(w + (ky * x.filter + kx) * channels + c).loadUnaligned(as: SIMD8<Int32>.self)
                        acc &+= (values &- zero) &* tap
                    }
                }
                let scale = UnsafeRawPointer(scales + c).loadUnaligned(as: SIMD8<Float>.self)
                store.store(acc, scale, out + c)
                c += 8
            }
            while c < channels {
                var acc = bias[c]
                let ic = c / multiplier
                for ky in taps {
                    let line = source + y.source(oy, ky) * x.input * inputChannels
                    for kx in columns {
                        acc &+= (Int32(line[x.source(ox, kx) * inputChannels + ic]) - inputZeroPoint) * w[(ky * x.filter + kx) * channels + c]
                    }
                }
                out[c] = Element(truncatingIfNeeded: requantization(acc, scale: scales[c]))
                c += 1
            }
        }
    }
}

/// A square depthwise filter's side as a type, so that loops over its taps have constant bounds.
protocol FilterTaps { static var size: Int { get } }
enum ThreeTaps: FilterTaps { static var size: Int { 3 } }
enum FiveTaps: FilterTaps { static var size: Int { 5 } }
