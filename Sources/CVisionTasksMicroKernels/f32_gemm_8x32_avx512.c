// The AVX-512 tier's wide float GEMM tile (PackedGEMM.wideTile8 in Swift): 8 rows × two panels in sixteen zmm
// accumulators, two 64-byte weight loads and eight broadcasts per sixteen FMAs; 19 of AVX-512's 32 registers.
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"

// The AVX-512 tier's features as KernelConfig names them (F/BW/DQ/VL); only F's instructions are used here.
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) void vision_tasks_f32_gemm_8x32__avx512f(
    size_t rows, size_t depth, const float *a, size_t lda, const float *w, size_t panel_stride, const float *bias,
    float *c, size_t ldc, float lower, float upper) {
    const size_t last = rows - 1;
#define VT_ROW(i) (a + ((i) < last ? (i) : last) * lda)
    const float *a0 = VT_ROW(0), *a1 = VT_ROW(1), *a2 = VT_ROW(2), *a3 = VT_ROW(3);
    const float *a4 = VT_ROW(4), *a5 = VT_ROW(5), *a6 = VT_ROW(6), *a7 = VT_ROW(7);
#undef VT_ROW
    const __m512 b0 = _mm512_loadu_ps(bias), b1 = _mm512_loadu_ps(bias + 16);
    __m512 c00 = b0, c01 = b1, c10 = b0, c11 = b1, c20 = b0, c21 = b1, c30 = b0, c31 = b1;
    __m512 c40 = b0, c41 = b1, c50 = b0, c51 = b1, c60 = b0, c61 = b1, c70 = b0, c71 = b1;
    const float *p0 = w, *p1 = w + panel_stride;
    for (size_t k = 0; k < depth; k++) {
        const __m512 x0 = _mm512_loadu_ps(p0), x1 = _mm512_loadu_ps(p1);
        __m512 s = _mm512_set1_ps(a0[k]);
        c00 = _mm512_fmadd_ps(s, x0, c00); c01 = _mm512_fmadd_ps(s, x1, c01);
        s = _mm512_set1_ps(a1[k]);
        c10 = _mm512_fmadd_ps(s, x0, c10); c11 = _mm512_fmadd_ps(s, x1, c11);
        s = _mm512_set1_ps(a2[k]);
        c20 = _mm512_fmadd_ps(s, x0, c20); c21 = _mm512_fmadd_ps(s, x1, c21);
        s = _mm512_set1_ps(a3[k]);
        c30 = _mm512_fmadd_ps(s, x0, c30); c31 = _mm512_fmadd_ps(s, x1, c31);
        s = _mm512_set1_ps(a4[k]);
        c40 = _mm512_fmadd_ps(s, x0, c40); c41 = _mm512_fmadd_ps(s, x1, c41);
        s = _mm512_set1_ps(a5[k]);
        c50 = _mm512_fmadd_ps(s, x0, c50); c51 = _mm512_fmadd_ps(s, x1, c51);
        s = _mm512_set1_ps(a6[k]);
        c60 = _mm512_fmadd_ps(s, x0, c60); c61 = _mm512_fmadd_ps(s, x1, c61);
        s = _mm512_set1_ps(a7[k]);
        c70 = _mm512_fmadd_ps(s, x0, c70); c71 = _mm512_fmadd_ps(s, x1, c71);
        p0 += 16, p1 += 16;
    }
    const __m512 lo = _mm512_set1_ps(lower), hi = _mm512_set1_ps(upper);
#define VT_STORE(row, v0, v1)                                                          \
    _mm512_storeu_ps(c + (row) * ldc, _mm512_min_ps(hi, _mm512_max_ps(lo, v0)));     \
    _mm512_storeu_ps(c + (row) * ldc + 16, _mm512_min_ps(hi, _mm512_max_ps(lo, v1)))
    VT_STORE(0, c00, c01);
    if (rows > 1) { VT_STORE(1, c10, c11); }
    if (rows > 2) { VT_STORE(2, c20, c21); }
    if (rows > 3) { VT_STORE(3, c30, c31); }
    if (rows > 4) { VT_STORE(4, c40, c41); }
    if (rows > 5) { VT_STORE(5, c50, c51); }
    if (rows > 6) { VT_STORE(6, c60, c61); }
    if (rows > 7) { VT_STORE(7, c70, c71); }
#undef VT_STORE
}

#endif
