// CVisionTasksMicroKernels' quantized GEMM tiles (the int16-pair 4 × 16 and 8 × 8 tiles of the AVX2 and AVX-512 tiers,
// the VNNI tier's byte-quad 12 × 16, 4 × 16 and 1 × 16 tiles and its row sum) and the paired depthwise loop (3 × 3 and
// 5 × 5 windows, strides 1 and 2, uint8 and int8 inputs, groups inside wider maps) on exact-size heap buffers, so that
// AddressSanitizer sees any read or write past A's rows, the panel, the bias, scales and factors or C's `width` bytes,
// against a scalar reference: the exact sum in int64 wrapped to int32 as the tiles' wrapping int32 is, then Engine's
// `Requantization` (float product, clamp, round half to even, zero point, saturation), byte for byte. Depths that are
// not a multiple of the tile's group are the caller's padding (zeros), as Engine's packing leaves them. Built and run
// by tools/check-micro-kernels under ASan and UBSan; QuantizedMicroKernelTests has the Swift side.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "micro_kernels.h"

static unsigned next(unsigned *s) { *s = *s * 1664525u + 1013904223u; return *s >> 8; }
static int failures = 0, runs = 0;

static uint8_t requantize(int32_t sum, float scale, const struct vision_tasks_q_requantization *q) {
    float v = (float)sum * scale;
    v = q->lower > v ? q->lower : v;
    v = q->upper < v ? q->upper : v;
    int32_t r = (int32_t)nearbyintf(v) + q->zero_point;
    const int32_t lo = q->output_signed ? -128 : 0, hi = q->output_signed ? 127 : 255;
    r = r < lo ? lo : r > hi ? hi : r;
    return (uint8_t)r;
}

static void compare(const char *name, size_t rows, size_t depth, size_t width, const uint8_t *c, size_t ldc, const uint8_t *expected) {
    runs++;
    for (size_t r = 0; r < rows; r++)
        for (size_t n = 0; n < width; n++)
            if (c[r * ldc + n] != expected[r * 16 + n]) {
                if (failures++ < 5) printf("%s %zu×%zu width %zu: [%zu][%zu] %u vs %u\n", name, rows, depth, width, r, n, c[r * ldc + n], expected[r * 16 + n]);
            }
}

static struct vision_tasks_q_requantization params(unsigned *seed) {
    struct vision_tasks_q_requantization q;
    q.output_signed = (int32_t)(next(seed) & 1);
    q.zero_point = q.output_signed ? (int32_t)(next(seed) % 256) - 128 : (int32_t)(next(seed) % 256);
    const int32_t lo = q.output_signed ? -128 : 0, hi = q.output_signed ? 127 : 255;
    // A fused activation's narrower bounds half of the time.
    const int32_t lower = (next(seed) & 1) ? lo : lo + 20, upper = (next(seed) & 1) ? hi : hi - 30;
    q.lower = (float)(lower - q.zero_point);
    q.upper = (float)(upper - q.zero_point);
    return q;
}

