// The AVX2 tier's half-panel tiles (PackedGEMM.halfTile12 and halfTile6 in Swift): the last panel of 8, 24, 40 …
// channels is half a panel, so half the multiply-adds; twelve rows at a time for twelve independent accumulators, as
// the full tile has, and six for what is left.
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"

#define VT_AVX2 __attribute__((target("avx2,fma")))

VT_AVX2 void vision_tasks_f32_gemm_12x8__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda,
                                                  const float *w, size_t panel_stride, const float *bias, float *c,
                                                  size_t ldc, float lower, float upper) {
    (void)rows, (void)panel_stride;
    const float *a0 = a, *a6 = a + 6 * lda;
    const __m256 b = _mm256_loadu_ps(bias);
    __m256 c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b, c6 = b, c7 = b, c8 = b, c9 = b, c10 = b, c11 = b;
    for (size_t k = 0; k < depth; k++) {
        const __m256 w0 = _mm256_loadu_ps(w);
        c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k), w0, c0);
        c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + lda + k), w0, c1);
        c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 2 * lda + k), w0, c2);
        c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 3 * lda + k), w0, c3);
        c4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 4 * lda + k), w0, c4);
        c5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + 5 * lda + k), w0, c5);
        c6 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + k), w0, c6);
        c7 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + lda + k), w0, c7);
        c8 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + 2 * lda + k), w0, c8);
        c9 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + 3 * lda + k), w0, c9);
        c10 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + 4 * lda + k), w0, c10);
        c11 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + 5 * lda + k), w0, c11);
        w += 16;
    }
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
#define VT_STORE(row, v) _mm256_storeu_ps(c + (row) * ldc, _mm256_min_ps(hi, _mm256_max_ps(lo, v)))
    VT_STORE(0, c0); VT_STORE(1, c1); VT_STORE(2, c2); VT_STORE(3, c3); VT_STORE(4, c4); VT_STORE(5, c5);
    VT_STORE(6, c6); VT_STORE(7, c7); VT_STORE(8, c8); VT_STORE(9, c9); VT_STORE(10, c10); VT_STORE(11, c11);
#undef VT_STORE
}

VT_AVX2 void vision_tasks_f32_gemm_6x8__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda,
                                                 const float *w, size_t panel_stride, const float *bias, float *c,
                                                 size_t ldc, float lower, float upper) {
    (void)panel_stride;
    const size_t last = rows - 1;
    const float *a0 = a, *a1 = a + (last < 1 ? last : 1) * lda, *a2 = a + (last < 2 ? last : 2) * lda;
    const float *a3 = a + (last < 3 ? last : 3) * lda, *a4 = a + (last < 4 ? last : 4) * lda;
    const float *a5 = a + (last < 5 ? last : 5) * lda;
    const __m256 b = _mm256_loadu_ps(bias);
    __m256 c0 = b, c1 = b, c2 = b, c3 = b, c4 = b, c5 = b;
    for (size_t k = 0; k < depth; k++) {
        const __m256 w0 = _mm256_loadu_ps(w);
        c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k), w0, c0);
        c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + k), w0, c1);
        c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + k), w0, c2);
        c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + k), w0, c3);
        c4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + k), w0, c4);
        c5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + k), w0, c5);
        w += 16;
    }
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
#define VT_STORE(row, v) _mm256_storeu_ps(c + (row) * ldc, _mm256_min_ps(hi, _mm256_max_ps(lo, v)))
    VT_STORE(0, c0);
    if (rows > 1) { VT_STORE(1, c1); }
    if (rows > 2) { VT_STORE(2, c2); }
    if (rows > 3) { VT_STORE(3, c3); }
    if (rows > 4) { VT_STORE(4, c4); }
    if (rows > 5) { VT_STORE(5, c5); }
#undef VT_STORE
}

#endif
