import CVisionTasksMicroKernels
import VisionTasksEngineSIMD

// The AVX2 tier's quantized depthwise channel loops (``KernelConfig/DepthwiseKernel/eightChannels``): int32 lanes
// eight channels at a time on border pixels and on maps of fewer than 16 channels, int16 tap pairs on sixteen
// channels in two eight-lane `vpmaddwd` accumulators (``TapPairs``' order) inside. ``QuantizedDepthwiseConv2DKernel``
// chooses these or the sixteen-channel loops (QuantizedDepthwiseConv2DSixteenChannels.swift) once, when it is built.
// The typed (generic) bodies are called only from this file, through the untyped entry points below: a generic
// function called from another file is not specialized in a debug build, and its SIMD arithmetic then runs through
// generic calls.
extension QuantizedDepthwiseConv2DKernel {
    /// Output rows `rows` of one batch item.
    func eightChannelRows(_ rows: Range<Int>, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer) {
        if signed {
            self.rows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
        } else {
            self.rows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Output rows `rows` over the padded copy `source`.
    func eightChannelPaddedRows(_ rows: Range<Int>, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer) {
        if signed {
            paddedRows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
        } else {
            paddedRows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// ``pixels(_:_:_:_:_:_:_:_:)`` for the sixteen-channel loops, which hand it the interior pixels of maps of fewer
    /// than 16 channels: `count` pixels from `origin`, input rows `rowStep` elements apart.
    func eightChannelPixels(_ count: Int, _ origin: UnsafeRawPointer, _ rowStep: Int, _ out: UnsafeMutableRawPointer) {
        weights.withUnsafeBufferPointer { w in
            scales.withUnsafeBufferPointer { s in
                interiorBias.withUnsafeBufferPointer { ib in
                    let (w, s, ib) = (w.baseAddress!, s.baseAddress!, ib.baseAddress!)
                    switch (signed, y.filter) {
                    case (true, 3):
                        pixels(count, origin.assumingMemoryBound(to: Int8.self), rowStep, out.assumingMemoryBound(to: Int8.self), w, ib, s, ThreeTaps.self)
                    case (true, _):
                        pixels(count, origin.assumingMemoryBound(to: Int8.self), rowStep, out.assumingMemoryBound(to: Int8.self), w, ib, s, FiveTaps.self)
                    case (false, 3):
                        pixels(count, origin.assumingMemoryBound(to: UInt8.self), rowStep, out.assumingMemoryBound(to: UInt8.self), w, ib, s, ThreeTaps.self)
                    case (false, _):
                        pixels(count, origin.assumingMemoryBound(to: UInt8.self), rowStep, out.assumingMemoryBound(to: UInt8.self), w, ib, s, FiveTaps.self)
                    }
                }
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
            if let loop = pairedLoop?.table.pointee.paired {
                return pairedPixelsInC(loop, count, UnsafeRawPointer(origin), offsets.baseAddress!, taps: taps, out, Element.isSigned)
            }
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

    /// ``pairedPixels`` through the C loop of the CPU's tier (``pairedLoop``), one call per group of 16 channels.
    private func pairedPixelsInC<Element: QuantizedElement>(
        _ loop: vision_tasks_q16_dwconv_paired_loop, _ count: Int, _ origin: UnsafeRawPointer, _ offsets: UnsafePointer<Int>,
        taps: Int, _ out: UnsafeMutablePointer<Element>, _ signed: Bool) {
        var parameters = requantization.microKernelParameters(signed: signed)
        let pairs = (taps + 1) / 2
        pairedWeights.withUnsafeBufferPointer { weights in
            pairedBias.withUnsafeBufferPointer { bias in
                pairedScales.withUnsafeBufferPointer { scales in
                    withUnsafePointer(to: &parameters) { parameters in
                        for (group, c) in pairedGroups.enumerated() {
                            var row = vision_tasks_q_dwconv_paired_row(
                                origin: origin + c, offsets: offsets, taps: taps, count: count, column_step: x.stride * channels,
                                out_step: channels, weights: weights.baseAddress! + group * pairs * 32, bias: bias.baseAddress! + group * 16,
                                scales: scales.baseAddress! + group * 16, out: UnsafeMutableRawPointer(out + c),
                                input_signed: signed ? 1 : 0, q: parameters)
                            loop(&row)
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
