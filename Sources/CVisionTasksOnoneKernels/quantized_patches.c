#include "onone_kernels.h"

void vt_onone_quantized_patches(const void *source, int isSigned, int zeroPoint, int firstPixel, int endPixel,
                                int outputWidth, int inputHeight, int inputWidth, int channels, int filterHeight,
                                int filterWidth, int strideY, int strideX, int dilationY, int dilationX, int padTop,
                                int padLeft, int depth, double *patches) {
    const unsigned char *bytes = source;
    const signed char *signedBytes = source;
    for (int pixel = firstPixel; pixel < endPixel; pixel++) {
        int oy = pixel / outputWidth, ox = pixel - oy * outputWidth;
        int y0 = oy * strideY - padTop, x0 = ox * strideX - padLeft;
        double *patch = patches + (ptrdiff_t)(pixel - firstPixel) * depth;
        int k = 0;
        for (int ky = 0; ky < filterHeight; ky++) {
            int iy = y0 + ky * dilationY;
            for (int kx = 0; kx < filterWidth; kx++) {
                int ix = x0 + kx * dilationX;
                if (iy < 0 || iy >= inputHeight || ix < 0 || ix >= inputWidth) {
                    for (int c = 0; c < channels; c++) patch[k++] = 0;
                    continue;
                }
                ptrdiff_t at = ((ptrdiff_t)iy * inputWidth + ix) * channels;
                if (isSigned) {
                    for (int c = 0; c < channels; c++) patch[k++] = signedBytes[at + c] - zeroPoint;
                } else {
                    for (int c = 0; c < channels; c++) patch[k++] = bytes[at + c] - zeroPoint;
                }
            }
        }
        while (k < depth) patch[k++] = 0;
    }
}
