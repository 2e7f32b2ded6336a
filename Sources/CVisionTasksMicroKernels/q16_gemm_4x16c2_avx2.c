// The int16-pair quantized GEMM's 4 × 16 tile (QuantizedGEMM.tile in Swift), the AVX2 and AVX-512 tiers': eight ymm
// accumulators of int32, two weight vectors and a broadcast pair; per pair of depth steps two weight loads, four
// broadcasts, eight `vpmaddwd` + `vpaddd`. The sums are exact int32 in any grouping; the requantizing store is
// q_requantize.h's, the Swift tile's instructions.
#if defined(__x86_64__)
#include "q_requantize.h"

VT_Q_AVX2 void vision_tasks_q16_gemm_4x16c2__avx2(size_t rows, size_t depth, const int16_t *a, size_t lda, const int16_t *w,
                                                  const int32_t *bias, const float *scales,
                                                  const struct vision_tasks_q_requantization *q, void *c, size_t ldc,
                                                  size_t width) {
    const size_t last = rows - 1;
    const int16_t *a0 = a, *a1 = a + (last < 1 ? last : 1) * lda;
    const int16_t *a2 = a + (last < 2 ? last : 2) * lda, *a3 = a + (last < 3 ? last : 3) * lda;
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    for (size_t k = 0; k < depth; k += 2) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)w), w1 = _mm256_loadu_si256((const __m256i *)(w + 16));
        __m256i p = _mm256_set1_epi32(vt_q_load32(a0 + k));
        c00 = _mm256_add_epi32(c00, _mm256_madd_epi16(p, w0)); c01 = _mm256_add_epi32(c01, _mm256_madd_epi16(p, w1));
        p = _mm256_set1_epi32(vt_q_load32(a1 + k));
        c10 = _mm256_add_epi32(c10, _mm256_madd_epi16(p, w0)); c11 = _mm256_add_epi32(c11, _mm256_madd_epi16(p, w1));
        p = _mm256_set1_epi32(vt_q_load32(a2 + k));
        c20 = _mm256_add_epi32(c20, _mm256_madd_epi16(p, w0)); c21 = _mm256_add_epi32(c21, _mm256_madd_epi16(p, w1));
        p = _mm256_set1_epi32(vt_q_load32(a3 + k));
        c30 = _mm256_add_epi32(c30, _mm256_madd_epi16(p, w0)); c31 = _mm256_add_epi32(c31, _mm256_madd_epi16(p, w1));
        w += 32;
    }
    const __m256i b0 = _mm256_loadu_si256((const __m256i *)bias), b1 = _mm256_loadu_si256((const __m256i *)(bias + 8));
    const __m256 s0 = _mm256_loadu_ps(scales), s1 = _mm256_loadu_ps(scales + 8);
    unsigned char *out = c;
    vt_q_store_row16(out, c00, c01, b0, b1, s0, s1, q, width);
    if (rows > 1) vt_q_store_row16(out + ldc, c10, c11, b0, b1, s0, s1, q, width);
    if (rows > 2) vt_q_store_row16(out + 2 * ldc, c20, c21, b0, b1, s0, s1, q, width);
    if (rows > 3) vt_q_store_row16(out + 3 * ldc, c30, c31, b0, b1, s0, s1, q, width);
}

#endif
