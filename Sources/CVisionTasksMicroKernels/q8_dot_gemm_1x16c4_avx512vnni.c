// QuantizedDotGEMM.tile1 in Swift: one row (a fully connected layer's single row) in two accumulators over
// alternate quads, so that consecutive `vpdpbusd`s do not wait on each other; and QuantizedDotGEMM.rowSum, the
// sum of a row's bytes the zero-point correction multiplies.
#if defined(__x86_64__)
#include "q_requantize.h"

VT_Q_AVX512_VNNI void vision_tasks_q8_dot_gemm_1x16c4__avx512vnni(size_t rows, size_t depth, const uint8_t *a, size_t lda,
                                                                  const int8_t *w, const int32_t *bias, const float *scales,
                                                                  const int32_t *row_sum_factors, const int32_t *row_sums,
                                                                  const struct vision_tasks_q_requantization *q, void *c,
                                                                  size_t ldc, size_t width) {
    (void)rows, (void)lda, (void)ldc;
    __m512i even = _mm512_setzero_si512(), odd = even;
    size_t k = 0;
    for (; k + 8 <= depth; k += 8) {
        even = _mm512_dpbusd_epi32(even, _mm512_set1_epi32(vt_q_load32(a + k)), _mm512_loadu_si512((const void *)(w + k * 16)));
        odd = _mm512_dpbusd_epi32(odd, _mm512_set1_epi32(vt_q_load32(a + k + 4)), _mm512_loadu_si512((const void *)(w + (k + 4) * 16)));
    }
    if (k < depth) even = _mm512_dpbusd_epi32(even, _mm512_set1_epi32(vt_q_load32(a + k)), _mm512_loadu_si512((const void *)(w + k * 16)));
    __m512i v = _mm512_add_epi32(_mm512_add_epi32(even, odd), _mm512_loadu_si512((const void *)bias));
    if (row_sum_factors && row_sums) {
        v = _mm512_add_epi32(v, _mm512_mullo_epi32(_mm512_loadu_si512((const void *)row_sum_factors), _mm512_set1_epi32(row_sums[0])));
    }
    vt_q_store_row16_avx512(c, v, _mm512_loadu_ps(scales), q, width);
}

// Unsigned bytes summed 64 at a time by `vpsadbw` against zero (eight 64-bit partial sums), the tail one by one.
// Any grouping gives the same int32 (the Swift form, `vpdpbusd` against ones, wraps too; a real row's sum never does).
VT_Q_AVX512_VNNI int32_t vision_tasks_q8_row_sum__avx512vnni(const uint8_t *row, size_t count) {
    __m512i sums = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        sums = _mm512_add_epi64(sums, _mm512_sad_epu8(_mm512_loadu_si512((const void *)(row + i)), _mm512_setzero_si512()));
    }
    uint32_t total = (uint32_t)_mm512_reduce_add_epi64(sums);
    for (; i < count; i++) total += row[i];
    return (int32_t)total;
}

#endif
