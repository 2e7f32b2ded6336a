// CVisionTasksMicroKernels' float GEMM tiles (the AVX2 tier's four and its pointer tile, AVX-512's wide one) on exact-size heap buffers (so AddressSanitizer
// sees any read or write past A's rows, the panels, the bias or C) against a scalar reference that fuses each product
// with C's fmaf (one rounding, libm's: the definition of what the tiles compute) and clamps as they do; bit for bit.
// Built and run by tools/check-micro-kernels under ASan and UBSan. The Swift side of the same tiles is
// FloatMicroKernelTests'.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "micro_kernels.h"

static float rnd(unsigned *s) { *s = *s * 1664525u + 1013904223u; return ((*s >> 8) / 16777216.0f) * 2 - 1; }
static int failures = 0;

// Exact-size buffers (ASan catches any read or write past them): A rows×lda, panels panels×depth×16, bias, C.
static void check(const char *name, vision_tasks_f32_gemm_tile tile, size_t rows, size_t depth, size_t lda, size_t panels,
                  size_t width, size_t ldc, unsigned seed) {
    float *a = malloc(sizeof(float) * ((rows - 1) * lda + depth));
    float *w = malloc(sizeof(float) * panels * depth * 16);
    float *bias = malloc(sizeof(float) * panels * 16);
    float *c = malloc(sizeof(float) * ((rows - 1) * ldc + width));
    for (size_t i = 0; i < (rows - 1) * lda + depth; i++) a[i] = rnd(&seed);
    for (size_t i = 0; i < panels * depth * 16; i++) w[i] = rnd(&seed);
    for (size_t i = 0; i < panels * 16; i++) bias[i] = rnd(&seed);
    tile(rows, depth, a, lda, w, depth * 16, bias, c, ldc, 0.0f, 6.0f);
    for (size_t r = 0; r < rows; r++)
        for (size_t n = 0; n < width; n++) {
            size_t p = n / 16, j = n % 16;
            float s = bias[n];
            for (size_t k = 0; k < depth; k++) s = fmaf(a[r * lda + k], w[p * depth * 16 + k * 16 + j], s);
            float v = 0.0f > s ? 0.0f : s;
            v = 6.0f < v ? 6.0f : v;
            if (memcmp(&v, &c[r * ldc + n], 4) != 0) { failures++; if (failures < 5) printf("%s %zu×%zu: [%zu][%zu] %g vs %g\n", name, rows, depth, r, n, c[r * ldc + n], v); }
        }
    free(a), free(w), free(bias), free(c);
}

// The pointer tile (6 rows by pointers × one panel): every run of every row in a buffer of its own, exactly
// `segment_length` floats (ASan catches a read past any of them), against the same fused reference over the runs in
// order.
static void check_pointers(vision_tasks_f32_gemm_pointer_tile tile, size_t segments, size_t length, size_t ldc, unsigned seed) {
    const size_t depth = segments * length;
    const float **runs = malloc(sizeof(float *) * segments * 6);
    for (size_t i = 0; i < segments * 6; i++) {
        float *run = malloc(sizeof(float) * length);
        for (size_t k = 0; k < length; k++) run[k] = rnd(&seed);
        runs[i] = run;
    }
    float *w = malloc(sizeof(float) * depth * 16);
    float *bias = malloc(sizeof(float) * 16);
    float *c = malloc(sizeof(float) * (5 * ldc + 16));
    for (size_t i = 0; i < depth * 16; i++) w[i] = rnd(&seed);
    for (size_t i = 0; i < 16; i++) bias[i] = rnd(&seed);
    tile(segments, length, runs, w, bias, c, ldc, 0.0f, 6.0f);
    for (size_t r = 0; r < 6; r++)
        for (size_t n = 0; n < 16; n++) {
            float s = bias[n];
            for (size_t k = 0; k < depth; k++) s = fmaf(runs[(k / length) * 6 + r][k % length], w[k * 16 + n], s);
            float v = 0.0f > s ? 0.0f : s;
            v = 6.0f < v ? 6.0f : v;
            if (memcmp(&v, &c[r * ldc + n], 4) != 0) { failures++; if (failures < 5) printf("pointers %zu×%zu: [%zu][%zu] %g vs %g\n", segments, length, r, n, c[r * ldc + n], v); }
        }
    for (size_t i = 0; i < segments * 6; i++) free((void *)runs[i]);
    free(runs), free(w), free(bias), free(c);
}

int main(void) {
    const struct vision_tasks_f32_gemm_kernels *avx2 = vision_tasks_f32_gemm_kernels_for_tier(1);
    const struct vision_tasks_f32_gemm_kernels *avx512 = vision_tasks_f32_gemm_kernels_for_tier(2);
    if (vision_tasks_f32_gemm_kernels_for_tier(0) || vision_tasks_f32_gemm_kernels_for_tier(4)) { puts("table for a tier without tiles"); return 1; }
    // The AVX-512 tile only where the CPU runs it (the AVX2 tiles are checked on any AVX2 host).
    __builtin_cpu_init();
    const int has_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    int runs = 0;
    for (size_t segments = 1; segments <= 9; segments += 4)
        for (size_t length = 1; length <= 70; length += 23) { check_pointers(avx2->pointers_6x16, segments, length, 16 + segments, 23 * segments + length); runs++; }
    for (size_t depth = 1; depth <= 70; depth += 23)
        for (size_t rows = 1; rows <= 8; rows++) {
            size_t lda = depth + (rows & 1) * 3, ldc = 40 + rows;
            if (rows <= 6) { check("6x16", avx2->tile_6x16, rows, depth, lda, 1, 16, ldc, 7 * rows + depth); check("6x8", avx2->tile_6x8, rows, depth, lda, 1, 8, ldc, 11 * rows + depth); runs += 2; }
            if (has_avx512) { check("8x32", avx512->tile_8x32, rows, depth, lda, 2, 32, ldc, 13 * rows + depth); runs++; }
            check("12x8", avx2->tile_12x8, 12, depth, lda, 1, 8, ldc, 17 * rows + depth); runs++;
            check("1x64", avx2->row_1x64, 1, depth, lda, 4, 64, 64, 19 * rows + depth); runs++;
        }
    printf("%d tile runs%s, %d elements differing from fmaf's\n", runs, has_avx512 ? "" : " (no AVX-512 here: not its 8 × 32 tile)", failures);
    return failures != 0;
}