// An int16-pair tile: `tile_rows` is the tile's own row count, `rows` ≤ it; `depth` even (a pad column of zeros when
// the layer's depth is odd: `odd`).
static void check_pairs(const char *name, vision_tasks_q16_gemm_tile tile, size_t rows, size_t depth, int odd, size_t width, unsigned seed) {
    const size_t lda = depth + (rows & 1) * 2, ldc = 16 + (rows & 2) * 3;
    int16_t *a = malloc(sizeof(int16_t) * ((rows - 1) * lda + depth));
    int16_t *w = malloc(sizeof(int16_t) * depth * 16);
    int32_t *bias = malloc(sizeof(int32_t) * 16);
    float *scales = malloc(sizeof(float) * 16);
    uint8_t *c = malloc((rows - 1) * ldc + width);
    uint8_t expected[12 * 16];
    for (size_t i = 0; i < (rows - 1) * lda + depth; i++) a[i] = (int16_t)((int)(next(&seed) % 511) - 255);
    for (size_t r = 0; r < rows && odd; r++) a[r * lda + depth - 1] = 0;
    for (size_t i = 0; i < depth * 16; i++) w[i] = (int16_t)((int)(next(&seed) % 511) - 255);
    for (size_t n = 0; n < 16; n++) {
        bias[n] = (int32_t)(next(&seed) % 40001) - 20000;
        scales[n] = (float)(20 + next(&seed) % 180) / (255.0f * 255.0f * sqrtf((float)depth));
    }
    const struct vision_tasks_q_requantization q = params(&seed);
    tile(rows, depth, a, lda, w, bias, scales, &q, c, ldc, width);
    for (size_t r = 0; r < rows; r++)
        for (size_t n = 0; n < width; n++) {
            int64_t sum = bias[n];
            // Panel layout: per pair of depth steps, 16 columns × 2.
            for (size_t k = 0; k < depth; k++) sum += (int64_t)a[r * lda + k] * w[(k / 2) * 32 + n * 2 + k % 2];
            expected[r * 16 + n] = requantize((int32_t)(uint32_t)sum, scales[n], &q);
        }
    compare(name, rows, depth, width, c, ldc, expected);
    free(a), free(w), free(bias), free(scales), free(c);
}

static void check_quads(const char *name, vision_tasks_q8_dot_gemm_tile tile, size_t rows, size_t depth, size_t pad, size_t width,
                        int with_row_sums, int32_t (*row_sum)(const uint8_t *, size_t), unsigned seed) {
    const size_t lda = depth + (rows & 1) * 4, ldc = 16 + (rows & 2) * 3;
    uint8_t *a = malloc((rows - 1) * lda + depth);
    int8_t *w = malloc(depth * 16);
    int32_t *bias = malloc(sizeof(int32_t) * 16), *factors = malloc(sizeof(int32_t) * 16), *sums = malloc(sizeof(int32_t) * rows);
    float *scales = malloc(sizeof(float) * 16);
    uint8_t *c = malloc((rows - 1) * ldc + width);
    uint8_t expected[12 * 16];
    for (size_t i = 0; i < (rows - 1) * lda + depth; i++) a[i] = (uint8_t)next(&seed);
    // The last `pad` depth steps are the packing's zeros.
    for (size_t r = 0; r < rows; r++) memset(a + r * lda + depth - pad, 0, pad);
    for (size_t i = 0; i < depth * 16; i++) w[i] = (int8_t)(uint8_t)next(&seed);
    for (size_t n = 0; n < 16; n++) {
        bias[n] = (int32_t)(next(&seed) % 400001) - 200000;
        factors[n] = (int32_t)(next(&seed) % 256) - 128;
        scales[n] = (float)(20 + next(&seed) % 180) / (255.0f * 128.0f * sqrtf((float)depth) * (with_row_sums ? 4.0f : 1.0f));
    }
    for (size_t r = 0; r < rows; r++) {
        uint32_t s = 0;
        for (size_t k = 0; k < depth; k++) s += a[r * lda + k];
        sums[r] = (int32_t)s;
        if (row_sum(a + r * lda, depth) != (int32_t)s && failures++ < 5) printf("row sum of %zu bytes: %d vs %u\n", depth, row_sum(a + r * lda, depth), s);
    }
    const struct vision_tasks_q_requantization q = params(&seed);
    tile(rows, depth, a, lda, w, bias, scales, with_row_sums ? factors : NULL, with_row_sums ? sums : NULL, &q, c, ldc, width);
    for (size_t r = 0; r < rows; r++)
        for (size_t n = 0; n < width; n++) {
            int64_t sum = bias[n] + (with_row_sums ? (int64_t)factors[n] * sums[r] : 0);
            // Panel layout: per quad of depth steps, 16 columns × 4.
            for (size_t k = 0; k < depth; k++) sum += (int64_t)a[r * lda + k] * w[(k / 4) * 64 + n * 4 + k % 4];
            expected[r * 16 + n] = requantize((int32_t)(uint32_t)sum, scales[n], &q);
        }
    compare(name, rows, depth, width, c, ldc, expected);
    free(a), free(w), free(bias), free(factors), free(sums), free(scales), free(c);
}

