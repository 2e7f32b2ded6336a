// Denormal floats make x86 multiply-adds take a microcode assist of ~100 cycles each. Activations decaying toward
// zero (upsampled segmentation features fed zeros, say) produce them, and one such layer then runs several times
// slower. XNNPACK runs its kernels with denormals flushed for the same reason (pthreadpool's
// PTHREADPOOL_FLAG_DISABLE_DENORMALS); the results differ only in values below 1.2e-38.

#include "floating_point_mode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

// MXCSR bits: FTZ (flush results to zero) is bit 15, DAZ (treat denormal inputs as zero) bit 6.
static const unsigned int flush_bits = 0x8040;

unsigned int floating_point_flush_denormals(void) {
    unsigned int mode = _mm_getcsr();
    _mm_setcsr(mode | flush_bits);
    return mode;
}

void floating_point_restore(unsigned int mode) { _mm_setcsr(mode); }

#elif defined(__aarch64__)

// FPCR bit 24 (FZ) flushes denormal inputs and outputs.
unsigned int floating_point_flush_denormals(void) {
    unsigned long mode;
    __asm__ volatile("mrs %0, fpcr" : "=r"(mode));
    __asm__ volatile("msr fpcr, %0" : : "r"(mode | (1UL << 24)));
    return (unsigned int)mode;
}

void floating_point_restore(unsigned int mode) {
    unsigned long value = mode;
    __asm__ volatile("msr fpcr, %0" : : "r"(value));
}

#else

unsigned int floating_point_flush_denormals(void) { return 0; }
void floating_point_restore(unsigned int mode) { (void)mode; }

#endif

#if (defined(VISION_TASKS_REQUIRE_AVX2_FMA) || defined(VISION_TASKS_REQUIRE_AVX512) ||                                   \
     defined(VISION_TASKS_REQUIRE_AVX512VNNI)) &&                                                                       \
    (defined(__x86_64__) || defined(__i386__))
#include <string.h>
#include <unistd.h>

// A build made for a kernel tier (VISION_TASKS_CPU=haswell for AVX2 + FMA, skylake-avx512 for AVX-512, znver4 or
// cascadelake and later for AVX-512 VNNI; or a dependent's flags, README) runs that tier's instructions anywhere in
// its Swift code; on a CPU without them the first one kills the process with SIGILL and no word. This file is C,
// built for the baseline CPU, and this constructor runs before main: it checks once and says what to do instead.
// __builtin_cpu_supports answers for the CPU and the operating system together (AVX-512 needs the kernel to save the
// zmm registers: XCR0), so a CPU whose OS hides AVX-512 is refused too, rightly.

// The binary's tier is the highest one it requires; each tier includes the ones below it.
#if defined(VISION_TASKS_REQUIRE_AVX512VNNI)
#define TIER_DESCRIPTION "the AVX-512 VNNI tier: AVX2, FMA and AVX-512 F, BW, DQ, VL and VNNI (VISION_TASKS_CPU=znver4, cascadelake or newer)"
#elif defined(VISION_TASKS_REQUIRE_AVX512)
#define TIER_DESCRIPTION "the AVX-512 tier: AVX2, FMA and AVX-512 F, BW, DQ and VL (VISION_TASKS_CPU=skylake-avx512 or newer)"
#else
#define TIER_DESCRIPTION "CPUs with AVX2 and FMA (VISION_TASKS_CPU=haswell or newer)"
#endif

// A dependent passes its tier's -march to every C file too (README), this one included: the check itself is compiled
// for the baseline x86-64, or the compiler may use the very instructions it checks for (AVX-512 moves to zero
// `missing`, say) before it has checked.
#if defined(__x86_64__)
#define BASELINE __attribute__((target("arch=x86-64")))
#else
#define BASELINE
#endif

BASELINE static void vision_tasks_say(const char *text) { (void)!write(2, text, strlen(text)); }

BASELINE __attribute__((constructor)) static void vision_tasks_require_tier(void) {
    __builtin_cpu_init();
    // __builtin_cpu_supports takes only a string literal, hence one line per feature.
    const char *missing[8];
    int count = 0;
    if (!__builtin_cpu_supports("avx2")) missing[count++] = "avx2";
    if (!__builtin_cpu_supports("fma")) missing[count++] = "fma";
#if defined(VISION_TASKS_REQUIRE_AVX512) || defined(VISION_TASKS_REQUIRE_AVX512VNNI)
    if (!__builtin_cpu_supports("avx512f")) missing[count++] = "avx512f";
    if (!__builtin_cpu_supports("avx512bw")) missing[count++] = "avx512bw";
    if (!__builtin_cpu_supports("avx512dq")) missing[count++] = "avx512dq";
    if (!__builtin_cpu_supports("avx512vl")) missing[count++] = "avx512vl";
#endif
#if defined(VISION_TASKS_REQUIRE_AVX512VNNI)
    if (!__builtin_cpu_supports("avx512vnni")) missing[count++] = "avx512vnni";
#endif
    if (count == 0) return;
    // In pieces, without stdio: nothing else of the program has run yet.
    vision_tasks_say("swift-vision-tasks: this program was built for " TIER_DESCRIPTION ", and this CPU has not got "
                     "them (missing:");
    for (int i = 0; i < count; i++) {
        vision_tasks_say(" ");
        vision_tasks_say(missing[i]);
    }
    vision_tasks_say("). Build it again for this CPU: in swift-vision-tasks itself `. tools/tuned-build-env` picks the "
                     "best tier this CPU has (haswell: AVX2 + FMA), or leave VISION_TASKS_CPU unset for a binary that "
                     "runs on any x86-64 CPU; a package depending on it passes the flags of a tier this CPU has, or "
                     "none (README, \"Adding it to a package\").\n");
    _exit(70);  // EX_SOFTWARE
}
#endif

#if defined(VISION_TASKS_REQUIRE_DOTPROD) && defined(__aarch64__)
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

// The arm64 counterpart of the check above: a build for the NEON dot-product tier (VISION_TASKS_CPU=cortex-a76,
// neoverse-n1 and the other ARMv8.2 names of Package.swift) uses `sdot` anywhere, which an ARMv8.0 core such as the
// Raspberry Pi 4's Cortex-A72 does not have (SIGILL). The kernel reports the extension as HWCAP_ASIMDDP (bit 20 of
// AT_HWCAP, <asm/hwcap.h>); this file is built for the tier too, but reads the auxiliary vector before any
// dot product can run.
#define VISION_TASKS_HWCAP_ASIMDDP (1UL << 20)

__attribute__((constructor)) static void vision_tasks_require_dot_product(void) {
    if (getauxval(AT_HWCAP) & VISION_TASKS_HWCAP_ASIMDDP) return;
    static const char message[] =
        "swift-vision-tasks: this program was built for the NEON dot-product tier (ARMv8.2's sdot: VISION_TASKS_CPU="
        "cortex-a76, neoverse-n1 or newer), and this CPU has not got it (no asimddp in /proc/cpuinfo's Features; a "
        "Raspberry Pi 4's Cortex-A72 is ARMv8.0). Build it again for this CPU: `. tools/tuned-build-env` picks the best "
        "tier it has, or leave VISION_TASKS_CPU unset for a binary that runs on any arm64 CPU.\n";
    (void)!write(2, message, strlen(message));
    _exit(70);  // EX_SOFTWARE
}
#endif
