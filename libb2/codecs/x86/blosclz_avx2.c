/* SPDX-License-Identifier: BSD-3-Clause */
/* BloscLZ encoder with an AVX2 match scan: 32 bytes a compare (byte equality
 * mask, first zero bit), then 16 with SSE2. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline size_t blz_mismatch(const uint8_t *in, size_t from, size_t bound, size_t dist)
{
    size_t p = from;
    while (p + 32 <= bound) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(in + p));
        __m256i b = _mm256_loadu_si256((const __m256i *)(in + p - dist));
        uint32_t eq = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b));
        if (eq != 0xFFFFFFFFu)
            return p + (size_t)__builtin_ctz(~eq);
        p += 32;
    }
    if (p + 16 <= bound) {
        __m128i a = _mm_loadu_si128((const __m128i *)(in + p));
        __m128i b = _mm_loadu_si128((const __m128i *)(in + p - dist));
        uint32_t eq = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b));
        if (eq != 0xFFFFu)
            return p + (size_t)__builtin_ctz(~eq);
        p += 16;
    }
    while (p < bound && in[p] == in[p - dist])
        p++;
    return p;
}

#define BLZ_COMPRESS b2_blosclz_compress_avx2
#include "blosclz_encode_template.h"
#endif
