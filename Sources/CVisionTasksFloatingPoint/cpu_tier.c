// The best kernel tier this machine runs, so that a build made for a lower one (a dependent's plain build is the
// portable tier) can say what a build for this CPU would run (KernelConfig.bestTierForThisCPU). The same questions
// as the start-up checks of floating_point_mode.c, asked without exiting; C because Swift has no way to read CPUID.

#include "floating_point_mode.h"

#if defined(__x86_64__)

// Compiled for the baseline x86-64 whatever flags the build passes (as floating_point_mode.c's check), so that asking
// uses none of the instructions asked about. __builtin_cpu_supports answers for the CPU and the operating system
// together (AVX-512 needs the kernel to save the zmm registers).
__attribute__((target("arch=x86-64"))) int vision_tasks_best_cpu_tier(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return VISION_TASKS_CPU_TIER_PORTABLE;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
        !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl"))
        return VISION_TASKS_CPU_TIER_AVX2;
    if (!__builtin_cpu_supports("avx512vnni")) return VISION_TASKS_CPU_TIER_AVX512;
    return VISION_TASKS_CPU_TIER_AVX512_VNNI;
}

#elif defined(__aarch64__)
#include <sys/auxv.h>

// ARMv8.2's dot product as the kernel reports it: HWCAP_ASIMDDP, bit 20 of AT_HWCAP (<asm/hwcap.h>).
int vision_tasks_best_cpu_tier(void) {
    return (getauxval(AT_HWCAP) & (1UL << 20)) ? VISION_TASKS_CPU_TIER_NEON_DOT_PRODUCT : VISION_TASKS_CPU_TIER_NEON;
}

#else

int vision_tasks_best_cpu_tier(void) { return VISION_TASKS_CPU_TIER_PORTABLE; }

#endif
