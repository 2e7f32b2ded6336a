// An allocation counter of our own (issue #3: "zero allocations per invoke"). Defining malloc and friends in the
// executable interposes them for every shared library of the process, Swift's runtime included; each forwards to
// glibc's internal entry points, so nothing changes but a relaxed atomic increment while counting is on.
// glibc only: other C libraries do not export __libc_malloc; there the counter reports itself unavailable.

#include "allocation_counter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

// Not under a sanitizer: ASan and TSan bring their own malloc, and ours, defined in the executable, would take its
// place — TSan's runtime crashes at start-up, and ASan would lose its heap red zones (no heap overflow found).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VISION_TASKS_UNDER_SANITIZER 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(VISION_TASKS_UNDER_SANITIZER)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_int counting;
static atomic_uint_least64_t allocations;

static inline void count_one(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count_one();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_one();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_one();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_one();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // The alignment must be a power of two multiple of sizeof(void *), as POSIX requires.
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_one();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void allocation_counter_start(void) {
    atomic_store(&allocations, 0);
    atomic_store(&counting, 1);
}

uint64_t allocation_counter_stop(void) {
    atomic_store(&counting, 0);
    return atomic_load(&allocations);
}

int allocation_counter_is_available(void) { return 1; }

#else

void allocation_counter_start(void) {}
uint64_t allocation_counter_stop(void) { return 0; }
int allocation_counter_is_available(void) { return 0; }

#endif

