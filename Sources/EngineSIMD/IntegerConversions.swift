#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

// The conversions of the quantized kernels' epilogues and loads, one instruction each in a tuned x86-64 build, two
// SSE2 instructions (one per half) in a portable x86-64 build. The standard library's generic SIMD conversions
// (`SIMD8<Float>(intVector)`, `SIMD8<Int32>(floatVector)`, `truncatingIfNeeded:`) go lane by lane with range checks;
// in the requantizing epilogue they cost more than the multiply-adds of a 1 × 1 convolution (mobilenet 0.25:
// 64 × 64 × 8 → 16 took 1.4 ms). Elsewhere: plain lane loops.

extension SIMD8 where Scalar == Int32 {
    /// The lanes as floats (rounded to nearest even past 2²⁴): `vcvtdq2ps`.
    @inlinable @inline(__always)
    public var floats: SIMD8<Float> {
        #if VISION_TASKS_FMA && arch(x86_64)
        return _mm256_cvtepi32_ps(unsafeBitCast(self, to: __m256i.self))
        #elseif arch(x86_64)
        return SIMD8<Float>(lowHalf: _mm_cvtepi32_ps(unsafeBitCast(lowHalf, to: __m128i.self)),
                     highHalf: _mm_cvtepi32_ps(unsafeBitCast(highHalf, to: __m128i.self)))
        #else
        var result = SIMD8<Float>()
        for lane in 0..<8 { result[lane] = Float(self[lane]) }
        return result
        #endif
    }

    /// Eight bytes at `pointer` widened: zero-extended, or sign-extended when `signed` (`vpmovzxbd` / `vpmovsxbd`).
    @inlinable @inline(__always)
    public init(widening pointer: UnsafeRawPointer, signed: Bool) {
        #if VISION_TASKS_FMA && arch(x86_64)
        let bytes = _mm_loadl_epi64(pointer.assumingMemoryBound(to: __m128i.self))
        self = unsafeBitCast(signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes), to: SIMD8<Int32>.self)
        #elseif arch(x86_64)
        // SSE2 has no pmovzx/pmovsx: interleave with zeros twice, then move the sign in with shifts when signed.
        let zero = _mm_setzero_si128()
        let words = _mm_unpacklo_epi8(_mm_loadl_epi64(pointer.assumingMemoryBound(to: __m128i.self)), zero)
        let widened = SIMD8(lowHalf: unsafeBitCast(_mm_unpacklo_epi16(words, zero), to: SIMD4<Int32>.self),
                            highHalf: unsafeBitCast(_mm_unpackhi_epi16(words, zero), to: SIMD4<Int32>.self))
        self = signed ? (widened &<< 24) &>> 24 : widened
        #else
        self.init()
        for lane in 0..<8 {
            self[lane] = signed ? Int32(pointer.load(fromByteOffset: lane, as: Int8.self)) : Int32(pointer.load(fromByteOffset: lane, as: UInt8.self))
        }
        #endif
    }
}

extension SIMD8 where Scalar == Float {
    /// The lanes rounded half to even (the default rounding mode) to int32: `vcvtps2dq`. Lanes must be in range.
    @inlinable @inline(__always)
    public var roundedToInt32: SIMD8<Int32> {
        #if VISION_TASKS_FMA && arch(x86_64)
        return unsafeBitCast(_mm256_cvtps_epi32(self), to: SIMD8<Int32>.self)
        #elseif arch(x86_64)
        return SIMD8<Int32>(lowHalf: unsafeBitCast(_mm_cvtps_epi32(lowHalf), to: SIMD4<Int32>.self),
                     highHalf: unsafeBitCast(_mm_cvtps_epi32(highHalf), to: SIMD4<Int32>.self))
        #else
        var result = SIMD8<Int32>()
        // Out-of-range lanes as x86 converts them (0x80000000), not a trap.
        for lane in 0..<8 {
            let value = self[lane].rounded(.toNearestOrEven)
            result[lane] = value.isNaN || value >= 2_147_483_648 || value < -2_147_483_648 ? .min : Int32(value)
        }
        return result
        #endif
    }
}

