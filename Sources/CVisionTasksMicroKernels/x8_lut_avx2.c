// A byte table applied to a run of bytes (Engine's ByteLookup in Swift, the quantized one-input functions): 32 bytes
// a step through `vpshufb` on the sixteen XORed 16-byte slices ByteLookup makes (each repeated in both halves of 32
// bytes), the index walked down by 16 per slice, wrapping for the first eight subtractions and saturating at -128 for
// the other seven, the lookups XORed; the last bytes one by one from the plain table. The same instructions as the
// tuned Swift tier's loop, so the same bytes (every byte is its table entry either way).
#if defined(__x86_64__)
#include <immintrin.h>
#include "micro_kernels.h"

__attribute__((target("avx2"))) void vision_tasks_x8_lut__avx2(size_t count, const uint8_t *input, uint8_t *output,
                                                                const uint8_t *slices, const uint8_t *table) {
    __m256i s[16];
    for (int k = 0; k < 16; k++) s[k] = _mm256_loadu_si256((const __m256i *)(slices + 32 * k));
    const __m256i sixteen = _mm256_set1_epi8(16);
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i index = _mm256_loadu_si256((const __m256i *)(input + i));
        __m256i y = _mm256_shuffle_epi8(s[0], index);
        for (int k = 1; k <= 8; k++) {
            index = _mm256_sub_epi8(index, sixteen);
            y = _mm256_xor_si256(y, _mm256_shuffle_epi8(s[k], index));
        }
        for (int k = 9; k < 16; k++) {
            index = _mm256_subs_epi8(index, sixteen);
            y = _mm256_xor_si256(y, _mm256_shuffle_epi8(s[k], index));
        }
        _mm256_storeu_si256((__m256i *)(output + i), y);
    }
    for (; i < count; i++) output[i] = table[input[i]];
}
#endif
