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

// Eight 8-bit values and eight doubles, read from anywhere, for the quantized loops.
typedef unsigned char vt_u8x8 __attribute__((vector_size(8), aligned(1)));
typedef signed char vt_s8x8 __attribute__((vector_size(8), aligned(1)));
typedef double vt_d8 __attribute__((vector_size(64), aligned(8)));

// Engine's `Requantization` on eight exact int32 accumulators with their channels' scales: times the scale in float,
// Swift's max(x, lower) (`lower >= x ? lower : x`) and min(m, upper) (`upper < m ? upper : m`), rounded half to even
// by adding and taking away 1.5 × 2^23 (the bounds keep every value far below 2^22), plus the zero point; NaN gives
// the zero point, as Int32(saturating:) gives 0. Leaves the eight results, as ints, in `result`.
#define VT_REQUANTIZE8(result, accumulators, scalesVector, low, high, zero)                                      \
    do {                                                                                                         \
        const vt_f8 vt_magic = {12582912.0f, 12582912.0f, 12582912.0f, 12582912.0f,                              \
                                12582912.0f, 12582912.0f, 12582912.0f, 12582912.0f};                             \
        vt_f8 vt_scaled = __builtin_convertvector((accumulators), vt_f8) * (scalesVector);                       \
        vt_i8 vt_raise = (low) >= vt_scaled;                                                                     \
        vt_scaled = (vt_f8)(((vt_i8)(low) & vt_raise) | ((vt_i8)vt_scaled & ~vt_raise));                         \
        vt_i8 vt_lower = (high) < vt_scaled;                                                                     \
        vt_scaled = (vt_f8)(((vt_i8)(high) & vt_lower) | ((vt_i8)vt_scaled & ~vt_lower));                        \
        vt_i8 vt_number = vt_scaled == vt_scaled;                                                                \
        vt_scaled = (vt_f8)((vt_i8)((vt_scaled + vt_magic) - vt_magic) & vt_number);                             \
        (result) = __builtin_convertvector(vt_scaled, vt_i8) + (zero);                                           \
    } while (0)

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
