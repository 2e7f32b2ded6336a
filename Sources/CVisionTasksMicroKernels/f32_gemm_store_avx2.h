// The AVX2 six-row tiles' last step over a whole panel (the window and pointer tiles, which store every row):
// ActivationClamp's selects, `min(upper, max(lower, v))` in x86's operand order (NaN passes through), as the 6 × 16
// tile, and the row's 16 values stored.
#ifndef VISION_TASKS_F32_GEMM_STORE_AVX2_H
#define VISION_TASKS_F32_GEMM_STORE_AVX2_H
#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2,fma"), always_inline)) static inline void vt_f32_store_row_16__avx2(float *row, __m256 v0,
                                                                                                 __m256 v1, __m256 lo,
                                                                                                 __m256 hi) {
    _mm256_storeu_ps(row, _mm256_min_ps(hi, _mm256_max_ps(lo, v0)));
    _mm256_storeu_ps(row + 8, _mm256_min_ps(hi, _mm256_max_ps(lo, v1)));
}

#endif
#endif
