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
};

// VNNI changes only the quantized kernels: its float tiles are AVX-512's.
static const struct vision_tasks_f32_gemm_kernels avx512_vnni = {
    .tier = 3,
    .tile_6x16 = vision_tasks_f32_gemm_6x16__avx2_fma,
    .tile_12x8 = vision_tasks_f32_gemm_12x8__avx2_fma,
    .tile_6x8 = vision_tasks_f32_gemm_6x8__avx2_fma,
    .row_1x64 = vision_tasks_f32_gemm_1x64__avx2_fma,
    .tile_8x32 = vision_tasks_f32_gemm_8x32__avx512f,
};

const struct vision_tasks_f32_gemm_kernels *vision_tasks_f32_gemm_kernels_for_tier(int tier) {
    switch (tier) {
    case 1: return &avx2;
    case 2: return &avx512;
    case 3: return &avx512_vnni;
    default: return NULL;
    }
}

#endif
