#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stdint.h>

/// Counts heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by any
/// thread of the process while counting is on. Linking this target into an executable replaces the C library's
/// allocation entry points for the whole process; they forward to glibc's own (__libc_malloc and friends).
void allocation_counter_start(void);
/// Stops counting and returns the number of allocations since the matching start.
uint64_t allocation_counter_stop(void);
/// Whether this platform's allocator can be counted (glibc); elsewhere the counter always reads zero.
int allocation_counter_is_available(void);

#endif
