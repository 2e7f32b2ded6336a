#ifndef VISION_TASKS_MICRO_KERNELS_H
#define VISION_TASKS_MICRO_KERNELS_H
#include <stddef.h>
#include <stdint.h>

// The innermost loops of Engine's float GEMM (`PackedGEMM`'s tiles), float depthwise convolution and quantized GEMMs
// (`QuantizedGEMM`, `QuantizedDotGEMM`), compiled for every x86 tier in one build and
// chosen at run time from the CPU (Engine's `MicroKernelTable`), as XNNPACK's configs choose theirs.
//
// Why C: our Swift kernels get their tier from the target CPU (`-Xswiftc -target-cpu`, Package.swift), which SwiftPM
// refuses in a dependency (unsafe flags), and Swift up to 6.3 has no per-function target attribute (its DeclAttr.def
// has none; an experimental `@_target` came to swiftlang/swift's main branch after 6.3, behind an experimental-feature
// flag). C's `__attribute__((target("avx2,fma")))` compiles one function for a tier with no flags at all, so a
// dependent's plain `swift build -c release` carries every tier. Only these loops are C: packing, tiling, the
// epilogues, planning and threading stay Swift, and the Swift tiles stay the reference (a build tuned for its CPU runs
// them, and the tests hold these to them and to a scalar fused reference bit for bit).
//
// Every tile computes, for each element of C it stores, the bias plus its products fused (one rounding each) in depth
// order, then clamps: `min(upper, max(lower, v))` in x86's operand order (NaN passes through), as `ActivationClamp`.
// So each tier's tiles give the same bits as the Swift tiles of a build tuned for that tier, and as each other.
//
// Adding a tier (arm64's NEON dot product, next) is files only: its tiles in files guarded by its architecture, and
// its table returned by that architecture's `vision_tasks_f32_gemm_kernels_for_tier` (table_*.c).

/// One tile of C = clamp(bias + A · W) for A row-major (`lda` floats between rows) and W packed in panels of 16
/// columns: `depth` rows of 16 floats each, panels `panel_stride` floats apart (XNNPACK's layout; Engine's
/// `WeightPanels`). `rows` rows of A and C; the tile's own row count may be larger, in which case the last row of A
/// is read again for the missing ones and they are not stored. Stores only whole vectors of the tile's width: a
/// partial panel goes through a scratch tile on the Swift side.
typedef void (*vision_tasks_f32_gemm_tile)(size_t rows, size_t depth, const float *a, size_t lda, const float *w,
                                           size_t panel_stride, const float *bias, float *c, size_t ldc, float lower,
                                           float upper);

/// Exactly 6 rows × one panel (16 columns) of C = clamp(bias + A · W) where each row of A is a convolution's window
/// read in place from its NHWC input: `segments` runs (the filter's rows) of `segment_length` floats (its width
/// times the input's channels), `segment_stride` floats apart (an input row); the six rows `lda` floats apart. W is a
/// panel of `segments` × `segment_length` rows of 16 floats, the im2col depth order (filter row, column, channel),
/// so each output gets the multiply-adds, in the order, of the 6 × 16 tile over the same windows copied into rows.
typedef void (*vision_tasks_f32_gemm_window_tile)(size_t segments, size_t segment_length, size_t segment_stride,
                                                  const float *a, size_t lda, const float *w, const float *bias, float *c,
                                                  size_t ldc, float lower, float upper);

/// Exactly 6 rows × one panel (16 columns) of C = clamp(bias + A · W) where row r of A is given by pointers (XNNPACK's
/// indirect GEMM): `segments` runs of `segment_length` floats, run s of row r at `pointers[s * 6 + r]` (a filter row's
/// taps where they lie in the input, one tap's channels, or part of a window copied with zeros where it leaves the
/// input). W as for the window tile: each output gets the multiply-adds, in the order, of the 6 × 16 tile over the
/// same rows copied one after another.
typedef void (*vision_tasks_f32_gemm_pointer_tile)(size_t segments, size_t segment_length, const float *const *pointers,
                                                   const float *w, const float *bias, float *c, size_t ldc, float lower,
                                                   float upper);

