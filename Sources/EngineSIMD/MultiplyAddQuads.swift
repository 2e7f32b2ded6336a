#if arch(x86_64)
import _Builtin_intrinsics.intel
#elseif arch(arm64) && VISION_TASKS_DOTPROD
import _Builtin_intrinsics.arm.neon
#endif

/// Whether ``SIMD16/accumulateQuads(_:_:)`` reads its first operand's bytes as signed: the instructions differ by
/// architecture. x86's `vpdpbusd` multiplies unsigned by signed bytes; ARMv8.2's `sdot` signed by signed (`usdot`,
/// unsigned by signed, is ARMv8.6's I8MM, which a Pi 5 or a Graviton 2 has not got). The kernels built on it shift
/// their inputs into the range the instruction takes (`QuantizedDotGEMM` in the engine), so every form is exact.
@inlinable
public var quadsTakeSignedBytes: Bool {
    #if arch(arm64)
    return true
    #else
    return false
    #endif
}

extension SIMD16 where Scalar == Int32 {
    /// `self += Σ quads`: bytes 4i … 4i+3 of `a` (unsigned on x86, signed on arm64: ``quadsTakeSignedBytes``) and `b`
    /// (signed) multiplied and the four products added into lane i — AVX-512 VNNI's `vpdpbusd`, 64 int8 multiply-adds
    /// an instruction against `vpmaddwd`'s 16 on int16 pairs (``SIMD8/accumulatePairs(_:_:)``), or ARMv8.2's `sdot`. Exact: the int32 sums wrap rather than saturate, as the
    /// instruction does (`vpdpbusds` would saturate), so a sum that ends inside int32 is exact however it is grouped.
    ///
    /// In a VNNI build (`VISION_TASKS_CPU=znver4`, `icelake-server`, …) the instruction, through Clang's intrinsic; in
    /// an arm64 build for the dot-product tier (`cortex-a76`, `neoverse-n1`, …) four `sdot`s, one a 16-byte chunk.
    /// Elsewhere the same arithmetic spelled with pairs (AVX2's `vpmaddwd` in a tuned build), so that the VNNI tier's
    /// micro-kernels (``QuantizedDotGEMM`` in the engine) run, and are tested against LiteRT, on any CPU; that form is
    /// slower than the int16-pair tiles and no other tier picks it.
    @inlinable @inline(__always)
    public mutating func accumulateQuads(_ a: SIMD64<UInt8>, _ b: SIMD64<Int8>) {
        #if VISION_TASKS_AVX512VNNI && arch(x86_64)
        self = unsafeBitCast(
            _mm512_dpbusd_epi32(unsafeBitCast(self, to: __m512i.self), unsafeBitCast(a, to: __m512i.self),
                                unsafeBitCast(b, to: __m512i.self)),
            to: SIMD16<Int32>.self)
        #elseif VISION_TASKS_DOTPROD && arch(arm64)
        @inline(__always) func quads(_ sums: SIMD4<Int32>, _ a: SIMD16<UInt8>, _ b: SIMD16<Int8>) -> SIMD4<Int32> {
            vdotq_s32(sums, unsafeBitCast(a, to: SIMD16<Int8>.self), b)
        }
        self = SIMD16(lowHalf: SIMD8(lowHalf: quads(lowHalf.lowHalf, a.lowHalf.lowHalf, b.lowHalf.lowHalf),
                                     highHalf: quads(lowHalf.highHalf, a.lowHalf.highHalf, b.lowHalf.highHalf)),
                      highHalf: SIMD8(lowHalf: quads(highHalf.lowHalf, a.highHalf.lowHalf, b.highHalf.lowHalf),
                                      highHalf: quads(highHalf.highHalf, a.highHalf.highHalf, b.highHalf.highHalf)))
        #elseif VISION_TASKS_FMA && arch(x86_64)
        // AVX2: each 16-byte chunk widened to int16 (`vpmovzxbw`, `vpmovsxbw`) and multiplied in pairs (`vpmaddwd`);
        // the even and odd pair sums added make the quads, in order.
        @inline(__always) func quads(_ a: SIMD16<UInt8>, _ b: SIMD16<Int8>) -> SIMD4<Int32> {
            let pairs = _mm256_madd_epi16(_mm256_cvtepu8_epi16(unsafeBitCast(a, to: __m128i.self)),
                                          _mm256_cvtepi8_epi16(unsafeBitCast(b, to: __m128i.self)))
            let sums = unsafeBitCast(pairs, to: SIMD8<Int32>.self)
            return sums.evenHalf &+ sums.oddHalf
        }
        self &+= SIMD16(lowHalf: SIMD8(lowHalf: quads(a.lowHalf.lowHalf, b.lowHalf.lowHalf), highHalf: quads(a.lowHalf.highHalf, b.lowHalf.highHalf)),
                        highHalf: SIMD8(lowHalf: quads(a.highHalf.lowHalf, b.highHalf.lowHalf), highHalf: quads(a.highHalf.highHalf, b.highHalf.highHalf)))
        #else
        // Lane i of a 16-byte chunk's pair sums (0+1, 2+3, …) holds half a quad; even and odd lanes make whole ones.
        @inline(__always) func quads(_ chunk: Int) -> SIMD4<Int32> {
            var x = SIMD16<Int16>(), y = SIMD16<Int16>()
            for lane in 0..<16 {
                let byte = a[chunk &* 16 &+ lane]
                x[lane] = quadsTakeSignedBytes ? Int16(Int8(bitPattern: byte)) : Int16(byte)
                y[lane] = Int16(b[chunk &* 16 &+ lane])
            }
            var pairs = SIMD8<Int32>()
            pairs.accumulatePairs(x, y)
            return pairs.evenHalf &+ pairs.oddHalf
        }
        self &+= SIMD16(lowHalf: SIMD8(lowHalf: quads(0), highHalf: quads(1)), highHalf: SIMD8(lowHalf: quads(2), highHalf: quads(3)))
        #endif
    }
}
