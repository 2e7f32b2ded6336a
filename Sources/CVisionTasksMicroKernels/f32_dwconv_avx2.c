// The AVX2 tier's float depthwise loops over a row's interior pixels, channel multiplier 1 (Engine's
// DepthwiseConv2DEightChannels.swift: `interior3` and `interior`): eight channels a vector, every multiply-add fused,
// in the Swift loops' order, so they give the bits of a build tuned for AVX2 (and of the AVX-512 tier's sixteen-channel
// loops, which are bit-identical to these).
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"

#define VT_AVX2 __attribute__((target("avx2,fma")))
#define VT_INLINE static inline __attribute__((always_inline, target("avx2,fma")))

VT_INLINE __m256 vt_clamp(__m256 v, __m256 lo, __m256 hi) { return _mm256_min_ps(hi, _mm256_max_ps(lo, v)); }

// 3 × 3: one channel vector along the row, its nine taps in registers; two accumulators a pixel (the first filter
// row and the third row's middle tap; the rest) halve the dependency chain, as in `interior3`.
VT_INLINE void vt_dw3_vector(size_t c, const struct vision_tasks_f32_dwconv_row *r, __m256 lo, __m256 hi) {
    const float *t = r->weights + c;
    const size_t channels = r->channels, pixel = r->pixel_stride, step = r->stride * pixel, row = r->row_step;
    const __m256 w0 = _mm256_loadu_ps(t), w1 = _mm256_loadu_ps(t + channels), w2 = _mm256_loadu_ps(t + 2 * channels);
    const __m256 w3 = _mm256_loadu_ps(t + 3 * channels), w4 = _mm256_loadu_ps(t + 4 * channels);
    const __m256 w5 = _mm256_loadu_ps(t + 5 * channels), w6 = _mm256_loadu_ps(t + 6 * channels);
    const __m256 w7 = _mm256_loadu_ps(t + 7 * channels), w8 = _mm256_loadu_ps(t + 8 * channels);
    const __m256 b = _mm256_loadu_ps(r->bias + c);
    const float *p = r->origin + r->first_column * step + c;
    float *o = r->out + r->first_column * channels + c;
    for (size_t ox = r->first_column; ox < r->end_column; ox++) {
        const float *r1 = p + row, *r2 = p + 2 * row;
        __m256 a0 = b, a1 = _mm256_mul_ps(_mm256_loadu_ps(r1), w3);
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p), w0, a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(r1 + pixel), w4, a1);
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p + pixel), w1, a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(r1 + 2 * pixel), w5, a1);
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 2 * pixel), w2, a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(r2), w6, a1);
        a0 = _mm256_fmadd_ps(_mm256_loadu_ps(r2 + pixel), w7, a0);
        a1 = _mm256_fmadd_ps(_mm256_loadu_ps(r2 + 2 * pixel), w8, a1);
        _mm256_storeu_ps(o, vt_clamp(_mm256_add_ps(a0, a1), lo, hi));
        p += step;
        o += channels;
    }
}

VT_AVX2 void vision_tasks_f32_dwconv_3x3__avx2_fma(const struct vision_tasks_f32_dwconv_row *r) {
    const __m256 lo = _mm256_set1_ps(r->lower), hi = _mm256_set1_ps(r->upper);
    size_t c = 0;
    for (; c + 8 <= r->count; c += 8) vt_dw3_vector(c, r, lo, hi);
    // The last 1–7 channels as the eight ending there, recomputed with the same arithmetic (the same bits).
    if (c < r->count) vt_dw3_vector(r->count - 8, r, lo, hi);
}