/// A tier's float GEMM tiles; NULL where the tier has none of that shape.
struct vision_tasks_f32_gemm_kernels {
    /// The tier, as floating_point_mode.h's VISION_TASKS_CPU_TIER_* values (Engine checks they agree).
    int tier;
    /// Up to 6 rows × one panel (16 columns).
    vision_tasks_f32_gemm_tile tile_6x16;
    /// Exactly 12 rows × the first 8 columns of one panel (the last panel of 8, 24, 40 … channels).
    vision_tasks_f32_gemm_tile tile_12x8;
    /// Up to 6 rows × the first 8 columns of one panel.
    vision_tasks_f32_gemm_tile tile_6x8;
    /// One row × four whole panels (64 columns); `bias` and `c` cover all 64.
    vision_tasks_f32_gemm_tile row_1x64;
    /// Up to 8 rows × two whole panels (32 columns): the AVX-512 tier's wide tile; NULL below it.
    vision_tasks_f32_gemm_tile tile_8x32;
    /// 6 windows of a convolution's input × one panel, read in place (`vision_tasks_f32_gemm_window_tile`).
    vision_tasks_f32_gemm_window_tile windows_6x16;
    /// 6 rows of A by pointers × one panel (`vision_tasks_f32_gemm_pointer_tile`).
    vision_tasks_f32_gemm_pointer_tile pointers_6x16;
};

/// One output row's interior pixels of a float depthwise convolution of channel multiplier 1 (Engine's
/// `DepthwiseConv2DKernel.interior`): output columns `first_column ..< end_column`, whose `taps` × `taps` windows lie
/// inside the input (dilation 1), channels `0 ..< count` (count ≥ 8; the last 1–7 are recomputed as the vector
/// ending at `count`). The window of column `ox` starts at `origin + ox × stride × pixel_stride`, its rows `row_step`
/// floats apart; weights are [taps][taps][channels], output pixels `channels` floats apart. Each output is the bias
/// plus its taps fused in the Swift loops' order, clamped as `ActivationClamp`.
struct vision_tasks_f32_dwconv_row {
    const float *origin;
    const float *weights;
    const float *bias;
    float *out;
    size_t first_column, end_column;
    size_t taps, stride;
    size_t row_step, pixel_stride, channels, count;
    float lower, upper;
};
typedef void (*vision_tasks_f32_dwconv_loop)(const struct vision_tasks_f32_dwconv_row *row);

/// A tier's float depthwise loops; NULL where it has none.
struct vision_tasks_f32_dwconv_kernels {
    int tier;
    /// 3 × 3 windows, any stride: one channel vector along the row, nine taps in registers.
    vision_tasks_f32_dwconv_loop square_3x3;
    /// Any square window (5 × 5 in the models), any stride: four pixels × two channel vectors a step.
    vision_tasks_f32_dwconv_loop square;
};

/// The depthwise loops of `tier`, or NULL (as ``vision_tasks_f32_gemm_kernels_for_tier``).
const struct vision_tasks_f32_dwconv_kernels *vision_tasks_f32_dwconv_kernels_for_tier(int tier);

/// The tiles of `tier` (a VISION_TASKS_CPU_TIER_* value), or NULL where this build has none for it (another
/// architecture's tier, the portable tier). Never checks the CPU: the caller asks only for a tier the CPU runs.
const struct vision_tasks_f32_gemm_kernels *vision_tasks_f32_gemm_kernels_for_tier(int tier);

/// The requantization every quantized tile ends with (Engine's `Requantization`, XNNPACK's "fp32" scheme): the int32
/// sum converted to float, times the column's scale, clamped as `min(upper, max(lower, v))` in x86's operand order,
/// rounded half to even (`cvtps2dq` in the default rounding mode), the zero point added, saturated to the output
/// byte. The Swift tiles' `RequantizedStore` does the same instructions lane for lane, so the bytes are the same.
struct vision_tasks_q_requantization {
    /// The output bounds less the zero point.
    float lower, upper;
    int32_t zero_point;
    /// Nonzero for int8 outputs (saturated to −128…127), zero for uint8 (0…255).
    int32_t output_signed;
};

/// One tile of Engine's `QuantizedGEMM` (int16 pairs, `vpmaddwd`): C = requantize(bias + A · W) for A row-major int16
/// (the input less its zero point, `lda` elements between rows, `depth` even and the pad column 0) and W one panel of
/// 16 columns × `depth` / 2 pairs (Engine's `WeightPanels`, group 2: per pair of depth steps 16 columns × 2 int16).
/// `rows` rows of A and C (missing rows of the tile repeat the last row of A and are not stored); the first `width`
/// bytes of each row of C are stored, never more (the next ones may be another thread's). `bias` and `scales` are the
/// panel's 16.
typedef void (*vision_tasks_q16_gemm_tile)(size_t rows, size_t depth, const int16_t *a, size_t lda, const int16_t *w,
                                           const int32_t *bias, const float *scales,
                                           const struct vision_tasks_q_requantization *q, void *c, size_t ldc,
                                           size_t width);

