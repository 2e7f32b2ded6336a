// The VNNI tier's byte-quad GEMM tile (QuantizedDotGEMM.tile in Swift): up to 12 rows × 16 columns in twelve zmm
// accumulators, one 64-byte weight load per quad of depth steps and per row one broadcast and one `vpdpbusd`
// (twelve independent chains cover its latency at two a cycle). The epilogue adds the bias and the zero-point
// correction (wrapping int32, as the Swift tile: exact in any order) and requantizes (q_requantize.h).
#if defined(__x86_64__)
#include "q_requantize.h"

VT_Q_AVX512_VNNI void vision_tasks_q8_dot_gemm_12x16c4__avx512vnni(size_t rows, size_t depth, const uint8_t *a, size_t lda,
                                                                   const int8_t *w, const int32_t *bias, const float *scales,
                                                                   const int32_t *row_sum_factors, const int32_t *row_sums,
                                                                   const struct vision_tasks_q_requantization *q, void *c,
                                                                   size_t ldc, size_t width) {
    const size_t last = rows - 1;
    const uint8_t *row[12];
    for (size_t i = 0; i < 12; i++) row[i] = a + (i < last ? i : last) * lda;
    __m512i acc[12];
    for (size_t i = 0; i < 12; i++) acc[i] = _mm512_setzero_si512();
    for (size_t k = 0; k < depth; k += 4) {
        const __m512i wk = _mm512_loadu_si512((const void *)(w + k * 16));
        // Unrolled by the compiler (constant trip count): the accumulators stay in registers.
        for (size_t i = 0; i < 12; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], _mm512_set1_epi32(vt_q_load32(row[i] + k)), wk);
    }
    const __m512i b = _mm512_loadu_si512((const void *)bias);
    const __m512 s = _mm512_loadu_ps(scales);
    const __m512i f = row_sum_factors ? _mm512_loadu_si512((const void *)row_sum_factors) : _mm512_setzero_si512();
    unsigned char *out = c;
    for (size_t i = 0; i < rows && i < 12; i++) {
        __m512i v = _mm512_add_epi32(acc[i], b);
        if (row_sum_factors && row_sums) v = _mm512_add_epi32(v, _mm512_mullo_epi32(f, _mm512_set1_epi32(row_sums[i])));
        vt_q_store_row16_avx512(out + i * ldc, v, s, q, width);
    }
}

#endif