// The paired depthwise loop: `count` pixels of a 3 × 3 or 5 × 5 window, stride 1 or 2, one group of 16 channels at
// channel `group` of `channels`, on exact-size buffers (the input up to the last byte the last window reads).
static void check_dwconv(const struct vision_tasks_q_dwconv_kernels *k, size_t size, size_t stride, size_t channels, size_t group,
                         size_t count, int input_signed, unsigned seed) {
    static const int order[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
    const size_t taps = size * size, pairs = (taps + 1) / 2, width = (count - 1) * stride + size + (seed & 1);
    const size_t row_step = width * channels;
    ptrdiff_t offsets[25];
    for (size_t t = 0; t < taps; t++) offsets[t] = (ptrdiff_t)((t / size) * row_step + (t % size) * channels);
    const size_t in_bytes = (size_t)offsets[taps - 1] + (count - 1) * stride * channels + group + 16;
    const size_t out_bytes = (count - 1) * channels + group + 16;
    uint8_t *in = malloc(in_bytes), *out = malloc(out_bytes);
    int16_t *w = malloc(sizeof(int16_t) * pairs * 32), natural[25][16];
    int32_t *bias = malloc(sizeof(int32_t) * 16), natural_bias[16];
    float *scales = malloc(sizeof(float) * 16), natural_scales[16];
    for (size_t i = 0; i < in_bytes; i++) in[i] = (uint8_t)next(&seed);
    for (size_t t = 0; t < taps; t++)
        for (size_t j = 0; j < 16; j++) natural[t][j] = (int16_t)((int)(next(&seed) % 511) - 255);
    for (size_t j = 0; j < 16; j++) {
        natural_bias[j] = (int32_t)(next(&seed) % 200001) - 100000;
        natural_scales[j] = (float)(20 + next(&seed) % 180) / (255.0f * 255.0f * (float)size);
    }
    for (size_t p = 0; p < pairs; p++)
        for (size_t j = 0; j < 16; j++) {
            w[p * 32 + 2 * j] = natural[2 * p][order[j]];
            w[p * 32 + 2 * j + 1] = 2 * p + 1 < taps ? natural[2 * p + 1][order[j]] : 0;
        }
    for (size_t j = 0; j < 16; j++) bias[j] = natural_bias[order[j]], scales[j] = natural_scales[order[j]];
    const struct vision_tasks_q_requantization q = params(&seed);
    const struct vision_tasks_q_dwconv_paired_row row = {in + group, offsets, taps, count, stride * channels, channels, w, bias, scales,
                                                         out + group, input_signed, &q};
    k->paired(&row);
    runs++;
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < 16; j++) {
            int64_t sum = natural_bias[j];
            for (size_t t = 0; t < taps; t++) {
                const uint8_t byte = in[group + i * stride * channels + (size_t)offsets[t] + j];
                sum += (int64_t)(input_signed ? (int8_t)byte : byte) * natural[t][j];
            }
            const uint8_t expected = requantize((int32_t)sum, natural_scales[j], &q);
            if (out[group + i * channels + j] != expected && failures++ < 5)
                printf("dwconv %zux%zu stride %zu pixel %zu channel %zu: %u vs %u\n", size, size, stride, i, j, out[group + i * channels + j], expected);
        }
    free(in), free(out), free(w), free(bias), free(scales);
}

