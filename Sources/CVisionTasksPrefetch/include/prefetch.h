#ifndef VISION_TASKS_PREFETCH_H
#define VISION_TASKS_PREFETCH_H

/// Asks the CPU to bring the cache line holding `address` into its caches: a hint, which never faults and changes no
/// value. Swift has no prefetch of its own; the crop (ImageToTensor) issues one per source line a row will read.
static inline void vision_tasks_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
