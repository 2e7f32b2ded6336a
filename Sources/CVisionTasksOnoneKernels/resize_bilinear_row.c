#include "onone_kernels.h"

#pragma STDC FP_CONTRACT OFF

void vt_onone_resize_bilinear_row(const float *top, const float *bottom, float dy, const vt_resize_tap *columns,
                                  int columnCount, int channels, float *out) {
    for (int column = 0; column < columnCount; column++) {
        const float dx = columns[column].fraction;
        const float *a = top + columns[column].lower * channels, *b = top + columns[column].upper * channels;
        const float *c = bottom + columns[column].lower * channels, *d = bottom + columns[column].upper * channels;
        for (int k = 0; k < channels; k++)
            out[k] = a[k] * (1 - dy) * (1 - dx) + c[k] * dy * (1 - dx) + b[k] * (1 - dy) * dx + d[k] * dy * dx;
        out += channels;
    }
}
