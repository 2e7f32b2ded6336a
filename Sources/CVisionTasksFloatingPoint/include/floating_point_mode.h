#ifndef FLOATING_POINT_MODE_H
#define FLOATING_POINT_MODE_H

/// Turns on flush-to-zero and denormals-are-zero for the calling thread and returns the previous mode, for
/// floating_point_restore. Does nothing (and returns 0) where the CPU has no such mode we know of.
unsigned int floating_point_flush_denormals(void);
void floating_point_restore(unsigned int mode);

#endif
