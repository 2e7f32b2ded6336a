// The AVX2 tier's 6 × 16 float GEMM tile over a convolution's input read in place (PackedGEMM.windowTile6 in Swift):
// row r of A is the window of an output pixel, `segments` runs of `segment_length` floats (one per filter row: the
// filter's width times the input's channels, adjacent in NHWC when the dilation is 1), `segment_stride` floats apart
// (an input row), the six windows `lda` floats apart (the stride times the channels). The same multiply-adds in the
// same order as the 6 × 16 tile over the im2col rows of those pixels, whose depth is laid out the same way: the same
// bits, without copying the windows first (XNNPACK's indirect GEMM avoids the copy with a pointer per row and tap).
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"
#include "f32_gemm_store_avx2.h"

#define VT_AVX2 __attribute__((target("avx2,fma")))

VT_AVX2 void vision_tasks_f32_gemm_6x16_windows__avx2_fma(size_t segments, size_t segment_length, size_t segment_stride,
                                                          const float *a, size_t lda, const float *w, const float *bias,
                                                          float *c, size_t ldc, float lower, float upper) {
    // Rows 0–2 at p, p + lda, p + 2 lda and rows 3–5 at q likewise (see the Swift tile: two pointers and a stride
    // leave the loop its registers).
    const float *p = a, *q = a + 3 * lda;
    const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
    __m256 c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1;
    __m256 c30 = b0, c31 = b1, c40 = b0, c41 = b1, c50 = b0, c51 = b1;
    for (size_t s = 0; s < segments; s++) {
        const float *pk = p, *qk = q, *end = p + segment_length;
        for (; pk < end; pk++, qk++) {
            const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
            __m256 x = _mm256_broadcast_ss(pk);
            c00 = _mm256_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(x, w1, c01);
            x = _mm256_broadcast_ss(pk + lda);
            c10 = _mm256_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(x, w1, c11);
            x = _mm256_broadcast_ss(pk + 2 * lda);
            c20 = _mm256_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(x, w1, c21);
            x = _mm256_broadcast_ss(qk);
            c30 = _mm256_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(x, w1, c31);
            x = _mm256_broadcast_ss(qk + lda);
            c40 = _mm256_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(x, w1, c41);
            x = _mm256_broadcast_ss(qk + 2 * lda);
            c50 = _mm256_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(x, w1, c51);
            w += 16;
        }
        p += segment_stride;
        q += segment_stride;
    }
    vt_f32_store_6x16__avx2(c, ldc, lower, upper, c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51);
}

#endif
