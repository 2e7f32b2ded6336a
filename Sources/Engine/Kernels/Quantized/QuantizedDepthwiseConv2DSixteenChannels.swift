import VisionTasksEngineSIMD

// The AVX-512 tiers' quantized depthwise channel loops (``KernelConfig/DepthwiseKernel/sixteenChannels``): sixteen
// channels per vector, one zmm register of int32 sums.
//
// Inside (windows wholly in the input, 16 channels or more): two taps per multiply-add, as the eight-channel loops
// do, but in channel order: each tap's sixteen bytes widened to int32 lanes (`vpmovzxbd` / `vpmovsxbd`), the second
// tap's shifted into the high half of each lane, so that lane c holds the int16 pair (first[c], second[c]); one
// `vpmaddwd` (AVX-512) or `vpdpwssd` (VNNI, which adds as it multiplies) against the weights packed the same way then
// adds both taps' products into lane c. No unpacking into ``TapPairs``' order, one accumulator per 16 channels, and
// the bias, scales and stores in channel order. XNNPACK's AVX-512 qs8/qu8 depthwise kernels widen to int32 and use
// `vpmulld`, one tap per instruction.
//
// Border pixels: int32 lanes less the zero point, sixteen channels a step (`vpmulld` on zmm), then eight, then the
// scalar rest. Maps of fewer than 16 channels go to the eight-channel loops inside. Every sum is exact int32, as in
// the eight-channel loops, and the requantization is the same per lane: the bytes are identical whichever loop runs.
extension QuantizedDepthwiseConv2DKernel {
    /// Output rows `rows` of one batch item (typed here; see QuantizedDepthwiseConv2DEightChannels.swift for why).
    func sixteenChannelRows(_ rows: Range<Int>, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer) {
        if signed {
            wideRows(rows, source.assumingMemoryBound(to: Int8.self), destination.assumingMemoryBound(to: Int8.self))
        } else {
            wideRows(rows, source.assumingMemoryBound(to: UInt8.self), destination.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Output rows `rows` over the padded copy `source`.
    func sixteenChannelPaddedRows(_ rows: Range<Int>, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer) {
        guard let padded else { return }
        for oy in rows {
            let origin = source + oy * y.stride * padded.width * channels
            let out = destination + oy * x.output * channels
            if signed {
                widePixels(x.output, origin.assumingMemoryBound(to: Int8.self), padded.width * channels, out.assumingMemoryBound(to: Int8.self))
            } else {
                widePixels(x.output, origin.assumingMemoryBound(to: UInt8.self), padded.width * channels, out.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    private func wideRows<Element: QuantizedElement>(_ rows: Range<Int>, _ source: UnsafePointer<Element>, _ destination: UnsafeMutablePointer<Element>) {
        let interiorRows = y.interior, interiorColumns = x.interior
        let square = multiplier == 1 && y.filter == x.filter && y.dilation == 1 && x.dilation == 1
        for oy in rows {
            guard square, interiorRows.contains(oy), !interiorColumns.isEmpty, y.filter == 3 || y.filter == 5 else {
                wideBorder(oy, 0..<x.output, source, destination)
                continue
            }
            wideBorder(oy, 0..<interiorColumns.lowerBound, source, destination)
            widePixels(interiorColumns.count, source + (y.source(oy, 0) * x.input + x.source(interiorColumns.lowerBound, 0)) * channels,
                       x.input * channels, destination + (oy * x.output + interiorColumns.lowerBound) * channels)
            wideBorder(oy, interiorColumns.upperBound..<x.output, source, destination)
        }
    }

    /// `count` output pixels in a row whose windows lie inside the input (or the padded copy), the first window's
    /// top-left input value at `origin`, input rows `rowStep` elements apart, a square 3 × 3 or 5 × 5 filter.
    private func widePixels<Element: QuantizedElement>(_ count: Int, _ origin: UnsafePointer<Element>, _ rowStep: Int,
                                                       _ out: UnsafeMutablePointer<Element>) {
        if wideGroups.isEmpty { return eightChannelPixels(count, origin, rowStep, out) }
        if y.filter == 3 {
            widePairs(count, origin, rowStep, out, ThreeTaps.self)
        } else {
            widePairs(count, origin, rowStep, out, FiveTaps.self)
        }
    }

    /// Group by group along the row (one group's weights stay in L1 for all its pixels), one 16-lane accumulator per
    /// pixel from ``interiorBias``, the taps two at a time.
    private func widePairs<Element: QuantizedElement, Taps: FilterTaps>(
        _ count: Int, _ origin: UnsafePointer<Element>, _ rowStep: Int, _ out: UnsafeMutablePointer<Element>, _: Taps.Type) {
        let store = RequantizedStore<Element>(requantization)
        let columnStep = x.stride * channels, taps = Taps.size * Taps.size, pairs = (taps + 1) / 2, fullPairs = taps / 2
        @inline(__always) func widen(_ p: UnsafePointer<Element>) -> SIMD16<Int32> { SIMD16<Int32>(widening: p, signed: Element.isSigned) }
        // Lane c: first[c] in the low int16, second[c] in the high one (little-endian: int16 lanes 2c and 2c + 1).
        // A signed first value's sign bits must not reach the high half.
        @inline(__always) func pair(_ first: SIMD16<Int32>, _ second: SIMD16<Int32>) -> SIMD32<Int16> {
            let low = Element.isSigned ? first & SIMD16(repeating: 0xFFFF) : first
            return unsafeBitCast(low | (second &<< 16), to: SIMD32<Int16>.self)
        }
        // Each tap's offset from the window's first input, computed once (as in the eight-channel loops).
        withUnsafeTemporaryAllocation(of: Int.self, capacity: taps) { offsets in
            for tap in 0..<taps { offsets[tap] = (tap / Taps.size) * rowStep + (tap % Taps.size) * channels }
            wideWeights.withUnsafeBufferPointer { weights in
                interiorBias.withUnsafeBufferPointer { bias in
                    scales.withUnsafeBufferPointer { scales in
                        wideGroups.withUnsafeBufferPointer { groups in
                            for group in groups.indices {
                                let c = groups[group]
                                let groupBias = UnsafeRawPointer(bias.baseAddress! + c).loadUnaligned(as: SIMD16<Int32>.self)
                                let groupScale = UnsafeRawPointer(scales.baseAddress! + c).loadUnaligned(as: SIMD16<Float>.self)
                                let groupWeights = UnsafeRawPointer(weights.baseAddress! + group * pairs * 32)
                                var pixel = origin + c, target = out + c
                                for _ in 0..<count {
                                    var sum = groupBias
                                    for p in 0..<fullPairs {
                                        sum.accumulatePairs(pair(widen(pixel + offsets[2 * p]), widen(pixel + offsets[2 * p + 1])),
                                                            groupWeights.loadUnaligned(fromByteOffset: p * 64, as: SIMD32<Int16>.self))
                                    }
                                    if taps % 2 == 1 {
                                        // The last tap alone: its weights' second halves are 0, so the sign bits in
                                        // the high halves multiply nothing.
                                        sum.accumulatePairs(unsafeBitCast(widen(pixel + offsets[taps - 1]), to: SIMD32<Int16>.self),
                                                            groupWeights.loadUnaligned(fromByteOffset: fullPairs * 64, as: SIMD32<Int16>.self))
                                    }
                                    store.store(sum, groupScale, target)
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

    /// Output pixels `range` of row `oy`, any filter: taps outside the input skipped, the zero point subtracted per
    /// tap, sixteen channels a step, then eight, then one at a time (a channel multiplier above 1: one at a time).
    private func wideBorder<Element: QuantizedElement>(_ oy: Int, _ range: Range<Int>, _ source: UnsafePointer<Element>,
                                                       _ destination: UnsafeMutablePointer<Element>) {
        guard !range.isEmpty else { return }
        let taps = y.validTaps(oy)
        let store = RequantizedStore<Element>(requantization)
        let zero = SIMD16<Int32>(repeating: inputZeroPoint)
        let wideChannels = multiplier == 1 ? channels & ~15 : 0, vectorChannels = multiplier == 1 ? channels & ~7 : 0
        weights.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                scales.withUnsafeBufferPointer { s in
                    let (w, bias, scales) = (UnsafeRawPointer(w.baseAddress!), b.baseAddress!, s.baseAddress!)
                    for ox in range {
                        let columns = x.validTaps(ox)
                        let out = destination + (oy * x.output + ox) * channels
                        var c = 0
                        while c < wideChannels {
                            var sum = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD16<Int32>.self)
                            for ky in taps {
                                let line = source + y.source(oy, ky) * x.input * inputChannels
                                for kx in columns {
                                    let values = SIMD16<Int32>(widening: line + x.source(ox, kx) * inputChannels + c, signed: Element.isSigned)
                                    let tap = w.loadUnaligned(fromByteOffset: ((ky * x.filter + kx) * channels + c) * 4, as: SIMD16<Int32>.self)
                                    sum &+= (values &- zero) &* tap
                                }
                            }
                            store.store(sum, UnsafeRawPointer(scales + c).loadUnaligned(as: SIMD16<Float>.self), out + c)
                            c += 16
                        }
                        if c < vectorChannels {
                            var sum = UnsafeRawPointer(bias + c).loadUnaligned(as: SIMD8<Int32>.self)
                            for ky in taps {
                                let line = source + y.source(oy, ky) * x.input * inputChannels
                                for kx in columns {
                                    let values = SIMD8<Int32>(widening: line + x.source(ox, kx) * inputChannels + c, signed: Element.isSigned)
                                    let tap = w.loadUnaligned(fromByteOffset: ((ky * x.filter + kx) * channels + c) * 4, as: SIMD8<Int32>.self)
                                    sum &+= (values &- zero.lowHalf) &* tap
                                }
                            }
                            store.store(sum, UnsafeRawPointer(scales + c).loadUnaligned(as: SIMD8<Float>.self), out + c)
                            c += 8
                        }
                        while c < channels {
                            var sum = bias[c]
                            let ic = c / multiplier
                            for ky in taps {
                                let line = source + y.source(oy, ky) * x.input * inputChannels
                                for kx in columns {
                                    sum &+= (Int32(line[x.source(ox, kx) * inputChannels + ic]) - inputZeroPoint)
                                        &* w.load(fromByteOffset: ((ky * x.filter + kx) * channels + c) * 4, as: Int32.self)
                                }
                            }
                            out[c] = Element(truncatingIfNeeded: requantization(sum, scale: scales[c]))
                            c += 1
                        }
                    }
                }
            }
        }
    }
}