// Any square filter (5 × 5 in the models): up to four output pixels × two channel vectors a step, eight independent
// chains, as `interior`'s `step`; `pixels` and `vectors` are constants where called, so unused accumulators fold away.
VT_INLINE void vt_dw_step(size_t ox, size_t c, size_t pixels, size_t vectors, const struct vision_tasks_f32_dwconv_row *r,
                          __m256 lo, __m256 hi) {
    const size_t channels = r->channels, pixel = r->pixel_stride, stride = r->stride, taps = r->taps;
    const size_t tap_row_step = taps * channels;
    const float *input = r->origin + (ox * stride * pixel + c);
    float *output = r->out + (ox * channels + c);
    const __m256 b = _mm256_loadu_ps(r->bias + c), d = vectors > 1 ? _mm256_loadu_ps(r->bias + c + 8) : _mm256_setzero_ps();
    __m256 a0 = b, a1 = b, a2 = b, a3 = b, e0 = d, e1 = d, e2 = d, e3 = d;
    for (size_t ty = 0; ty < taps; ty++) {
        const float *input_row = input + ty * r->row_step, *tap_row = r->weights + (ty * tap_row_step + c);
        for (size_t tx = 0; tx < taps; tx++) {
            const __m256 t = _mm256_loadu_ps(tap_row + tx * channels);
            const float *i0 = input_row + tx * pixel, *i1 = input_row + (stride + tx) * pixel;
            const float *i2 = input_row + (2 * stride + tx) * pixel, *i3 = input_row + (3 * stride + tx) * pixel;
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(i0), t, a0);
            if (pixels > 1) a1 = _mm256_fmadd_ps(_mm256_loadu_ps(i1), t, a1);
            if (pixels > 2) a2 = _mm256_fmadd_ps(_mm256_loadu_ps(i2), t, a2);
            if (pixels > 3) a3 = _mm256_fmadd_ps(_mm256_loadu_ps(i3), t, a3);
            if (vectors > 1) {
                const __m256 u = _mm256_loadu_ps(tap_row + (tx * channels + 8));
                e0 = _mm256_fmadd_ps(_mm256_loadu_ps(i0 + 8), u, e0);
                if (pixels > 1) e1 = _mm256_fmadd_ps(_mm256_loadu_ps(i1 + 8), u, e1);
                if (pixels > 2) e2 = _mm256_fmadd_ps(_mm256_loadu_ps(i2 + 8), u, e2);
                if (pixels > 3) e3 = _mm256_fmadd_ps(_mm256_loadu_ps(i3 + 8), u, e3);
            }
        }
    }
    _mm256_storeu_ps(output, vt_clamp(a0, lo, hi));
    if (pixels > 1) _mm256_storeu_ps(output + channels, vt_clamp(a1, lo, hi));
    if (pixels > 2) _mm256_storeu_ps(output + 2 * channels, vt_clamp(a2, lo, hi));
    if (pixels > 3) _mm256_storeu_ps(output + 3 * channels, vt_clamp(a3, lo, hi));
    if (vectors > 1) {
        _mm256_storeu_ps(output + 8, vt_clamp(e0, lo, hi));
        if (pixels > 1) _mm256_storeu_ps(output + channels + 8, vt_clamp(e1, lo, hi));
        if (pixels > 2) _mm256_storeu_ps(output + 2 * channels + 8, vt_clamp(e2, lo, hi));
        if (pixels > 3) _mm256_storeu_ps(output + 3 * channels + 8, vt_clamp(e3, lo, hi));
    }
}

VT_INLINE void vt_dw_row(size_t c, size_t vectors, const struct vision_tasks_f32_dwconv_row *r, __m256 lo, __m256 hi) {
    size_t ox = r->first_column;
    if (vectors > 1) {
        for (; ox + 4 <= r->end_column; ox += 4) vt_dw_step(ox, c, 4, 2, r, lo, hi);
        switch (r->end_column - ox) {
        case 3: vt_dw_step(ox, c, 3, 2, r, lo, hi); break;
        case 2: vt_dw_step(ox, c, 2, 2, r, lo, hi); break;
        case 1: vt_dw_step(ox, c, 1, 2, r, lo, hi); break;
        default: break;
        }
    } else {
        for (; ox + 4 <= r->end_column; ox += 4) vt_dw_step(ox, c, 4, 1, r, lo, hi);
        switch (r->end_column - ox) {
        case 3: vt_dw_step(ox, c, 3, 1, r, lo, hi); break;
        case 2: vt_dw_step(ox, c, 2, 1, r, lo, hi); break;
        case 1: vt_dw_step(ox, c, 1, 1, r, lo, hi); break;
        default: break;
        }
    }
}

VT_AVX2 void vision_tasks_f32_dwconv_square__avx2_fma(const struct vision_tasks_f32_dwconv_row *r) {
    const __m256 lo = _mm256_set1_ps(r->lower), hi = _mm256_set1_ps(r->upper);
    const size_t vector_channels = r->count & ~(size_t)7;
    size_t c = 0;
    for (; c + 16 <= vector_channels; c += 16) vt_dw_row(c, 2, r, lo, hi);
    if (c < vector_channels) vt_dw_row(c, 1, r, lo, hi);
    // The last 1–7 channels as the vector ending there.
    if (vector_channels < r->count) vt_dw_row(r->count - 8, 1, r, lo, hi);
}

#endif
