#include "onone_kernels.h"

#include "vectors.h"

#pragma STDC FP_CONTRACT OFF

// One pass where the Swift kernels make two (the bias and activation, then the fused epilogue), each element going
// through the same steps in the same order, so the same bits. Four channels a step: at -O0 the clamp's max and min
// are single instructions on one register (vectors.h), where eight lanes would need masks through the stack.
void vt_onone_epilogue(float *out, int rows, ptrdiff_t rowStride, int firstChannel, int endChannel, const float *bias,
                       float lower, float upper, const float *addend, ptrdiff_t addendStride, int addendEnd,
                       int clamps, float addedLower, float addedUpper, const float *slopes) {
    const vt_f4 low = {lower, lower, lower, lower}, high = {upper, upper, upper, upper};
    const vt_f4 addedLow = {addedLower, addedLower, addedLower, addedLower};
    const vt_f4 addedHigh = {addedUpper, addedUpper, addedUpper, addedUpper};
    const vt_f4 zero = {0, 0, 0, 0};
    for (int r = 0; r < rows; r++) {
        float *o = out + r * rowStride;
        const float *a = addend ? addend + r * addendStride : 0;
        int c = firstChannel;
        if (bias && !a && !clamps && !slopes) {
            // The convolution's own bias and activation alone: one expression a vector.
            for (; c + 4 <= endChannel; c += 4)
                *(vt_f4 *)(o + c) = VT_MIN4(high, VT_MAX4(low, *(vt_f4 *)(o + c) + *(const vt_f4 *)(bias + c)));
        }
        for (; c + 4 <= endChannel && (!a || c + 4 <= addendEnd); c += 4) {
            vt_f4 v = *(vt_f4 *)(o + c);
            if (bias) v = VT_MIN4(high, VT_MAX4(low, v + *(const vt_f4 *)(bias + c)));
            if (a) v += *(const vt_f4 *)(a + c);
            if (clamps) v = VT_MIN4(addedHigh, VT_MAX4(addedLow, v));
            if (slopes) {
                vt_i4 negative = v < zero;
                v = (vt_f4)(((vt_i4)(v * *(const vt_f4 *)(slopes + c)) & negative) | ((vt_i4)v & ~negative));
            }
            *(vt_f4 *)(o + c) = v;
        }
        for (; c < endChannel; c++) {
            float v = o[c];
            if (bias) {
                v += bias[c];
                v = lower > v ? lower : v;
                v = upper < v ? upper : v;
            }
            if (a && c < addendEnd) v += a[c];
            // Swift's max and min, as the Swift loop's last channels clamp (a zero's sign included).
            if (clamps) {
                v = addedLower >= v ? addedLower : v;
                v = addedUpper < v ? addedUpper : v;
            }
            if (slopes && v < 0) v *= slopes[c];
            o[c] = v;
        }
    }
}