/// Sixteen int32 lanes already inside the byte type's range, as sixteen bytes (int8 bit patterns when `signed`):
/// two saturating packs and a lane fix-up in a tuned x86-64 build.
@inlinable @inline(__always)
public func narrowToBytes(_ low: SIMD8<Int32>, _ high: SIMD8<Int32>, signed: Bool) -> SIMD16<UInt8> {
    #if VISION_TASKS_FMA && arch(x86_64)
    // packs interleaves 128-bit halves: (low 0–3, high 0–3, low 4–7, high 4–7) as int16 pairs per dword; vpermd
    // restores the order (the immediate-operand permutes are macros Swift cannot call).
    let packed = _mm256_packs_epi32(unsafeBitCast(low, to: __m256i.self), unsafeBitCast(high, to: __m256i.self))
    let ordered = unsafeBitCast(_mm256_permutevar8x32_epi32(packed, unsafeBitCast(SIMD8<Int32>(0, 1, 4, 5, 2, 3, 6, 7), to: __m256i.self)),
                                to: SIMD16<Int16>.self)
    let first = unsafeBitCast(ordered.lowHalf, to: __m128i.self), second = unsafeBitCast(ordered.highHalf, to: __m128i.self)
    return unsafeBitCast(signed ? _mm_packs_epi16(first, second) : _mm_packus_epi16(first, second), to: SIMD16<UInt8>.self)
    #elseif arch(x86_64)
    let first = _mm_packs_epi32(unsafeBitCast(low.lowHalf, to: __m128i.self), unsafeBitCast(low.highHalf, to: __m128i.self))
    let second = _mm_packs_epi32(unsafeBitCast(high.lowHalf, to: __m128i.self), unsafeBitCast(high.highHalf, to: __m128i.self))
    return unsafeBitCast(signed ? _mm_packs_epi16(first, second) : _mm_packus_epi16(first, second), to: SIMD16<UInt8>.self)
    #else
    var result = SIMD16<UInt8>()
    for lane in 0..<8 {
        result[lane] = UInt8(truncatingIfNeeded: low[lane])
        result[lane + 8] = UInt8(truncatingIfNeeded: high[lane])
    }
    return result
    #endif
}

// Sixteen lanes, for the AVX-512 tiers' depthwise loops: one zmm instruction each in an AVX-512 build, the eight-lane
// conversions above on each half elsewhere (lane for lane the same results).

extension SIMD16 where Scalar == Int32 {
    /// The lanes as floats (rounded to nearest even past 2²⁴): `vcvtdq2ps` on a zmm register.
    @inlinable @inline(__always)
    public var floats: SIMD16<Float> {
        #if VISION_TASKS_AVX512 && arch(x86_64)
        return _mm512_cvtepi32_ps(unsafeBitCast(self, to: __m512i.self))
        #else
        return SIMD16<Float>(lowHalf: lowHalf.floats, highHalf: highHalf.floats)
        #endif
    }

    /// Sixteen bytes at `pointer` widened: zero-extended, or sign-extended when `signed` (`vpmovzxbd` / `vpmovsxbd`
    /// to a zmm register).
    @inlinable @inline(__always)
    public init(widening pointer: UnsafeRawPointer, signed: Bool) {
        #if VISION_TASKS_AVX512 && arch(x86_64)
        let bytes = _mm_loadu_si128(pointer.assumingMemoryBound(to: __m128i.self))
        self = unsafeBitCast(signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes), to: SIMD16<Int32>.self)
        #else
        self.init(lowHalf: SIMD8<Int32>(widening: pointer, signed: signed), highHalf: SIMD8<Int32>(widening: pointer + 8, signed: signed))
        #endif
    }
}

extension SIMD16 where Scalar == Float {
    /// The lanes rounded half to even (the default rounding mode) to int32: `vcvtps2dq` on a zmm register. Lanes
    /// must be in range.
    @inlinable @inline(__always)
    public var roundedToInt32: SIMD16<Int32> {
        #if VISION_TASKS_AVX512 && arch(x86_64)
        return unsafeBitCast(_mm512_cvtps_epi32(self), to: SIMD16<Int32>.self)
        #else
        return SIMD16<Int32>(lowHalf: lowHalf.roundedToInt32, highHalf: highHalf.roundedToInt32)
        #endif
    }
}

/// Sixteen int32 lanes already inside the byte type's range, as sixteen bytes (int8 bit patterns when `signed`):
/// AVX-512's `vpmovdb` (truncation, exact for lanes in range), or ``narrowToBytes(_:_:signed:)`` on the halves.
@inlinable @inline(__always)
public func narrowToBytes(_ lanes: SIMD16<Int32>, signed: Bool) -> SIMD16<UInt8> {
    #if VISION_TASKS_AVX512 && arch(x86_64)
    return unsafeBitCast(_mm512_cvtepi32_epi8(unsafeBitCast(lanes, to: __m512i.self)), to: SIMD16<UInt8>.self)
    #else
    return narrowToBytes(lanes.lowHalf, lanes.highHalf, signed: signed)
    #endif
}
