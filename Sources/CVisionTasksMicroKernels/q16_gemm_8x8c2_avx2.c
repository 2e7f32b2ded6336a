// The int16-pair quantized GEMM's 8 × 8 tile (QuantizedGEMM.halfTile in Swift) for a last panel of 8 columns or
// fewer: eight rows keep eight independent `vpmaddwd` chains at half the columns; only each pair step's first 8
// columns of the panel are read.
#if defined(__x86_64__)
#include "q_requantize.h"

/// Eight lanes requantized and the first `width` (≤ 8) stored.
static inline VT_Q_AVX2 void store_row8(unsigned char *c, __m256i v, __m256i b, __m256 s,
                                        const struct vision_tasks_q_requantization *q, size_t width) {
    const __m128i bytes = vt_q_narrow16(vt_q_requantize8(_mm256_add_epi32(v, b), s, q), _mm256_setzero_si256(), q->output_signed);
    if (width >= 8) {
        _mm_storel_epi64((__m128i *)c, bytes);
    } else {
        vt_q_store16(c, bytes, width);
    }
}

VT_Q_AVX2 void vision_tasks_q16_gemm_8x8c2__avx2(size_t rows, size_t depth, const int16_t *a, size_t lda, const int16_t *w,
                                                 const int32_t *bias, const float *scales,
                                                 const struct vision_tasks_q_requantization *q, void *c, size_t ldc,
                                                 size_t width) {
    const size_t last = rows - 1;
#define VT_ROW(i) (a + ((i) < last ? (i) : last) * lda)
    const int16_t *a0 = VT_ROW(0), *a1 = VT_ROW(1), *a2 = VT_ROW(2), *a3 = VT_ROW(3);
    const int16_t *a4 = VT_ROW(4), *a5 = VT_ROW(5), *a6 = VT_ROW(6), *a7 = VT_ROW(7);
#undef VT_ROW
    __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    for (size_t k = 0; k < depth; k += 2) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)w);
#define VT_STEP(acc, row) acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_set1_epi32(vt_q_load32(row + k)), w0))
        VT_STEP(c0, a0); VT_STEP(c1, a1); VT_STEP(c2, a2); VT_STEP(c3, a3);
        VT_STEP(c4, a4); VT_STEP(c5, a5); VT_STEP(c6, a6); VT_STEP(c7, a7);
#undef VT_STEP
        w += 32;
    }
    const __m256i b = _mm256_loadu_si256((const __m256i *)bias);
    const __m256 s = _mm256_loadu_ps(scales);
    unsigned char *out = c;
    store_row8(out, c0, b, s, q, width);
    if (rows > 1) store_row8(out + ldc, c1, b, s, q, width);
    if (rows > 2) store_row8(out + 2 * ldc, c2, b, s, q, width);
    if (rows > 3) store_row8(out + 3 * ldc, c3, b, s, q, width);
    if (rows > 4) store_row8(out + 4 * ldc, c4, b, s, q, width);
    if (rows > 5) store_row8(out + 5 * ldc, c5, b, s, q, width);
    if (rows > 6) store_row8(out + 6 * ldc, c6, b, s, q, width);
    if (rows > 7) store_row8(out + 7 * ldc, c7, b, s, q, width);
}

#endif
