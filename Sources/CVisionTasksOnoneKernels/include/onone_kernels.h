#ifndef VISION_TASKS_ONONE_KERNELS_H
#define VISION_TASKS_ONONE_KERNELS_H
#include <stddef.h>

// Loops for a build that compiles our Swift modules without optimization: a dependent's debug build (`swift build`,
// `swift run`), where SwiftPM compiles every package at -Onone and gives a package no way to ask for more (it refuses
// unsafe flags in a dependency; swiftlang/swift-package-manager#10074). At -Onone our Swift kernels' generic SIMD
// operations go through the runtime's witness tables and metadata look-ups for every lane — some 700 times slower
// than optimized, 6.7 s for one pose photo — while C built at -O0 still gives straight vector instructions, only
// with every value through the stack: some 3-5 times slower than optimized. So in such a build the hot loops run
// here, beside OpenBLAS for the products (Engine's `KernelConfig.withoutOptimization(tier:)`, which
// `KernelConfig.compiled` is where `KernelConfig.compiledWithoutOptimization`; Imaging's
// `ImageToTensorOptions.usesOnoneLoop`); in an optimized build they are never chosen and the Swift kernels stay the
// reference (the tests run these against LiteRT's goldens, byte for byte where quantized, and against OpenCV's
// remap). Written for -O0: plain loops over GCC vector types, macros rather than functions in inner loops (at -O0
// nothing is inlined but `always_inline`), and the long sums as single expressions, whose temporaries stay in
// registers where every named variable lives on the stack.

/// One output row of a float depthwise convolution of channel multiplier 1, NHWC, every column: `out[ox][c] =
/// clamp(bias[c] + Σ taps in[row][x][c] × w[ky][kx][c])`, taps that fall outside the input skipped (zero padding).
/// `tapRows` points at the input row of filter row 0 (it may lie outside the input: only rows `firstTapRow ..<
/// endTapRow` are read), `tapRowStep` floats apart. Weights are [filterHeight][filterWidth][channels].
void vt_onone_depthwise_row(const float *tapRows, ptrdiff_t tapRowStep, int firstTapRow, int endTapRow,
                            int outputWidth, int inputWidth, int channels, int filterHeight, int filterWidth, int strideX,
                            int dilationX, int padLeft, const float *weights, const float *bias, float lower,
                            float upper, float *out);

/// A float convolution's bias and activation clamp, then its fused epilogue (Engine's `Epilogue.apply`), in one pass
/// bit-identical to the Swift passes: over rows `rows`, `rowStride` floats apart, channels `firstChannel ..<
/// endChannel`: add `bias[c]` and clamp to `lower ... upper` (when `bias` is not NULL: the OpenBLAS path wrote bare
/// products), add the addend (when not NULL; channels below `addendEnd`, its rows `addendStride` apart, `addend`
/// matching `out`'s first element), clamp to `addedLower ... addedUpper` when `clamps`, then multiply negative values
/// by `slopes[c]` when there are slopes (PReLU).
void vt_onone_epilogue(float *out, int rows, ptrdiff_t rowStride, int firstChannel, int endChannel, const float *bias,
                       float lower, float upper, const float *addend, ptrdiff_t addendStride, int addendEnd,
                       int clamps, float addedLower, float addedUpper, const float *slopes);

/// im2col for a float convolution (Engine's `Conv2DKernel.gatherPatches`, the same values): output pixels
/// `firstPixel ..< endPixel` (row-major over `outputWidth` columns) each get filterHeight × filterWidth × channels
/// floats in `patches`, the input's taps of its window, zero for taps outside the input.
void vt_onone_gather_patches(const float *source, float *patches, int firstPixel, int endPixel, int outputWidth,
                             int inputHeight, int inputWidth, int channels, int filterHeight, int filterWidth,
                             int strideY, int strideX, int dilationY, int dilationX, int padTop, int padLeft);

/// One output row of the crop (Imaging's `ImageToTensor.sampleRows`) from packed 8-bit RGB, RGBA or BGRA pixels,
/// bit-identical to the Swift loop: OpenCV's bilinear remap in fixed point — source coordinates `xs`/`ys` in 1/32
/// pixels, `weights` the 32 × 32 table of four 15-bit weights, sums rounded to 8 bits and saturated; neighbours
/// outside the image clamped into it (`replicate`) or zero — each value stored as `value × scale + offset` into
/// `floats` (when not NULL) or as a byte into `bytes`, three per pixel.
void vt_onone_crop_row(const int *xs, const int *ys, int width, const unsigned char *base, ptrdiff_t stride,
                       int bytesPerPixel, int swapsRedAndBlue, int imageWidth, int imageHeight, int replicate,
                       const int *weights, float *floats, float scale, float offset, unsigned char *bytes);

