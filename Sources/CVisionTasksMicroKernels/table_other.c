// Architectures without C tiles yet: every tier's Swift tiles are the build's own (arm64's NEON is its baseline).
// arm64's dot-product tier brings a table_aarch64.c (and narrows this guard) with its files.
#if !defined(__x86_64__)
#include "micro_kernels.h"

const struct vision_tasks_f32_gemm_kernels *vision_tasks_f32_gemm_kernels_for_tier(int tier) {
    (void)tier;
    return NULL;
}

const struct vision_tasks_f32_dwconv_kernels *vision_tasks_f32_dwconv_kernels_for_tier(int tier) {
    (void)tier;
    return NULL;
}

const struct vision_tasks_q_dwconv_kernels *vision_tasks_q_dwconv_kernels_for_tier(int tier) {
    (void)tier;
    return NULL;
}

const struct vision_tasks_q_gemm_kernels *vision_tasks_q_gemm_kernels_for_tier(int tier) {
    (void)tier;
    return NULL;
}

const struct vision_tasks_x8_lut_kernels *vision_tasks_x8_lut_kernels_for_tier(int tier) {
    (void)tier;
    return NULL;
}

#endif