/// One tile of Engine's `QuantizedDotGEMM` (byte quads, `vpdpbusd`): A′ rows of unsigned bytes (`depth` a multiple
/// of four, the pad 0), W′ one panel of 16 columns × `depth` / 4 quads of signed bytes (`WeightPanels`, group 4).
/// Each output is requantize(Σ A′W′ + bias + row_sum_factors × row_sums[row]), the zero-point correction of
/// `QuantizedDotGEMM`; `row_sum_factors` and `row_sums` are NULL where no column needs it. `row_sums` starts at the
/// tile's first row. Rows and `width` as for the int16-pair tiles.
typedef void (*vision_tasks_q8_dot_gemm_tile)(size_t rows, size_t depth, const uint8_t *a, size_t lda, const int8_t *w,
                                              const int32_t *bias, const float *scales, const int32_t *row_sum_factors,
                                              const int32_t *row_sums, const struct vision_tasks_q_requantization *q,
                                              void *c, size_t ldc, size_t width);

/// A tier's quantized GEMM tiles; NULL where the tier has none of that kind.
struct vision_tasks_q_gemm_kernels {
    int tier;
    /// Up to 4 rows × one panel: `QuantizedGEMM.tile`.
    vision_tasks_q16_gemm_tile pairs_4x16;
    /// Up to 8 rows × a panel's first 8 columns (`width` ≤ 8): `QuantizedGEMM.halfTile`.
    vision_tasks_q16_gemm_tile pairs_8x8;
    /// The VNNI tier's byte-quad tiles (`QuantizedDotGEMM.tile`, `tile4`, `tile1`): up to 12, up to 4, exactly 1 row.
    vision_tasks_q8_dot_gemm_tile quads_12x16;
    vision_tasks_q8_dot_gemm_tile quads_4x16;
    vision_tasks_q8_dot_gemm_tile quads_1x16;
    /// Σ of `count` unsigned bytes, wrapping int32: `QuantizedDotGEMM.rowSum`. With the quad tiles.
    int32_t (*row_sum)(const uint8_t *row, size_t count);
};

/// The quantized tiles of `tier`, or NULL (as ``vision_tasks_f32_gemm_kernels_for_tier``).
const struct vision_tasks_q_gemm_kernels *vision_tasks_q_gemm_kernels_for_tier(int tier);

/// One row's interior pixels of a quantized depthwise convolution for one group of 16 channels (channel multiplier 1;
/// Engine's `QuantizedDepthwiseConv2DKernel.pairedPixels`): `count` output pixels, the first window's first input at
/// `origin` (the group's first channel), windows `column_step` bytes apart, each tap's input at `offsets[tap]` bytes
/// from its window's; outputs 16 bytes each, `out_step` bytes apart. `weights` are the group's pairs of taps (per pair,
/// the low channels' (first, second) int16 pairs then the high channels', the last tap alone with 0 when `taps` is
/// odd); `bias` (less the zero point's share) and `scales` are the group's 16 in the pairs' channel order (0–3, 8–11,
/// then 4–7, 12–15). Each output is requantize(bias + Σ input × weight), exact int32.
struct vision_tasks_q_dwconv_paired_row {
    const void *origin;
    const ptrdiff_t *offsets;
    size_t taps, count, column_step, out_step;
    const int16_t *weights;
    const int32_t *bias;
    const float *scales;
    void *out;
    /// Nonzero for int8 inputs (sign-extended), zero for uint8.
    int32_t input_signed;
    const struct vision_tasks_q_requantization *q;
};
typedef void (*vision_tasks_q16_dwconv_paired_loop)(const struct vision_tasks_q_dwconv_paired_row *row);

/// A tier's quantized depthwise loops; NULL where it has none.
struct vision_tasks_q_dwconv_kernels {
    int tier;
    /// The eight-channel tiers' paired interior loop (16 channels, two taps per `vpmaddwd`).
    vision_tasks_q16_dwconv_paired_loop paired;
};

/// The quantized depthwise loops of `tier`, or NULL (as ``vision_tasks_f32_gemm_kernels_for_tier``).
const struct vision_tasks_q_dwconv_kernels *vision_tasks_q_dwconv_kernels_for_tier(int tier);

