// The quantized depthwise convolution's interior loop of the eight-channel tiers (QuantizedDepthwiseConv2DKernel's
// pairedPixels in Swift): 16 channels at a time, each tap's inputs widened to int16, two taps interleaved into pairs
// (`vpunpcklwd`/`vpunpckhwd`: channels 0–3 and 8–11 in the low accumulator, 4–7 and 12–15 in the high one, as
// `TapPairs`) and multiplied and added by one `vpmaddwd` per 8 channels against weights packed the same way. Exact
// int32 sums; the requantizing store is q_requantize.h's, and the saturating packs of the paired layout give the
// channels back in order as the Swift `narrowPairedToBytes` does.
#if defined(__x86_64__)
#include "q_requantize.h"

static inline VT_Q_AVX2 __m256i widen16(const unsigned char *p, int input_signed) {
    const __m128i bytes = _mm_loadu_si128((const __m128i *)p);
    return input_signed ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
}

VT_Q_AVX2 void vision_tasks_q16_dwconv_paired__avx2(const struct vision_tasks_q_dwconv_paired_row *row) {
    const struct vision_tasks_q_requantization *q = row->q;
    const size_t taps = row->taps, full_pairs = taps / 2;
    const __m256i bias_low = _mm256_loadu_si256((const __m256i *)row->bias);
    const __m256i bias_high = _mm256_loadu_si256((const __m256i *)(row->bias + 8));
    const __m256 scale_low = _mm256_loadu_ps(row->scales), scale_high = _mm256_loadu_ps(row->scales + 8);
    const unsigned char *pixel = row->origin;
    unsigned char *out = row->out;
    const int16_t *weights = row->weights;
    for (size_t i = 0; i < row->count; i++) {
        __m256i low = bias_low, high = bias_high;
        for (size_t pair = 0; pair < full_pairs; pair++) {
            const __m256i first = widen16(pixel + row->offsets[2 * pair], row->input_signed);
            const __m256i second = widen16(pixel + row->offsets[2 * pair + 1], row->input_signed);
            const int16_t *w = weights + pair * 32;
            low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(first, second), _mm256_loadu_si256((const __m256i *)w)));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(first, second), _mm256_loadu_si256((const __m256i *)(w + 16))));
        }
        if (taps % 2 == 1) {
            const __m256i first = widen16(pixel + row->offsets[taps - 1], row->input_signed), zero = _mm256_setzero_si256();
            const int16_t *w = weights + full_pairs * 32;
            low = _mm256_add_epi32(low, _mm256_madd_epi16(_mm256_unpacklo_epi16(first, zero), _mm256_loadu_si256((const __m256i *)w)));
            high = _mm256_add_epi32(high, _mm256_madd_epi16(_mm256_unpackhi_epi16(first, zero), _mm256_loadu_si256((const __m256i *)(w + 16))));
        }
        // The in-lane pack of (0–3, 8–11) with (4–7, 12–15) is channels 0–7 | 8–15 as int16: no permute.
        const __m256i words = _mm256_packs_epi32(vt_q_requantize8(low, scale_low, q), vt_q_requantize8(high, scale_high, q));
        const __m128i first = _mm256_castsi256_si128(words), second = _mm256_extracti128_si256(words, 1);
        _mm_storeu_si128((__m128i *)out, q->output_signed ? _mm_packs_epi16(first, second) : _mm_packus_epi16(first, second));
        pixel += row->column_step;
        out += row->out_step;
    }
}

#endif
