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

#if defined(VISION_TASKS_REQUIRE_AVX2_FMA) && (defined(__x86_64__) || defined(__i386__))
#include <stdio.h>
#include <unistd.h>

// A build made with VISION_TASKS_CPU=haswell (or another AVX2 + FMA target) runs AVX2 and FMA instructions anywhere in
// its Swift code; on a CPU without them the first one kills the process with SIGILL and no word. This file is C,
// built for the baseline CPU, and this constructor runs before main: it checks once and says what to do instead.
__attribute__((constructor)) static void vision_tasks_require_avx2_fma(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return;
    static const char message[] =
        "swift-vision-tasks: this program was built for CPUs with AVX2 and FMA (VISION_TASKS_CPU), and this CPU "
        "has not got them. Build it again without VISION_TASKS_CPU for a binary that runs on any x86-64 CPU.\n";
    (void)!write(2, message, sizeof message - 1);
    _exit(70);  // EX_SOFTWARE
}
#endif
