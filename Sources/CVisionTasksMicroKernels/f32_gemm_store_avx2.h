// The AVX2 six-row tiles' last step over a whole panel (the window and pointer tiles, which store every row):
// ActivationClamp's selects, `min(upper, max(lower, v))` in x86's operand order (NaN passes through), as the 6 × 16
// tile, and the row's 16 values stored.
#ifndef VISION_TASKS_F32_GEMM_STORE_AVX2_H
#define VISION_TASKS_F32_GEMM_STORE_AVX2_H
#if defined(__x86_64__)
#include <stddef.h>
#include <immintrin.h>

__attribute__((target("avx2,fma"), always_inline)) static inline void vt_f32_store_row_16__avx2(float *row, __m256 v0,
                                                                                                 __m256 v1, __m256 lo,
                                                                                                 __m256 hi) {
    _mm256_storeu_ps(row, _mm256_min_ps(hi, _mm256_max_ps(lo, v0)));
    _mm256_storeu_ps(row + 8, _mm256_min_ps(hi, _mm256_max_ps(lo, v1)));
}

// The six rows of a 6 × 16 tile, row r's accumulators `cr0`, `cr1`, to `c` with `ldc` floats between rows.
__attribute__((target("avx2,fma"), always_inline)) static inline void vt_f32_store_6x16__avx2(
    float *c, size_t ldc, float lower, float upper, __m256 c00, __m256 c01, __m256 c10, __m256 c11, __m256 c20,
    __m256 c21, __m256 c30, __m256 c31, __m256 c40, __m256 c41, __m256 c50, __m256 c51) {
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
    vt_f32_store_row_16__avx2(c, c00, c01, lo, hi);
    vt_f32_store_row_16__avx2(c + ldc, c10, c11, lo, hi);
    vt_f32_store_row_16__avx2(c + 2 * ldc, c20, c21, lo, hi);
    vt_f32_store_row_16__avx2(c + 3 * ldc, c30, c31, lo, hi);
    vt_f32_store_row_16__avx2(c + 4 * ldc, c40, c41, lo, hi);
    vt_f32_store_row_16__avx2(c + 5 * ldc, c50, c51, lo, hi);
}

#endif
#endif
