// CVisionTasksMicroKernels' float depthwise row loops (3 × 3 and any square filter, strides 1-3, 8-40 channels, pixel
// strides wider than the channels as the blocked padded copy has them, every column range) on exact-size heap buffers
// under ASan and UBSan, against fmaf in the Swift loops' order (the 3 × 3 loop's two accumulators included), bit for
// bit. Built and run by tools/check-micro-kernels; DepthwiseMicroKernelTests has the Swift side.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "micro_kernels.h"

static float rnd(unsigned *s) { *s = *s * 1664525u + 1013904223u; return ((*s >> 8) / 16777216.0f) * 2 - 1; }
static float clampf(float v, float lo, float hi) { v = lo > v ? lo : v; return hi < v ? hi : v; }
static int failures = 0, runs = 0;

// Exact-size buffers: the input rows the windows of columns [first, end) read, weights, bias, the output row.
static void check(size_t taps, size_t stride, size_t first, size_t end, size_t channels, size_t pixel_extra, unsigned seed) {
    const size_t pixel = channels + pixel_extra, width = (end - 1) * stride + taps, row_step = width * pixel;
    float *in = malloc(sizeof(float) * (taps - 1) * row_step + sizeof(float) * ((width - 1) * pixel + channels));
    float *w = malloc(sizeof(float) * taps * taps * channels), *b = malloc(sizeof(float) * channels);
    float *out = malloc(sizeof(float) * ((end - 1) * channels + channels));
    for (size_t i = 0; i < (taps - 1) * row_step + (width - 1) * pixel + channels; i++) in[i] = rnd(&seed);
    for (size_t i = 0; i < taps * taps * channels; i++) w[i] = rnd(&seed);
    for (size_t i = 0; i < channels; i++) b[i] = rnd(&seed);
    struct vision_tasks_f32_dwconv_row r = {in, w, b, out, first, end, taps, stride, row_step, pixel, channels, channels, 0.0f, 6.0f};
    const struct vision_tasks_f32_dwconv_kernels *k = vision_tasks_f32_dwconv_kernels_for_tier(1);
    if (taps == 3 && stride <= 2) k->square_3x3(&r); else k->square(&r);
    runs++;
    for (size_t ox = first; ox < end; ox++)
        for (size_t c = 0; c < channels; c++) {
            const float *p = in + ox * stride * pixel + c;
            float v;
            if (taps == 3 && stride <= 2) {
#define I(ty, tx) p[(ty) * row_step + (tx) * pixel]
#define W(ty, tx) w[((ty) * 3 + (tx)) * channels + c]
                float a0 = b[c], a1 = I(1, 0) * W(1, 0);
                a0 = fmaf(I(0, 0), W(0, 0), a0); a1 = fmaf(I(1, 1), W(1, 1), a1);
                a0 = fmaf(I(0, 1), W(0, 1), a0); a1 = fmaf(I(1, 2), W(1, 2), a1);
                a0 = fmaf(I(0, 2), W(0, 2), a0); a1 = fmaf(I(2, 0), W(2, 0), a1);
                a0 = fmaf(I(2, 1), W(2, 1), a0); a1 = fmaf(I(2, 2), W(2, 2), a1);
                v = a0 + a1;
            } else {
                v = b[c];
                for (size_t ty = 0; ty < taps; ty++)
                    for (size_t tx = 0; tx < taps; tx++) v = fmaf(p[ty * row_step + tx * pixel], w[(ty * taps + tx) * channels + c], v);
            }
            v = clampf(v, 0.0f, 6.0f);
            if (memcmp(&v, &out[ox * channels + c], 4) != 0 && failures++ < 5)
                printf("%zux%zu s%zu ch%zu [%zu][%zu]: %g vs %g\n", taps, taps, stride, channels, ox, c, out[ox * channels + c], v);
        }
    free(in), free(w), free(b), free(out);
}

int main(void) {
    const size_t channel_counts[] = {8, 9, 15, 16, 20, 24, 33, 40};
    for (size_t taps = 3; taps <= 5; taps += 2)
        for (size_t stride = 1; stride <= 3; stride++)
            for (size_t i = 0; i < sizeof channel_counts / sizeof *channel_counts; i++)
                for (size_t end = 1; end <= 9; end += 2)
                    for (size_t first = 0; first < end; first += 3) check(taps, stride, first, end, channel_counts[i], i & 1 ? 8 : 0, (unsigned)(taps * 1000 + stride * 100 + i * 10 + end + first));
    printf("%d row runs, %d elements differing from the fmaf reference\n", runs, failures);
    return failures != 0;
}