int main(void) {
    if (vision_tasks_q_gemm_kernels_for_tier(0) || vision_tasks_q_gemm_kernels_for_tier(4)) { puts("table for a tier without tiles"); return 1; }
    const struct vision_tasks_q_gemm_kernels *avx2 = vision_tasks_q_gemm_kernels_for_tier(1);
    const struct vision_tasks_q_gemm_kernels *vnni = vision_tasks_q_gemm_kernels_for_tier(3);
    if (avx2->quads_12x16 || !vnni->quads_12x16 || !vnni->row_sum) { puts("quad tiles outside the VNNI tier, or missing there"); return 1; }
    for (size_t depth = 2; depth <= 300; depth += 37 * 2 - 2)
        for (int odd = 0; odd <= 1; odd++)
            for (size_t rows = 1; rows <= 8; rows++) {
                const unsigned seed = (unsigned)(depth * 131 + rows * 7 + (size_t)odd);
                if (rows <= 4) {
                    check_pairs("pairs 4x16", avx2->pairs_4x16, rows, depth, odd, 16, seed);
                    check_pairs("pairs 4x16", avx2->pairs_4x16, rows, depth, odd, 1 + seed % 15, seed + 1);
                }
                check_pairs("pairs 8x8", avx2->pairs_8x8, rows, depth, odd, 8, seed + 2);
                check_pairs("pairs 8x8", avx2->pairs_8x8, rows, depth, odd, 1 + seed % 7, seed + 3);
            }
    for (size_t depth = 4; depth <= 1300; depth += depth < 40 ? 4 : 252)
        for (size_t pad = 0; pad < 4; pad += 3)
            for (size_t rows = 1; rows <= 12; rows++)
                for (int sums = 0; sums <= 1; sums++) {
                    const unsigned seed = (unsigned)(depth * 17 + rows * 3 + pad + (size_t)sums * 1000);
                    vision_tasks_q8_dot_gemm_tile tile = rows > 4 ? vnni->quads_12x16 : rows > 1 ? vnni->quads_4x16 : vnni->quads_1x16;
                    const char *name = rows > 4 ? "quads 12x16" : rows > 1 ? "quads 4x16" : "quads 1x16";
                    check_quads(name, tile, rows, depth, pad, 16, sums, vnni->row_sum, seed);
                    check_quads(name, tile, rows, depth, pad, 1 + seed % 15, sums, vnni->row_sum, seed + 5);
                }
    // Row sums of every length up to two 64-byte blocks and a tail.
    for (size_t count = 0; count <= 200; count++) {
        unsigned seed = (unsigned)count;
        uint8_t *row = malloc(count ? count : 1);
        uint32_t s = 0;
        for (size_t i = 0; i < count; i++) s += row[i] = (uint8_t)next(&seed);
        if (vnni->row_sum(row, count) != (int32_t)s && failures++ < 5) printf("row sum of %zu bytes\n", count);
        free(row);
    }
    const struct vision_tasks_q_dwconv_kernels *dwconv = vision_tasks_q_dwconv_kernels_for_tier(1);
    if (!dwconv || vision_tasks_q_dwconv_kernels_for_tier(0)) { puts("depthwise table missing, or present for the portable tier"); return 1; }
    for (size_t size = 3; size <= 5; size += 2)
        for (size_t stride = 1; stride <= 2; stride++)
            for (size_t count = 1; count <= 9; count += 4)
                for (int input_signed = 0; input_signed <= 1; input_signed++) {
                    const unsigned seed = (unsigned)(size * 1000 + stride * 100 + count * 10 + (size_t)input_signed);
                    check_dwconv(dwconv, size, stride, 16, 0, count, input_signed, seed);
                    check_dwconv(dwconv, size, stride, 24, 8, count, input_signed, seed + 1);
                    check_dwconv(dwconv, size, stride, 48, 16, count, input_signed, seed + 2);
                }
    printf("%d tile and row runs, %d bytes differing from the scalar reference\n", runs, failures);
    return failures != 0;
}
