// x86-64's tiers' tables. The tier values are floating_point_mode.h's VISION_TASKS_CPU_TIER_* (this target sits
// beside CVisionTasksFloatingPoint and may not include it; Engine checks each table's tier against its own).
#if defined(__x86_64__)
#include "micro_kernels.h"

static const struct vision_tasks_f32_gemm_kernels avx2 = {
    .tier = 1,
    .tile_6x16 = vision_tasks_f32_gemm_6x16__avx2_fma,
    .tile_12x8 = vision_tasks_f32_gemm_12x8__avx2_fma,
    .tile_6x8 = vision_tasks_f32_gemm_6x8__avx2_fma,
    .row_1x64 = vision_tasks_f32_gemm_1x64__avx2_fma,
    .tile_8x32 = NULL,
    .windows_6x16 = vision_tasks_f32_gemm_6x16_windows__avx2_fma,
    .pointers_6x16 = vision_tasks_f32_gemm_6x16_pointers__avx2_fma,
};

// AVX-512 adds the wide tile; the rest (a last single panel, partial and half panels, a single row) stays AVX2's, as
// in the Swift tier.
static const struct vision_tasks_f32_gemm_kernels avx512 = {
    .tier = 2,
    .tile_6x16 = vision_tasks_f32_gemm_6x16__avx2_fma,
    .tile_12x8 = vision_tasks_f32_gemm_12x8__avx2_fma,
    .tile_6x8 = vision_tasks_f32_gemm_6x8__avx2_fma,
    .row_1x64 = vision_tasks_f32_gemm_1x64__avx2_fma,
    .tile_8x32 = vision_tasks_f32_gemm_8x32__avx512f,
    .windows_6x16 = vision_tasks_f32_gemm_6x16_windows__avx2_fma,
    .pointers_6x16 = vision_tasks_f32_gemm_6x16_pointers__avx2_fma,
};

// VNNI changes only the quantized kernels: its float tiles are AVX-512's.
static const struct vision_tasks_f32_gemm_kernels avx512_vnni = {
    .tier = 3,
    .tile_6x16 = vision_tasks_f32_gemm_6x16__avx2_fma,
    .tile_12x8 = vision_tasks_f32_gemm_12x8__avx2_fma,
    .tile_6x8 = vision_tasks_f32_gemm_6x8__avx2_fma,
    .row_1x64 = vision_tasks_f32_gemm_1x64__avx2_fma,
    .tile_8x32 = vision_tasks_f32_gemm_8x32__avx512f,
    .windows_6x16 = vision_tasks_f32_gemm_6x16_windows__avx2_fma,
    .pointers_6x16 = vision_tasks_f32_gemm_6x16_pointers__avx2_fma,
};

// Every x86 tier runs the eight-channel loops: the AVX-512 tiers' sixteen-channel Swift loops give the same bits, and
// these already take the plain build's depthwise time to the tuned builds' (C sixteen-channel loops: not yet).
static const struct vision_tasks_f32_dwconv_kernels dwconv_avx2 = {
    .tier = 1, .square_3x3 = vision_tasks_f32_dwconv_3x3__avx2_fma, .square = vision_tasks_f32_dwconv_square__avx2_fma,
};
static const struct vision_tasks_f32_dwconv_kernels dwconv_avx512 = {
    .tier = 2, .square_3x3 = vision_tasks_f32_dwconv_3x3__avx2_fma, .square = vision_tasks_f32_dwconv_square__avx2_fma,
};
static const struct vision_tasks_f32_dwconv_kernels dwconv_avx512_vnni = {
    .tier = 3, .square_3x3 = vision_tasks_f32_dwconv_3x3__avx2_fma, .square = vision_tasks_f32_dwconv_square__avx2_fma,
};

