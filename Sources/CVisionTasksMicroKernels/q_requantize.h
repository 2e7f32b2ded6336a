// The quantized tiles' requantizing stores (micro_kernels.h's `vision_tasks_q_requantization`), shared by their files.
// The requantization is in C with the tiles rather than in Swift after them: in a plain build the Swift epilogue is
// SSE2 code run over int32 accumulators stored to memory and read back, where here they go from registers to bytes.
// Each step is the instruction the Swift tiles' `RequantizedStore` and `narrowToBytes` use in a tuned build, so the
// bytes are the same for every input, out-of-range and NaN lanes included: `cvtps2dq` gives 0x80000000 for those, the
// zero point is added wrapping, and the narrowing saturates as `packssdw` then `packsswb`/`packuswb` do.
#ifndef VISION_TASKS_Q_REQUANTIZE_H
#define VISION_TASKS_Q_REQUANTIZE_H
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>
#include "micro_kernels.h"

#define VT_Q_AVX2 __attribute__((target("avx2,fma")))
// The VNNI tier's features as KernelConfig names them (AVX-512 F/BW/DQ/VL and VNNI).
#define VT_Q_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma")))

/// Eight sums (bias included) requantized to int32 with the zero point added: `RequantizedStore.callAsFunction`.
static inline VT_Q_AVX2 __m256i vt_q_requantize8(__m256i sums, __m256 scale, const struct vision_tasks_q_requantization *q) {
    const __m256 scaled = _mm256_mul_ps(_mm256_cvtepi32_ps(sums), scale);
    // max(lower, v) then min(upper, ·) with the bound first: x86's operand order (`ActivationClamp`).
    const __m256 clamped = _mm256_min_ps(_mm256_set1_ps(q->upper), _mm256_max_ps(_mm256_set1_ps(q->lower), scaled));
    return _mm256_add_epi32(_mm256_cvtps_epi32(clamped), _mm256_set1_epi32(q->zero_point));
}

/// Sixteen int32 lanes to sixteen bytes, saturating: `narrowToBytes(_:_:signed:)`.
static inline VT_Q_AVX2 __m128i vt_q_narrow16(__m256i low, __m256i high, int output_signed) {
    // packssdw interleaves the 128-bit halves (low 0–3, high 0–3, low 4–7, high 4–7); the permute restores the order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(low, high), 0xD8);
    const __m128i first = _mm256_castsi256_si128(packed), second = _mm256_extracti128_si256(packed, 1);
    return output_signed ? _mm_packs_epi16(first, second) : _mm_packus_epi16(first, second);
}

/// The first `width` (≤ 16) of sixteen bytes to `c`: whole when 16, byte by byte otherwise (the bytes after belong
/// to the next row, which another thread may be writing).
static inline VT_Q_AVX2 void vt_q_store16(void *c, __m128i bytes, size_t width) {
    if (width >= 16) {
        _mm_storeu_si128((__m128i *)c, bytes);
    } else {
        unsigned char lanes[16];
        _mm_storeu_si128((__m128i *)lanes, bytes);
        memcpy(c, lanes, width);
    }
}

/// A row's two accumulators of 8 columns each, bias added, requantized and stored (`RequantizedStore.store`).
static inline VT_Q_AVX2 void vt_q_store_row16(void *c, __m256i v0, __m256i v1, __m256i b0, __m256i b1, __m256 s0, __m256 s1,
                                              const struct vision_tasks_q_requantization *q, size_t width) {
    const __m256i r0 = vt_q_requantize8(_mm256_add_epi32(v0, b0), s0, q);
    const __m256i r1 = vt_q_requantize8(_mm256_add_epi32(v1, b1), s1, q);
    vt_q_store16(c, vt_q_narrow16(r0, r1, q->output_signed), width);
}

/// A row's 16 columns in one zmm register: bias and the row-sum correction added, requantized, saturated to bytes and
/// the first `width` stored (a masked store writes no byte past them). Clamping to the byte's range then `vpmovdb`
/// equals the Swift tiles' two saturating packs.
static inline VT_Q_AVX512_VNNI void vt_q_store_row16_avx512(void *c, __m512i sums, __m512 scale,
                                                            const struct vision_tasks_q_requantization *q, size_t width) {
    const __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(sums), scale);
    const __m512 clamped = _mm512_min_ps(_mm512_set1_ps(q->upper), _mm512_max_ps(_mm512_set1_ps(q->lower), scaled));
    __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(clamped), _mm512_set1_epi32(q->zero_point));
    v = q->output_signed ? _mm512_min_epi32(_mm512_max_epi32(v, _mm512_set1_epi32(-128)), _mm512_set1_epi32(127))
                         : _mm512_min_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), _mm512_set1_epi32(255));
    const __m128i bytes = _mm512_cvtepi32_epi8(v);
    if (width >= 16) {
        _mm_storeu_si128((__m128i *)c, bytes);
    } else {
        _mm_mask_storeu_epi8(c, (__mmask16)((1u << width) - 1), bytes);
    }
}

/// Four bytes of a row broadcast to every lane (an unaligned load through memcpy: defined for any address).
static inline int32_t vt_q_load32(const void *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

#endif
#endif