/// A byte table applied to `count` bytes (Engine's `ByteLookup`): `output[i] = table[input[i]]`, through `slices`,
/// ByteLookup's sixteen XORed 16-byte slices of the table, each repeated to 32 bytes (512 bytes). `output` may be
/// `input`.
typedef void (*vision_tasks_x8_lut_loop)(size_t count, const uint8_t *input, uint8_t *output, const uint8_t *slices,
                                         const uint8_t *table);

/// A tier's byte-table loop; NULL where it has none.
struct vision_tasks_x8_lut_kernels {
    int tier;
    vision_tasks_x8_lut_loop lookup;
};

/// The byte-table loop of `tier`, or NULL (as ``vision_tasks_f32_gemm_kernels_for_tier``).
const struct vision_tasks_x8_lut_kernels *vision_tasks_x8_lut_kernels_for_tier(int tier);

// The tiles by name, for the tests (each tier against the Swift tiles).
#if defined(__x86_64__)
void vision_tasks_f32_gemm_6x16__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda, const float *w,
                                          size_t panel_stride, const float *bias, float *c, size_t ldc, float lower,
                                          float upper);
void vision_tasks_f32_gemm_12x8__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda, const float *w,
                                          size_t panel_stride, const float *bias, float *c, size_t ldc, float lower,
                                          float upper);
void vision_tasks_f32_gemm_6x8__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda, const float *w,
                                         size_t panel_stride, const float *bias, float *c, size_t ldc, float lower,
                                         float upper);
void vision_tasks_f32_gemm_1x64__avx2_fma(size_t rows, size_t depth, const float *a, size_t lda, const float *w,
                                          size_t panel_stride, const float *bias, float *c, size_t ldc, float lower,
                                          float upper);
void vision_tasks_f32_gemm_6x16_windows__avx2_fma(size_t segments, size_t segment_length, size_t segment_stride,
                                                  const float *a, size_t lda, const float *w, const float *bias, float *c,
                                                  size_t ldc, float lower, float upper);
void vision_tasks_f32_gemm_6x16_pointers__avx2_fma(size_t segments, size_t segment_length, const float *const *pointers,
                                                   const float *w, const float *bias, float *c, size_t ldc, float lower,
                                                   float upper);
void vision_tasks_f32_dwconv_3x3__avx2_fma(const struct vision_tasks_f32_dwconv_row *row);
void vision_tasks_f32_dwconv_square__avx2_fma(const struct vision_tasks_f32_dwconv_row *row);
void vision_tasks_f32_gemm_8x32__avx512f(size_t rows, size_t depth, const float *a, size_t lda, const float *w,
                                         size_t panel_stride, const float *bias, float *c, size_t ldc, float lower,
                                         float upper);
void vision_tasks_q16_gemm_4x16c2__avx2(size_t rows, size_t depth, const int16_t *a, size_t lda, const int16_t *w,
                                        const int32_t *bias, const float *scales,
                                        const struct vision_tasks_q_requantization *q, void *c, size_t ldc, size_t width);
void vision_tasks_q16_gemm_8x8c2__avx2(size_t rows, size_t depth, const int16_t *a, size_t lda, const int16_t *w,
                                       const int32_t *bias, const float *scales,
                                       const struct vision_tasks_q_requantization *q, void *c, size_t ldc, size_t width);
#define VT_Q8_DOT_TILE(name)                                                                                           \
    void name(size_t rows, size_t depth, const uint8_t *a, size_t lda, const int8_t *w, const int32_t *bias,           \
              const float *scales, const int32_t *row_sum_factors, const int32_t *row_sums,                            \
              const struct vision_tasks_q_requantization *q, void *c, size_t ldc, size_t width)
VT_Q8_DOT_TILE(vision_tasks_q8_dot_gemm_12x16c4__avx512vnni);
VT_Q8_DOT_TILE(vision_tasks_q8_dot_gemm_4x16c4__avx512vnni);
VT_Q8_DOT_TILE(vision_tasks_q8_dot_gemm_1x16c4__avx512vnni);
int32_t vision_tasks_q8_row_sum__avx512vnni(const uint8_t *row, size_t count);
void vision_tasks_q16_dwconv_paired__avx2(const struct vision_tasks_q_dwconv_paired_row *row);
void vision_tasks_x8_lut__avx2(size_t count, const uint8_t *input, uint8_t *output, const uint8_t *slices,
                               const uint8_t *table);
#endif

#endif
