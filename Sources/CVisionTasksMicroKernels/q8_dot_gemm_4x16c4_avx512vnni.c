// QuantizedDotGEMM.tile4 in Swift: the VNNI byte-quad tile for 2–4 rows (a band's last rows), where the twelve-row tile
// would multiply repeated rows for nothing. As q8_dot_gemm_12x16c4_avx512vnni.c otherwise.
#if defined(__x86_64__)
#include "q_requantize.h"

VT_Q_AVX512_VNNI void vision_tasks_q8_dot_gemm_4x16c4__avx512vnni(size_t rows, size_t depth, const uint8_t *a, size_t lda,
                                                                  const int8_t *w, const int32_t *bias, const float *scales,
                                                                  const int32_t *row_sum_factors, const int32_t *row_sums,
                                                                  const struct vision_tasks_q_requantization *q, void *c,
                                                                  size_t ldc, size_t width) {
    const size_t last = rows - 1;
    const uint8_t *a0 = a, *a1 = a + (last < 1 ? last : 1) * lda;
    const uint8_t *a2 = a + (last < 2 ? last : 2) * lda, *a3 = a + (last < 3 ? last : 3) * lda;
    __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0;
    for (size_t k = 0; k < depth; k += 4) {
        const __m512i wk = _mm512_loadu_si512((const void *)(w + k * 16));
        c0 = _mm512_dpbusd_epi32(c0, _mm512_set1_epi32(vt_q_load32(a0 + k)), wk);
        c1 = _mm512_dpbusd_epi32(c1, _mm512_set1_epi32(vt_q_load32(a1 + k)), wk);
        c2 = _mm512_dpbusd_epi32(c2, _mm512_set1_epi32(vt_q_load32(a2 + k)), wk);
        c3 = _mm512_dpbusd_epi32(c3, _mm512_set1_epi32(vt_q_load32(a3 + k)), wk);
    }
    const __m512i b = _mm512_loadu_si512((const void *)bias);
    const __m512 s = _mm512_loadu_ps(scales);
    const __m512i f = row_sum_factors ? _mm512_loadu_si512((const void *)row_sum_factors) : _mm512_setzero_si512();
    const __m512i acc[4] = {c0, c1, c2, c3};
    unsigned char *out = c;
    for (size_t i = 0; i < rows && i < 4; i++) {
        __m512i v = _mm512_add_epi32(acc[i], b);
        if (row_sum_factors && row_sums) v = _mm512_add_epi32(v, _mm512_mullo_epi32(f, _mm512_set1_epi32(row_sums[i])));
        vt_q_store_row16_avx512(out + i * ldc, v, s, q, width);
    }
}

#endif
