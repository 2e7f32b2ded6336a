#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

// Two filter taps of sixteen channels as int16 pairs, so that a depthwise convolution multiplies and adds two taps
// per `vpmaddwd` (``SIMD8/accumulatePairs(_:_:)``) instead of one tap per `vpmulld` on widened int32 lanes.
//
// The pairs come in the order AVX2's in-lane unpacks give them, which every build follows: the "low" pairs hold
// channels 0–3 and 8–11, the "high" pairs 4–7 and 12–15 (``TapPairs/lowChannels``, ``TapPairs/highChannels``).
// Weights, biases and scales are packed in that order at load; ``narrowPairedToBytes(_:_:signed:)`` puts the
// sixteen results back in channel order, which the saturating packs do by themselves in that layout.

public enum TapPairs {
    /// The channels (of 16) whose sums the low pairs' accumulator holds, lane by lane.
    public static let lowChannels = [0, 1, 2, 3, 8, 9, 10, 11]
    /// The channels the high pairs' accumulator holds.
    public static let highChannels = [4, 5, 6, 7, 12, 13, 14, 15]

    /// `a` and `b` interleaved: (a[c], b[c]) for the low channels, then for the high ones.
    @inlinable @inline(__always)
    public static func interleave(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) -> (low: SIMD16<Int16>, high: SIMD16<Int16>) {
        #if VISION_TASKS_FMA && arch(x86_64)
        let x = unsafeBitCast(a, to: __m256i.self), y = unsafeBitCast(b, to: __m256i.self)
        return (unsafeBitCast(_mm256_unpacklo_epi16(x, y), to: SIMD16<Int16>.self),
                unsafeBitCast(_mm256_unpackhi_epi16(x, y), to: SIMD16<Int16>.self))
        #elseif arch(x86_64)
        let x0 = unsafeBitCast(a.lowHalf, to: __m128i.self), x1 = unsafeBitCast(a.highHalf, to: __m128i.self)
        let y0 = unsafeBitCast(b.lowHalf, to: __m128i.self), y1 = unsafeBitCast(b.highHalf, to: __m128i.self)
        return (SIMD16(lowHalf: unsafeBitCast(_mm_unpacklo_epi16(x0, y0), to: SIMD8<Int16>.self),
                       highHalf: unsafeBitCast(_mm_unpacklo_epi16(x1, y1), to: SIMD8<Int16>.self)),
                SIMD16(lowHalf: unsafeBitCast(_mm_unpackhi_epi16(x0, y0), to: SIMD8<Int16>.self),
                       highHalf: unsafeBitCast(_mm_unpackhi_epi16(x1, y1), to: SIMD8<Int16>.self)))
        #else
        // Spelled out lane by lane, which LLVM turns into vector shuffles (zip1/zip2 on arm64).
        return (SIMD16(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3], a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11]),
                SIMD16(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7], a[12], b[12], a[13], b[13], a[14], b[14], a[15], b[15]))
        #endif
    }
}

extension SIMD16 where Scalar == Int16 {
    /// Sixteen bytes at `pointer` widened: zero-extended, or sign-extended when `signed` (`vpmovzxbw` / `vpmovsxbw`).
    @inlinable @inline(__always)
    public init(widening pointer: UnsafeRawPointer, signed: Bool) {
        #if VISION_TASKS_FMA && arch(x86_64)
        let bytes = _mm_loadu_si128(pointer.assumingMemoryBound(to: __m128i.self))
        self = unsafeBitCast(signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes), to: SIMD16<Int16>.self)
        #elseif arch(x86_64)
        let bytes = _mm_loadu_si128(pointer.assumingMemoryBound(to: __m128i.self)), zero = _mm_setzero_si128()
        let widened = SIMD16(lowHalf: unsafeBitCast(_mm_unpacklo_epi8(bytes, zero), to: SIMD8<Int16>.self),
                             highHalf: unsafeBitCast(_mm_unpackhi_epi8(bytes, zero), to: SIMD8<Int16>.self))
        self = signed ? (widened &<< 8) &>> 8 : widened
        #else
        self.init()
        for lane in 0..<16 {
            self[lane] = signed ? Int16(pointer.load(fromByteOffset: lane, as: Int8.self)) : Int16(pointer.load(fromByteOffset: lane, as: UInt8.self))
        }
        #endif
    }
}

/// The sixteen int32 results of paired accumulators (`low`: channels 0–3 and 8–11, `high`: 4–7 and 12–15), already
/// inside the byte type's range, as sixteen bytes in channel order (int8 bit patterns when `signed`).
@inlinable @inline(__always)
public func narrowPairedToBytes(_ low: SIMD8<Int32>, _ high: SIMD8<Int32>, signed: Bool) -> SIMD16<UInt8> {
    #if VISION_TASKS_FMA && arch(x86_64)
    // The in-lane pack of (0–3, 8–11) with (4–7, 12–15) is channels 0–7 | 8–15 as int16.
    let words = _mm256_packs_epi32(unsafeBitCast(low, to: __m256i.self), unsafeBitCast(high, to: __m256i.self))
    let halves = unsafeBitCast(words, to: SIMD16<Int16>.self)
    let first = unsafeBitCast(halves.lowHalf, to: __m128i.self), second = unsafeBitCast(halves.highHalf, to: __m128i.self)
    return unsafeBitCast(signed ? _mm_packs_epi16(first, second) : _mm_packus_epi16(first, second), to: SIMD16<UInt8>.self)
    #elseif arch(x86_64)
    let first = _mm_packs_epi32(unsafeBitCast(low.lowHalf, to: __m128i.self), unsafeBitCast(high.lowHalf, to: __m128i.self))
    let second = _mm_packs_epi32(unsafeBitCast(low.highHalf, to: __m128i.self), unsafeBitCast(high.highHalf, to: __m128i.self))
    return unsafeBitCast(signed ? _mm_packs_epi16(first, second) : _mm_packus_epi16(first, second), to: SIMD16<UInt8>.self)
    #else
    let l = SIMD8<UInt8>(truncatingIfNeeded: low), h = SIMD8<UInt8>(truncatingIfNeeded: high)
    return SIMD16(l[0], l[1], l[2], l[3], h[0], h[1], h[2], h[3], l[4], l[5], l[6], l[7], h[4], h[5], h[6], h[7])
    #endif
}
