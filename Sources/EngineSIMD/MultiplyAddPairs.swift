#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

extension SIMD8 where Scalar == Int32 {
    /// `self += Σ pairs`: lanes 2i and 2i+1 of `a` and `b` multiplied and the two products added into lane i — the
    /// int16 multiply-add every quantized GEMM and convolution tile is made of (16 multiply-adds per instruction).
    ///
    /// In a tuned x86-64 build (AVX2, `VISION_TASKS_CPU=haswell`) this is `vpmaddwd` + `vpaddd`, through Clang's
    /// intrinsic: LLVM does not recognise the widening multiply and the even/odd add of the portable form as
    /// vpmaddwd (it emits four vpmulld and shuffles). In a portable x86-64 build (a dependent's plain `swift build`),
    /// SSE2's `pmaddwd` on the two halves: SSE2 is part of x86-64 itself, and the portable form ran SSD 8 × slower
    /// than LiteRT there. Elsewhere the portable form, which arm64 vectorizes well.
    @inlinable @inline(__always)
    public mutating func accumulatePairs(_ a: SIMD16<Int16>, _ b: SIMD16<Int16>) {
        #if VISION_TASKS_FMA && arch(x86_64)
        let product = _mm256_madd_epi16(unsafeBitCast(a, to: __m256i.self), unsafeBitCast(b, to: __m256i.self))
        self &+= unsafeBitCast(product, to: SIMD8<Int32>.self)
        #elseif arch(x86_64)
        let low = _mm_madd_epi16(unsafeBitCast(a.lowHalf, to: __m128i.self), unsafeBitCast(b.lowHalf, to: __m128i.self))
        let high = _mm_madd_epi16(unsafeBitCast(a.highHalf, to: __m128i.self), unsafeBitCast(b.highHalf, to: __m128i.self))
        self &+= SIMD8(lowHalf: unsafeBitCast(low, to: SIMD4<Int32>.self), highHalf: unsafeBitCast(high, to: SIMD4<Int32>.self))
        #else
        let product = SIMD16<Int32>(truncatingIfNeeded: a) &* SIMD16<Int32>(truncatingIfNeeded: b)
        self &+= product.evenHalf &+ product.oddHalf
        #endif
    }
}

extension SIMD16 where Scalar == Int32 {
    /// `self += Σ pairs` on sixteen lanes: lanes 2i and 2i+1 of `a` and `b` multiplied and the two products added
    /// into lane i (the sixteen-channel depthwise loops' multiply-add, two taps per instruction).
    ///
    /// With AVX-512 VNNI one `vpdpwssd` on zmm registers (the products' sum added in the same instruction, wrapping as
    /// `vpaddd` does: `vpdpwssds` would saturate); with AVX-512 `vpmaddwd` + `vpaddd` on zmm registers; elsewhere
    /// ``SIMD8/accumulatePairs(_:_:)`` on each half (AVX2's `vpmaddwd` in a tuned build). Exact in every form.
    @inlinable @inline(__always)
    public mutating func accumulatePairs(_ a: SIMD32<Int16>, _ b: SIMD32<Int16>) {
        #if VISION_TASKS_AVX512VNNI && arch(x86_64)
        self = unsafeBitCast(
            _mm512_dpwssd_epi32(unsafeBitCast(self, to: __m512i.self), unsafeBitCast(a, to: __m512i.self), unsafeBitCast(b, to: __m512i.self)),
            to: SIMD16<Int32>.self)
        #elseif VISION_TASKS_AVX512 && arch(x86_64)
        self &+= unsafeBitCast(_mm512_madd_epi16(unsafeBitCast(a, to: __m512i.self), unsafeBitCast(b, to: __m512i.self)), to: SIMD16<Int32>.self)
        #else
        var low = lowHalf, high = highHalf
        low.accumulatePairs(a.lowHalf, b.lowHalf)
        high.accumulatePairs(a.highHalf, b.highHalf)
        self = SIMD16(lowHalf: low, highHalf: high)
        #endif
    }
}
