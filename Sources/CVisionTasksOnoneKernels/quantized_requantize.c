#include "onone_kernels.h"

#pragma STDC FP_CONTRACT OFF

// Engine's `Requantization.callAsFunction(_:scale:)`: Swift's max(x, lower) is `lower >= x ? lower : x` and
// min(m, upper) `upper < m ? upper : m`; adding and taking away 1.5 × 2^23 rounds half to even (the default rounding
// mode, as `.rounded(.toNearestOrEven)`) any value the bounds leave (below 2^22 in magnitude); Int32(saturating:) gives
// 0 for NaN. A macro: at -O0 a function is a call per output, and `rintf` another.
#define VT_REQUANTIZE(result, accumulator, scale, lower, upper, zeroPoint)                                       \
    do {                                                                                                         \
        float vt_scaled = (float)(accumulator) * (scale);                                                        \
        vt_scaled = (lower) >= vt_scaled ? (lower) : vt_scaled;                                                  \
        vt_scaled = (upper) < vt_scaled ? (upper) : vt_scaled;                                                   \
        (result) = vt_scaled != vt_scaled ? (zeroPoint) : (int)((vt_scaled + 12582912.0f) - 12582912.0f) + (zeroPoint); \
    } while (0)

void vt_onone_requantize_rows(const double *products, int rows, int columns, const int *bias, const float *scales,
                              float lower, float upper, int zeroPoint, int isSigned, void *out, ptrdiff_t outputStride) {
    for (int r = 0; r < rows; r++) {
        const double *row = products + (ptrdiff_t)r * columns;
        for (int c = 0; c < columns; c++) {
            int value;
            VT_REQUANTIZE(value, (int)row[c] + bias[c], scales[c], lower, upper, zeroPoint);
            if (isSigned) ((signed char *)out)[r * outputStride + c] = (signed char)value;
            else ((unsigned char *)out)[r * outputStride + c] = (unsigned char)value;
        }
    }
}

void vt_onone_quantized_depthwise_row(const void *tapRows, int isSigned, ptrdiff_t tapRowStep, int firstTapRow,
                                      int endTapRow, int outputWidth, int inputWidth, int channels, int filterWidth,
                                      int strideX, int dilationX, int padLeft, int zeroPoint, const int *weights,
                                      const int *bias, const float *scales, float lower, float upper,
                                      int outputZeroPoint, void *out) {
    for (int ox = 0; ox < outputWidth; ox++) {
        int x0 = ox * strideX - padLeft;
        int firstTap = 0, endTap = filterWidth;
        while (firstTap < endTap && x0 + firstTap * dilationX < 0) firstTap++;
        while (endTap > firstTap && x0 + (endTap - 1) * dilationX >= inputWidth) endTap--;
        for (int c = 0; c < channels; c++) {
            int sum = bias[c];
            for (int ky = firstTapRow; ky < endTapRow; ky++) {
                const int *w = weights + (ptrdiff_t)ky * filterWidth * channels + c;
                for (int kx = firstTap; kx < endTap; kx++) {
                    ptrdiff_t at = ky * tapRowStep + (ptrdiff_t)(x0 + kx * dilationX) * channels + c;
                    int value = isSigned ? ((const signed char *)tapRows)[at] : ((const unsigned char *)tapRows)[at];
                    sum += (value - zeroPoint) * w[(ptrdiff_t)kx * channels];
                }
            }
            int q;
            VT_REQUANTIZE(q, sum, scales[c], lower, upper, outputZeroPoint);
            ptrdiff_t at = (ptrdiff_t)ox * channels + c;
            if (isSigned) ((signed char *)out)[at] = (signed char)q;
            else ((unsigned char *)out)[at] = (unsigned char)q;
        }
    }
}