/// A run of a quantized ADD or SUB in XNNPACK's fixed-point form (Engine's `QuantizedAddKernel`), the same bytes:
/// `clamp(((bias + a × aMultiplier + b × bMultiplier) >> shift) + zeroPoint, lower, upper)` on the stored values, in
/// wrapping 32-bit arithmetic and an arithmetic shift, over `count` outputs, the inputs `strideA` and `strideB`
/// elements apart (0 where broadcast).
void vt_onone_quantized_add_run(const void *a, ptrdiff_t strideA, const void *b, ptrdiff_t strideB, void *out, int count,
                                int isSigned, int aMultiplier, int bMultiplier, int bias, int shift, int zeroPoint,
                                int lower, int upper);

/// One output pixel of a float max pool (Engine's `Pooling2DKernel`), the same values: per channel the maximum over
/// input rows `firstRow ..< endRow` and columns `firstColumn ..< endColumn` (the window's part inside the input).
void vt_onone_max_pool_pixel(const float *source, int firstRow, int endRow, int firstColumn, int endColumn,
                             int inputWidth, int channels, float *out);

/// One neighbour pair of a bilinear resize along one axis (Engine's `ResizeBilinearKernel.Tap`, which is this type).
typedef struct {
    long lower;
    long upper;
    float fraction;
} vt_resize_tap;

/// One output row of a float bilinear resize (Engine's `ResizeBilinearKernel`), the same arithmetic in the same
/// order, so the same bits: `out[column][k] = a·(1−dy)·(1−dx) + c·dy·(1−dx) + b·(1−dy)·dx + d·dy·dx` of the four
/// neighbours in rows `top` and `bottom` (input rows, pixels of `channels` floats) at each column's taps.
void vt_onone_resize_bilinear_row(const float *top, const float *bottom, float dy, const vt_resize_tap *columns,
                                  int columnCount, int channels, float *out);

/// The quantized requantization of Engine's `Requantization` (XNNPACK's fp32 scheme), the same arithmetic: the exact
/// int32 accumulator times the channel's scale in float, clamped to `lower ... upper` (the output bounds less the
/// zero point) with Swift's max and min, rounded half to even, plus the zero point; NaN gives the zero point.

/// Quantized convolution's products for output pixels `firstPixel ..< endPixel` (row-major over `outputWidth`):
/// each pixel's patch — filterHeight × filterWidth × channels values of input less its zero point, 0 outside the input
/// (padding with the zero point) — as doubles into `patches`, `depth` doubles a row (the filter's depth; more than the
/// patch only if the caller pads). Integers in doubles: OpenBLAS's dgemm then multiplies and adds them exactly, in
/// any order (every partial sum an integer far below 2^53).
void vt_onone_quantized_patches(const void *source, int isSigned, int zeroPoint, int firstPixel, int endPixel,
                                int outputWidth, int inputHeight, int inputWidth, int channels, int filterHeight,
                                int filterWidth, int strideY, int strideX, int dilationY, int dilationX, int padTop,
                                int padLeft, int depth, double *patches);

/// Requantizes `rows` rows of `columns` exact products (doubles holding integers, from dgemm) plus `bias[c]` into
/// uint8 or int8 outputs, `outputStride` elements a row.
void vt_onone_requantize_rows(const double *products, int rows, int columns, const int *bias, const float *scales,
                              float lower, float upper, int zeroPoint, int isSigned, void *out, ptrdiff_t outputStride,
                              int roundsHalfUp);

/// One output row of a quantized depthwise convolution of channel multiplier 1 (Engine's
/// `QuantizedDepthwiseConv2DKernel`), the same bytes: per channel the int32 bias plus Σ (input − zero point) × weight
/// over the taps inside the input (outside is padding with the zero point: 0), requantized. `tapRows` points at the
/// input row of filter row 0 (only rows `firstTapRow ..< endTapRow` are read), `tapRowStep` elements apart; weights
/// are int32 [filterHeight × filterWidth][channels], less the filter's zero points.
void vt_onone_quantized_depthwise_row(const void *tapRows, int isSigned, ptrdiff_t tapRowStep, int firstTapRow,
                                      int endTapRow, int outputWidth, int inputWidth, int channels, int filterWidth,
                                      int strideX, int dilationX, int padLeft, int zeroPoint, const int *weights,
                                      const int *bias, const float *scales, float lower, float upper,
                                      int outputZeroPoint, void *out, int roundsHalfUp);

#endif
