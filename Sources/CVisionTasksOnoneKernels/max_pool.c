#include <float.h>

#include "onone_kernels.h"

#include "vectors.h"

// The maximum of eight channels from `first` over the window, with the Swift loop's select (`v > m`: NaN keeps m).
#define VT_MAX_POOL_VECTOR(first)                                                                                \
    do {                                                                                                         \
        vt_f8 m = lowest;                                                                                        \
        for (int iy = firstRow; iy < endRow; iy++) {                                                             \
            for (int ix = firstColumn; ix < endColumn; ix++) {                                                   \
                vt_f8 v = *(const vt_f8 *)(source + ((ptrdiff_t)iy * inputWidth + ix) * channels + (first));     \
                vt_i8 greater = v > m;                                                                           \
                m = (vt_f8)(((vt_i8)v & greater) | ((vt_i8)m & ~greater));                                       \
            }                                                                                                    \
        }                                                                                                        \
        *(vt_f8 *)(out + (first)) = m;                                                                           \
    } while (0)

void vt_onone_max_pool_pixel(const float *source, int firstRow, int endRow, int firstColumn, int endColumn,
                             int inputWidth, int channels, float *out) {
    const vt_f8 lowest = {-FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX};
    int c = 0;
    for (; c + 8 <= channels; c += 8) VT_MAX_POOL_VECTOR(c);
    // The last 1-7 channels as the eight ending there when there are eight (a maximum is the same however often it
    // is taken), as the Swift loop does; lane by lane below eight channels, with Swift's max(m, v): `v >= m ? v : m`.
    if (c < channels && channels >= 8) {
        VT_MAX_POOL_VECTOR(channels - 8);
        return;
    }
    for (; c < channels; c++) {
        float m = -FLT_MAX;
        for (int iy = firstRow; iy < endRow; iy++)
            for (int ix = firstColumn; ix < endColumn; ix++) {
                float v = source[((ptrdiff_t)iy * inputWidth + ix) * channels + c];
                m = v >= m ? v : m;
            }
        out[c] = m;
    }
}
