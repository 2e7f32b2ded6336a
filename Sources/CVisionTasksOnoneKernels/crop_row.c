#include "onone_kernels.h"

#pragma STDC FP_CONTRACT OFF

// OpenCV's INTER_BITS and INTER_REMAP_COEF_BITS, as ImageToTensor has them.
enum { vt_inter_bits = 5, vt_coefficient_bits = 15 };

void vt_onone_crop_row(const int *xs, const int *ys, int width, const unsigned char *base, ptrdiff_t stride,
                       int bytesPerPixel, int swapsRedAndBlue, int imageWidth, int imageHeight, int replicate,
                       const int *weights, float *floats, float scale, float offset, unsigned char *bytes) {
    const int mask = (1 << vt_inter_bits) - 1, half = 1 << (vt_coefficient_bits - 1);
    for (int u = 0; u < width; u++) {
        int X = xs[u], Y = ys[u];
        // The integer pixel saturated to 16 bits as OpenCV stores it (arithmetic shifts, as Swift's >>).
        int x0 = X >> vt_inter_bits, y0 = Y >> vt_inter_bits;
        x0 = x0 < -32768 ? -32768 : x0 > 32767 ? 32767 : x0;
        y0 = y0 < -32768 ? -32768 : y0 > 32767 ? 32767 : y0;
        const int *w = weights + 4 * (((Y & mask) << vt_inter_bits) + (X & mask));
        int inside = x0 >= 0 && x0 < imageWidth - 1 && y0 >= 0 && y0 < imageHeight - 1;
        // A zero border where all four neighbours are outside: zero, without the sum.
        int outside = !replicate && (x0 >= imageWidth || x0 + 1 < 0 || y0 >= imageHeight || y0 + 1 < 0);
        // The four neighbours' addresses, or NULL for one outside a zero border (it counts as 0); with a replicated
        // border, clamped into the image.
        const unsigned char *p[4] = {0, 0, 0, 0};
        if (inside) {
            p[0] = base + y0 * stride + (ptrdiff_t)x0 * bytesPerPixel;
            p[1] = p[0] + bytesPerPixel;
            p[2] = p[0] + stride;
            p[3] = p[2] + bytesPerPixel;
        } else if (!outside) {
            for (int k = 0; k < 4; k++) {
                int x = x0 + (k & 1), y = y0 + (k >> 1);
                if (replicate) {
                    x = x < 0 ? 0 : x > imageWidth - 1 ? imageWidth - 1 : x;
                    y = y < 0 ? 0 : y > imageHeight - 1 ? imageHeight - 1 : y;
                } else if (x < 0 || x >= imageWidth || y < 0 || y >= imageHeight) {
                    continue;
                }
                p[k] = base + y * stride + (ptrdiff_t)x * bytesPerPixel;
            }
        }
        for (int channel = 0; channel < 3; channel++) {
            int value = 0;
            if (!outside) {
                int from = swapsRedAndBlue ? 2 - channel : channel, sum = 0;
                for (int k = 0; k < 4; k++) sum += p[k] ? p[k][from] * w[k] : 0;
                value = (sum + half) >> vt_coefficient_bits;
                value = value < 0 ? 0 : value > 255 ? 255 : value;
            }
            if (floats) floats[3 * u + channel] = (float)value * scale + offset;
            else bytes[3 * u + channel] = (unsigned char)value;
        }
    }
}
