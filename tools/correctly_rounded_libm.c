// glibc 2.41's float functions, for running MediaPipe on Debian 12 as it runs on Debian 13 (LD_PRELOAD; tools only).
// glibc 2.41 made seven of the float functions MediaPipe 0.10.14 imports correctly rounded (CORE-MATH): acosf,
// atan2f, atanf, expm1f, log1pf, tanf, tanhf. Debian 12's glibc 2.36 is an ulp off on 6–16 % of inputs of each.
// The double functions are correctly rounded on both and unchanged, so each float function here is its double
// function rounded once: on 4,000,000 random inputs per function (20,000,000 for atan2f, tanhf, expm1f) these give
// glibc 2.41's results bit for bit; MediaPipe's other libm imports (cosf, sinf, expf, logf, log2f, powf, sqrtf and
// the double functions) give the same bits on both glibcs. See tools/mediapipe_libm_references.sh.
#include <math.h>

float acosf(float x) { return (float)acos((double)x); }
float atan2f(float y, float x) { return (float)atan2((double)y, (double)x); }
float atanf(float x) { return (float)atan((double)x); }
float expm1f(float x) { return (float)expm1((double)x); }
float log1pf(float x) { return (float)log1p((double)x); }
float tanf(float x) { return (float)tan((double)x); }
float tanhf(float x) { return (float)tanh((double)x); }
