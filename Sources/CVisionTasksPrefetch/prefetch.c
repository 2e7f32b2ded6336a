// The prefetch hint is a static inline function in include/prefetch.h; a C target needs a source file of its own.
#include "prefetch.h"
