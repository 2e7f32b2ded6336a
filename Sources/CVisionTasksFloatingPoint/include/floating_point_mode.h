#ifndef FLOATING_POINT_MODE_H
#define FLOATING_POINT_MODE_H

/// Turns on flush-to-zero and denormals-are-zero for the calling thread and returns the previous mode, for
/// floating_point_restore. Does nothing (and returns 0) where the CPU has no such mode we know of.
unsigned int floating_point_flush_denormals(void);
void floating_point_restore(unsigned int mode);

// KernelConfig.Tier's cases, lowest first within each architecture.
enum {
    VISION_TASKS_CPU_TIER_PORTABLE = 0,
    VISION_TASKS_CPU_TIER_AVX2 = 1,
    VISION_TASKS_CPU_TIER_AVX512 = 2,
    VISION_TASKS_CPU_TIER_AVX512_VNNI = 3,
    VISION_TASKS_CPU_TIER_NEON = 4,
    VISION_TASKS_CPU_TIER_NEON_DOT_PRODUCT = 5,
};

// The best kernel tier this CPU and its operating system can run, whatever tier the build was made for.
int vision_tasks_best_cpu_tier(void);

#endif
