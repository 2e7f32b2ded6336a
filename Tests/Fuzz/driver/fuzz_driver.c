#include "fuzz_driver.h"

// Weak: SwiftPM gives an executable its own entry point (renamed `<module>_main`, `main` defined to it at link
// time), so libFuzzer's `main` is never the one that runs. We call libFuzzer's documented driver entry instead; an
// ordinary build, which does not link libFuzzer, still links and says so at run time.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) __attribute__((weak));

int vt_fuzz_run_driver(int *argc, char ***argv, vt_fuzz_callback callback) {
    if (!LLVMFuzzerRunDriver) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