// The quantized GEMMs as KernelConfig(tier:) chooses them: int16 pairs in the AVX2 and AVX-512 tiers (the Swift
// AVX-512 tier runs the same 4 × 16 and 8 × 8 ymm tiles), byte quads through `vpdpbusd` in the VNNI tier.
static const struct vision_tasks_q_gemm_kernels q_avx2 = {
    .tier = 1, .pairs_4x16 = vision_tasks_q16_gemm_4x16c2__avx2, .pairs_8x8 = vision_tasks_q16_gemm_8x8c2__avx2,
};
static const struct vision_tasks_q_gemm_kernels q_avx512 = {
    .tier = 2, .pairs_4x16 = vision_tasks_q16_gemm_4x16c2__avx2, .pairs_8x8 = vision_tasks_q16_gemm_8x8c2__avx2,
};
static const struct vision_tasks_q_gemm_kernels q_avx512_vnni = {
    .tier = 3,
    .pairs_4x16 = vision_tasks_q16_gemm_4x16c2__avx2,
    .pairs_8x8 = vision_tasks_q16_gemm_8x8c2__avx2,
    .quads_12x16 = vision_tasks_q8_dot_gemm_12x16c4__avx512vnni,
    .quads_4x16 = vision_tasks_q8_dot_gemm_4x16c4__avx512vnni,
    .quads_1x16 = vision_tasks_q8_dot_gemm_1x16c4__avx512vnni,
    .row_sum = vision_tasks_q8_row_sum__avx512vnni,
};

// Every x86 tier runs the eight-channel paired loop: the AVX-512 tiers' sixteen-channel Swift loops give the same
// bytes (exact sums), and this one already takes most of a plain build's quantized depthwise time away.
static const struct vision_tasks_q_dwconv_kernels q_dwconv_avx2 = {.tier = 1, .paired = vision_tasks_q16_dwconv_paired__avx2};
static const struct vision_tasks_q_dwconv_kernels q_dwconv_avx512 = {.tier = 2, .paired = vision_tasks_q16_dwconv_paired__avx2};
static const struct vision_tasks_q_dwconv_kernels q_dwconv_avx512_vnni = {.tier = 3, .paired = vision_tasks_q16_dwconv_paired__avx2};

// Every x86 tier looks bytes up 32 at a time (`vpshufb` is AVX2's; AVX-512's 64-byte form is not here yet).
static const struct vision_tasks_x8_lut_kernels x8_lut_avx2 = {.tier = 1, .lookup = vision_tasks_x8_lut__avx2};
static const struct vision_tasks_x8_lut_kernels x8_lut_avx512 = {.tier = 2, .lookup = vision_tasks_x8_lut__avx2};
static const struct vision_tasks_x8_lut_kernels x8_lut_avx512_vnni = {.tier = 3, .lookup = vision_tasks_x8_lut__avx2};

const struct vision_tasks_x8_lut_kernels *vision_tasks_x8_lut_kernels_for_tier(int tier) {
    switch (tier) {
    case 1: return &x8_lut_avx2;
    case 2: return &x8_lut_avx512;
    case 3: return &x8_lut_avx512_vnni;
    default: return NULL;
    }
}

const struct vision_tasks_q_dwconv_kernels *vision_tasks_q_dwconv_kernels_for_tier(int tier) {
    switch (tier) {
    case 1: return &q_dwconv_avx2;
    case 2: return &q_dwconv_avx512;
    case 3: return &q_dwconv_avx512_vnni;
    default: return NULL;
    }
}

const struct vision_tasks_q_gemm_kernels *vision_tasks_q_gemm_kernels_for_tier(int tier) {
    switch (tier) {
    case 1: return &q_avx2;
    case 2: return &q_avx512;
    case 3: return &q_avx512_vnni;
    default: return NULL;
    }
}

const struct vision_tasks_f32_dwconv_kernels *vision_tasks_f32_dwconv_kernels_for_tier(int tier) {
    switch (tier) {
    case 1: return &dwconv_avx2;
    case 2: return &dwconv_avx512;
    case 3: return &dwconv_avx512_vnni;
    default: return NULL;
    }
}

const struct vision_tasks_f32_gemm_kernels *vision_tasks_f32_gemm_kernels_for_tier(int tier) {
    switch (tier) {
    case 1: return &avx2;
    case 2: return &avx512;
    case 3: return &avx512_vnni;
    default: return NULL;
    }
}

#endif
