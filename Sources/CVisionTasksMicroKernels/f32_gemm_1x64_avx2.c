// The AVX2 tier's single-row tile (PackedGEMM.rowTile4 in Swift): a row left over after tiles of six goes across
// four whole panels at once, eight accumulators and one broadcast per depth step, where a six-row tile would do six
// times the work for it.
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"

__attribute__((target("avx2,fma"))) void vision_tasks_f32_gemm_1x64__avx2_fma(
    size_t rows, size_t depth, const float *a, size_t lda, const float *w, size_t panel_stride, const float *bias,
    float *c, size_t ldc, float lower, float upper) {
    (void)rows, (void)lda, (void)ldc;
    __m256 c0 = _mm256_loadu_ps(bias), c1 = _mm256_loadu_ps(bias + 8), c2 = _mm256_loadu_ps(bias + 16);
    __m256 c3 = _mm256_loadu_ps(bias + 24), c4 = _mm256_loadu_ps(bias + 32), c5 = _mm256_loadu_ps(bias + 40);
    __m256 c6 = _mm256_loadu_ps(bias + 48), c7 = _mm256_loadu_ps(bias + 56);
    const float *w0 = w, *w1 = w0 + panel_stride, *w2 = w1 + panel_stride, *w3 = w2 + panel_stride;
    for (size_t k = 0; k < depth; k++) {
        const __m256 x = _mm256_broadcast_ss(a + k);
        c0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w0), c0); c1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w0 + 8), c1);
        c2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w1), c2); c3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w1 + 8), c3);
        c4 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w2), c4); c5 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w2 + 8), c5);
        c6 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w3), c6); c7 = _mm256_fmadd_ps(x, _mm256_loadu_ps(w3 + 8), c7);
        w0 += 16, w1 += 16, w2 += 16, w3 += 16;
    }
    const __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
#define VT_STORE(offset, v) _mm256_storeu_ps(c + (offset), _mm256_min_ps(hi, _mm256_max_ps(lo, v)))
    VT_STORE(0, c0); VT_STORE(8, c1); VT_STORE(16, c2); VT_STORE(24, c3);
    VT_STORE(32, c4); VT_STORE(40, c5); VT_STORE(48, c6); VT_STORE(56, c7);
#undef VT_STORE
}

#endif
