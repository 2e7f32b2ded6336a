#include <stdint.h>

#include "onone_kernels.h"

void vt_onone_quantized_add_run(const void *a, ptrdiff_t strideA, const void *b, ptrdiff_t strideB, void *out, int count,
                                int isSigned, int aMultiplier, int bMultiplier, int bias, int shift, int zeroPoint,
                                int lower, int upper) {
    for (int i = 0; i < count; i++) {
        int x = isSigned ? ((const signed char *)a)[i * strideA] : ((const unsigned char *)a)[i * strideA];
        int y = isSigned ? ((const signed char *)b)[i * strideB] : ((const unsigned char *)b)[i * strideB];
        // Swift's wrapping &* and &+ on Int32: unsigned arithmetic, then the two's-complement value back.
        int32_t sum = (int32_t)((uint32_t)bias + (uint32_t)x * (uint32_t)aMultiplier + (uint32_t)y * (uint32_t)bMultiplier);
        int value = (sum >> shift) + zeroPoint;
        value = value < lower ? lower : value > upper ? upper : value;
        if (isSigned) ((signed char *)out)[i] = (signed char)value;
        else ((unsigned char *)out)[i] = (unsigned char)value;
    }
}
