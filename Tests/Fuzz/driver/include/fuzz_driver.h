#ifndef VISION_TASKS_FUZZ_DRIVER_H
#define VISION_TASKS_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

typedef int (*vt_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer's driver over `callback` when the binary is linked with libFuzzer (`-sanitize=fuzzer`);
/// returns -1 in an ordinary build, which has no libFuzzer.
int vt_fuzz_run_driver(int *argc, char ***argv, vt_fuzz_callback callback);

#endif
