#include <string.h>

#include "onone_kernels.h"

// A library memcpy per filter row of taps (a call, which at -O0 beats any loop written here), zeros for taps outside.
void vt_onone_gather_patches(const float *source, float *patches, int firstPixel, int endPixel, int outputWidth,
                             int inputHeight, int inputWidth, int channels, int filterHeight, int filterWidth,
                             int strideY, int strideX, int dilationY, int dilationX, int padTop, int padLeft) {
    const size_t tapBytes = (size_t)channels * sizeof(float);
    float *patch = patches;
    for (int pixel = firstPixel; pixel < endPixel; pixel++) {
        int oy = pixel / outputWidth, ox = pixel - oy * outputWidth;
        int y0 = oy * strideY - padTop, x0 = ox * strideX - padLeft;
        int wholeRow = dilationX == 1 && x0 >= 0 && x0 + filterWidth <= inputWidth;
        for (int ky = 0; ky < filterHeight; ky++) {
            int iy = y0 + ky * dilationY;
            if (iy < 0 || iy >= inputHeight) {
                memset(patch, 0, tapBytes * filterWidth);
            } else if (wholeRow) {
                memcpy(patch, source + ((ptrdiff_t)iy * inputWidth + x0) * channels, tapBytes * filterWidth);
            } else {
                for (int kx = 0; kx < filterWidth; kx++) {
                    int ix = x0 + kx * dilationX;
                    if (ix < 0 || ix >= inputWidth) memset(patch + kx * channels, 0, tapBytes);
                    else memcpy(patch + kx * channels, source + ((ptrdiff_t)iy * inputWidth + ix) * channels, tapBytes);
                }
            }
            patch += filterWidth * channels;
        }
    }
}
