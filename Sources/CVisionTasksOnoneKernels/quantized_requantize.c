#include "onone_kernels.h"

#include "vectors.h"

#include <string.h>

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

// Engine's `Requantization.roundedHalfUp(_:scale:)` (XNNPACK's "rndnu", LiteRT's for uint8 products on arm64): the
// exact product of the accumulator and the scale's significand, shifted right with half added, clamped, plus the zero
// point. The shift is kept in 1...62 as there.
#define VT_REQUANTIZE_HALF_UP(result, accumulator, scale, lower, upper, zeroPoint)                               \
    do {                                                                                                         \
        float vt_scale = (scale);                                                                                \
        unsigned int vt_bits;                                                                                    \
        memcpy(&vt_bits, &vt_scale, sizeof vt_bits);                                                             \
        long long vt_shift = 150 - (long long)((vt_bits >> 23) & 0xFF);                                          \
        vt_shift = vt_shift < 1 ? 1 : vt_shift > 62 ? 62 : vt_shift;                                             \
        long long vt_product = (long long)(accumulator) * (long long)((vt_bits & 0x7FFFFF) | 0x800000);          \
        long long vt_rounded = (long long)(((unsigned long long)vt_product + (1ULL << (vt_shift - 1)))) >> vt_shift; \
        vt_rounded = vt_rounded < (long long)(lower) ? (long long)(lower) : vt_rounded;                          \
        vt_rounded = vt_rounded > (long long)(upper) ? (long long)(upper) : vt_rounded;                          \
        (result) = (int)vt_rounded + (zeroPoint);                                                                \
    } while (0)

void vt_onone_requantize_rows(const double *products, int rows, int columns, const int *bias, const float *scales,
                              float lower, float upper, int zeroPoint, int isSigned, void *out, ptrdiff_t outputStride,
                              int roundsHalfUp) {
    const vt_f8 low = {lower, lower, lower, lower, lower, lower, lower, lower};
    const vt_f8 high = {upper, upper, upper, upper, upper, upper, upper, upper};
    const vt_i8 zero = {zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint};
    for (int r = 0; r < rows; r++) {
        const double *row = products + (ptrdiff_t)r * columns;
        unsigned char *bytes = (unsigned char *)out + r * outputStride;
        int c = 0;
        for (; !roundsHalfUp && c + 8 <= columns; c += 8) {
            vt_i8 q;
            VT_REQUANTIZE8(q, __builtin_convertvector(*(const vt_d8 *)(row + c), vt_i8) + *(const vt_i8 *)(bias + c),
                           *(const vt_f8 *)(scales + c), low, high, zero);
            if (isSigned) *(vt_s8x8 *)(bytes + c) = __builtin_convertvector(q, vt_s8x8);
            else *(vt_u8x8 *)(bytes + c) = __builtin_convertvector(q, vt_u8x8);
        }
        for (; c < columns; c++) {
            int value;
            if (roundsHalfUp) VT_REQUANTIZE_HALF_UP(value, (int)row[c] + bias[c], scales[c], lower, upper, zeroPoint);
            else VT_REQUANTIZE(value, (int)row[c] + bias[c], scales[c], lower, upper, zeroPoint);
            bytes[c] = (unsigned char)value;
        }
    }
}

void vt_onone_quantized_depthwise_row(const void *tapRows, int isSigned, ptrdiff_t tapRowStep, int firstTapRow,
                                      int endTapRow, int outputWidth, int inputWidth, int channels, int filterWidth,
                                      int strideX, int dilationX, int padLeft, int zeroPoint, const int *weights,
                                      const int *bias, const float *scales, float lower, float upper,
                                      int outputZeroPoint, void *out, int roundsHalfUp) {
    const vt_f8 low = {lower, lower, lower, lower, lower, lower, lower, lower};
    const vt_f8 high = {upper, upper, upper, upper, upper, upper, upper, upper};
    const vt_i8 inputZero = {zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint, zeroPoint};
    const vt_i8 outputZero = {outputZeroPoint, outputZeroPoint, outputZeroPoint, outputZeroPoint,
                              outputZeroPoint, outputZeroPoint, outputZeroPoint, outputZeroPoint};
    const unsigned char *rows = tapRows;
    for (int ox = 0; ox < outputWidth; ox++) {
        int x0 = ox * strideX - padLeft;
        int firstTap = 0, endTap = filterWidth;
        while (firstTap < endTap && x0 + firstTap * dilationX < 0) firstTap++;
        while (endTap > firstTap && x0 + (endTap - 1) * dilationX >= inputWidth) endTap--;
        unsigned char *o = (unsigned char *)out + (ptrdiff_t)ox * channels;
        int c = 0;
        // Eight channels a step: exact int32 lanes, the same sums in any order.
        for (; c + 8 <= channels; c += 8) {
            vt_i8 sum = *(const vt_i8 *)(bias + c);
            for (int ky = firstTapRow; ky < endTapRow; ky++) {
                const int *w = weights + (ptrdiff_t)ky * filterWidth * channels + c;
                for (int kx = firstTap; kx < endTap; kx++) {
                    const unsigned char *p = rows + ky * tapRowStep + (ptrdiff_t)(x0 + kx * dilationX) * channels + c;
                    vt_i8 values = isSigned ? __builtin_convertvector(*(const vt_s8x8 *)p, vt_i8)
                                            : __builtin_convertvector(*(const vt_u8x8 *)p, vt_i8);
                    sum += (values - inputZero) * *(const vt_i8 *)(w + (ptrdiff_t)kx * channels);
                }
            }
            vt_i8 q;
            if (roundsHalfUp) {
                for (int lane = 0; lane < 8; lane++) {
                    VT_REQUANTIZE_HALF_UP(q[lane], sum[lane], scales[c + lane], lower, upper, outputZeroPoint);
                }
            } else {
                VT_REQUANTIZE8(q, sum, *(const vt_f8 *)(scales + c), low, high, outputZero);
            }
            if (isSigned) *(vt_s8x8 *)(o + c) = __builtin_convertvector(q, vt_s8x8);
            else *(vt_u8x8 *)(o + c) = __builtin_convertvector(q, vt_u8x8);
        }
        for (; c < channels; c++) {
            int sum = bias[c];
            for (int ky = firstTapRow; ky < endTapRow; ky++) {
                const int *w = weights + (ptrdiff_t)ky * filterWidth * channels + c;
                for (int kx = firstTap; kx < endTap; kx++) {
                    ptrdiff_t at = ky * tapRowStep + (ptrdiff_t)(x0 + kx * dilationX) * channels + c;
                    int value = isSigned ? ((const signed char *)tapRows)[at] : rows[at];
                    sum += (value - zeroPoint) * w[(ptrdiff_t)kx * channels];
                }
            }
            int q;
            if (roundsHalfUp) VT_REQUANTIZE_HALF_UP(q, sum, scales[c], lower, upper, outputZeroPoint);
            else VT_REQUANTIZE(q, sum, scales[c], lower, upper, outputZeroPoint);
            o[c] = (unsigned char)q;
        }
    }
}
