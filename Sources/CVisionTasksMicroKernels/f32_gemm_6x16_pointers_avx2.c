// The AVX2 tier's 6 × 16 float GEMM tile over rows of A given by pointers (PackedGEMM.pointerTile6 in Swift): row r's
// depth is `segments` runs of `segment_length` floats, run s at pointers[s * 6 + r] — for a convolution, a filter row's
// taps where they lie in the input, one tap's channels, or a window copied with zeros where it leaves the input. The
// same multiply-adds in the same order as the 6 × 16 tile over those rows copied one after another (the im2col rows,
// whose depth is laid out the same way): the same bits, without copying. XNNPACK's indirect GEMM reads its
// convolutions this way, with a pointer per row and tap.
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"
#include "f32_gemm_store_avx2.h"

#define VT_AVX2 __attribute__((target("avx2,fma")))

VT_AVX2 void vision_tasks_f32_gemm_6x16_pointers__avx2_fma(size_t segments, size_t segment_length,
                                                           const float *const *pointers, const float *w,
                                                           const float *bias, float *c, size_t ldc, float lower,
                                                           float upper) {
    const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
    __m256 c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1;
    __m256 c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1;
    for (size_t s = 0; s < segments; s++, pointers += 6) {
        const float *p0 = pointers[0], *p1 = pointers[1], *p2 = pointers[2];
        const float *p3 = pointers[3], *p4 = pointers[4], *p5 = pointers[5];
        for (size_t k = 0; k < segment_length; k++) {
            const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
            __m256 x = _mm256_broadcast_ss(p0 + k);
            c00 = _mm256_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(x, w1, c01);
            x = _mm256_broadcast_ss(p1 + k);
            c10 = _mm256_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(x, w1, c11);
            x = _mm256_broadcast_ss(p2 + k);
            c20 = _mm256_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(x, w1, c21);
            x = _mm256_broadcast_ss(p3 + k);
            c30 = _mm256_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(x, w1, c31);
            x = _mm256_broadcast_ss(p4 + k);
            c40 = _mm256_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(x, w1, c41);
            x = _mm256_broadcast_ss(p5 + k);
            c50 = _mm256_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(x, w1, c51);
            w += 16;
        }
    }
    vt_f32_store_6x16__avx2(c, ldc, lower, upper, c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51);
}

#endif
