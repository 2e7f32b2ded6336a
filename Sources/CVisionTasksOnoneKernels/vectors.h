#ifndef VISION_TASKS_ONONE_VECTORS_H
#define VISION_TASKS_ONONE_VECTORS_H

// Eight floats: one AVX register, two SSE or NEON ones; `aligned(4)` lets a pointer to any float be read as one.
typedef float vt_f8 __attribute__((vector_size(32), aligned(4)));
typedef int vt_i8 __attribute__((vector_size(32), aligned(4)));

// The activation clamp with the Swift kernels' selects (ActivationClamp): the lower bound where it is greater, then
// the upper where it is smaller; a NaN passes through. A macro: at -O0 a function would be a call per vector.
#define VT_CLAMP(v, low, high)                                                                                   \
    ({                                                                                                           \
        vt_f8 vt_value = (v);                                                                                    \
        vt_i8 vt_below = (low) > vt_value;                                                                       \
        vt_value = (vt_f8)(((vt_i8)(low) & vt_below) | ((vt_i8)vt_value & ~vt_below));                           \
        vt_i8 vt_above = (high) < vt_value;                                                                      \
        (vt_f8)(((vt_i8)(high) & vt_above) | ((vt_i8)vt_value & ~vt_above));                                     \
    })

// Four floats (one SSE or NEON register) and the clamp's max and min of one such vector in the same operand order: on
// x86 SSE's maxps/minps, whose `a > b ? a : b` is exactly the Swift select (a builtin, one instruction even at -O0).
typedef float vt_f4 __attribute__((vector_size(16), aligned(4)));
typedef int vt_i4 __attribute__((vector_size(16), aligned(4)));
#if defined(__SSE__)
#define VT_MAX4(a, b) __builtin_ia32_maxps((a), (b))
#define VT_MIN4(a, b) __builtin_ia32_minps((a), (b))
#else
#define VT_MAX4(a, b)                                                                                            \
    ({                                                                                                           \
        vt_f4 vt_a = (a), vt_b = (b);                                                                            \
        vt_i4 vt_greater = vt_a > vt_b;                                                                          \
        (vt_f4)(((vt_i4)vt_a & vt_greater) | ((vt_i4)vt_b & ~vt_greater));                                       \
    })
#define VT_MIN4(a, b)                                                                                            \
    ({                                                                                                           \
        vt_f4 vt_a = (a), vt_b = (b);                                                                            \
        vt_i4 vt_less = vt_a < vt_b;                                                                             \
        (vt_f4)(((vt_i4)vt_a & vt_less) | ((vt_i4)vt_b & ~vt_less));                                             \
    })
#endif

#endif
