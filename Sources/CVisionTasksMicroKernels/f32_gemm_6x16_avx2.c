// The AVX2 tier's 6 × 16 float GEMM tile (PackedGEMM.tile6 in Swift): twelve ymm accumulators, two weight vectors
// and a broadcast, 15 of AVX2's 16 registers; per depth step two weight loads, six broadcasts, twelve FMAs.
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"

#define VT_AVX2 __attribute__((target("avx2,fma")))

VT_AVX2 void vision_tasks_f32_gemm_6x16__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda,
                                                  const float *w, size_t panel_stride, const float *bias, float *c,
                                                  size_t ldc, float lower, float upper) {
    (void)panel_stride;
    const size_t last = rows - 1;
    const float *a0 = a, *a1 = a + (last < 1 ? last : 1) * lda, *a2 = a + (last < 2 ? last : 2) * lda;
    const float *a3 = a + (last < 3 ? last : 3) * lda, *a4 = a + (last < 4 ? last : 4) * lda;
    const float *a5 = a + (last < 5 ? last : 5) * lda;
    const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
    __m256 c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1;
    __m256 c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1;
    for (size_t k = 0; k < depth; k++) {
        const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
        __m256 x = _mm256_broadcast_ss(a0 + k);
        c00 = _mm256_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(x, w1, c01);
        x = _mm256_broadcast_ss(a1 + k);
        c10 = _mm256_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(x, w1, c11);
        x = _mm256_broadcast_ss(a2 + k);
        c20 = _mm256_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(x, w1, c21);
        x = _mm256_broadcast_ss(a3 + k);
        c30 = _mm256_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(x, w1, c31);
        x = _mm256_broadcast_ss(a4 + k);
        c40 = _mm256_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(x, w1, c41);
        x = _mm256_broadcast_ss(a5 + k);
        c50 = _mm256_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(x, w1, c51);
        w += 16;
    }
    // ActivationClamp's selects: max(lower, v) then min(upper, ·), x86's operand order (a NaN passes through).
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
#define VT_STORE(row, v0, v1)                                                          \
    _mm256_storeu_ps(c + (row) * ldc, _mm256_min_ps(hi, _mm256_max_ps(lo, v0)));     \
    _mm256_storeu_ps(c + (row) * ldc + 8, _mm256_min_ps(hi, _mm256_max_ps(lo, v1)))
    VT_STORE(0, c00, c01);
    if (rows > 1) { VT_STORE(1, c10, c11); }
    if (rows > 2) { VT_STORE(2, c20, c21); }
    if (rows > 3) { VT_STORE(3, c30, c31); }
    if (rows > 4) { VT_STORE(4, c40, c41); }
    if (rows > 5) { VT_STORE(5, c50, c51); }
#undef VT_STORE
}

#endif
