#include "onone_kernels.h"

#include "vectors.h"

#pragma STDC FP_CONTRACT OFF

// At -O0 every named variable lives on the stack, but the temporaries of one expression stay in registers: the
// interior windows of 3 × 3 and 5 × 5 filters (nearly every output of the models we serve) are therefore one
// expression per channel vector — the bias, then the taps row by row, the same order as the general loop below, so
// either path gives the same bits.
#define VT_TAP(row, taps, k) (*(const vt_f8 *)((row) + (k) * step + c) * *(const vt_f8 *)((taps) + (k) * channels + c))

void vt_onone_depthwise_row(const float *tapRows, ptrdiff_t tapRowStep, int firstTapRow, int endTapRow,
                            int outputWidth, int inputWidth, int channels, int filterHeight, int filterWidth, int strideX,
                            int dilationX, int padLeft, const float *weights, const float *bias, float lower,
                            float upper, float *out) {
    const vt_f8 low = {lower, lower, lower, lower, lower, lower, lower, lower};
    const vt_f8 high = {upper, upper, upper, upper, upper, upper, upper, upper};
    const int rows = endTapRow - firstTapRow;
    // Floats between a window's columns.
    const ptrdiff_t step = (ptrdiff_t)dilationX * channels;
    for (int ox = 0; ox < outputWidth; ox++) {
        int x0 = ox * strideX - padLeft;
        int firstTap = 0, endTap = filterWidth;
        while (firstTap < endTap && x0 + firstTap * dilationX < 0) firstTap++;
        while (endTap > firstTap && x0 + (endTap - 1) * dilationX >= inputWidth) endTap--;
        float *o = out + (ptrdiff_t)ox * channels;
        int c = 0;
        if (firstTap == 0 && endTap == filterWidth && firstTapRow == 0 && endTapRow == filterHeight &&
            filterHeight == filterWidth && (filterWidth == 3 || filterWidth == 5)) {
            const ptrdiff_t taps = (ptrdiff_t)filterWidth * channels;
            const float *r0 = tapRows + (ptrdiff_t)x0 * channels, *r1 = r0 + tapRowStep, *r2 = r1 + tapRowStep;
            const float *w0 = weights, *w1 = w0 + taps, *w2 = w1 + taps;
            if (filterWidth == 3) {
                for (; c + 8 <= channels; c += 8) {
                    *(vt_f8 *)(o + c) = VT_CLAMP(*(const vt_f8 *)(bias + c) + VT_TAP(r0, w0, 0) + VT_TAP(r0, w0, 1) + VT_TAP(r0, w0, 2)
                                                 + VT_TAP(r1, w1, 0) + VT_TAP(r1, w1, 1) + VT_TAP(r1, w1, 2)
                                                 + VT_TAP(r2, w2, 0) + VT_TAP(r2, w2, 1) + VT_TAP(r2, w2, 2),
                                                 low, high);
                }
            } else {
                const float *r3 = r2 + tapRowStep, *r4 = r3 + tapRowStep, *w3 = w2 + taps, *w4 = w3 + taps;
                for (; c + 8 <= channels; c += 8) {
                    *(vt_f8 *)(o + c) = VT_CLAMP(
                        *(const vt_f8 *)(bias + c)
                            + VT_TAP(r0, w0, 0) + VT_TAP(r0, w0, 1) + VT_TAP(r0, w0, 2) + VT_TAP(r0, w0, 3) + VT_TAP(r0, w0, 4)
                            + VT_TAP(r1, w1, 0) + VT_TAP(r1, w1, 1) + VT_TAP(r1, w1, 2) + VT_TAP(r1, w1, 3) + VT_TAP(r1, w1, 4)
                            + VT_TAP(r2, w2, 0) + VT_TAP(r2, w2, 1) + VT_TAP(r2, w2, 2) + VT_TAP(r2, w2, 3) + VT_TAP(r2, w2, 4)
                            + VT_TAP(r3, w3, 0) + VT_TAP(r3, w3, 1) + VT_TAP(r3, w3, 2) + VT_TAP(r3, w3, 3) + VT_TAP(r3, w3, 4)
                            + VT_TAP(r4, w4, 0) + VT_TAP(r4, w4, 1) + VT_TAP(r4, w4, 2) + VT_TAP(r4, w4, 3) + VT_TAP(r4, w4, 4),
                        low, high);
                }
            }
        }
        // Border windows, other filters, and the last channels that fill no vector.
        for (; c + 8 <= channels; c += 8) {
            vt_f8 sum = *(const vt_f8 *)(bias + c);
            for (int ky = firstTapRow; ky < endTapRow; ky++) {
                const float *in = tapRows + ky * tapRowStep + c;
                const float *w = weights + ((ptrdiff_t)ky * filterWidth) * channels + c;
                for (int kx = firstTap; kx < endTap; kx++) {
                    sum += *(const vt_f8 *)(in + (ptrdiff_t)(x0 + kx * dilationX) * channels) * *(const vt_f8 *)(w + (ptrdiff_t)kx * channels);
                }
            }
            *(vt_f8 *)(o + c) = VT_CLAMP(sum, low, high);
        }
        for (; c < channels; c++) {
            float sum = bias[c];
            for (int ky = firstTapRow; ky < endTapRow; ky++) {
                const float *in = tapRows + ky * tapRowStep + c;
                const float *w = weights + ((ptrdiff_t)ky * filterWidth) * channels + c;
                for (int kx = firstTap; kx < endTap; kx++) sum += in[(ptrdiff_t)(x0 + kx * dilationX) * channels] * w[(ptrdiff_t)kx * channels];
            }
            sum = lower > sum ? lower : sum;
            o[c] = upper < sum ? upper : sum;
        }
    }
}
