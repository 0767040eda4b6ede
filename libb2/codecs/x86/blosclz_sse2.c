/* SPDX-License-Identifier: BSD-3-Clause */
/* BloscLZ encoder with an SSE2 match scan: 16 bytes a compare (byte equality
 * mask, first zero bit), 32 a step while they fit. */
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint32_t blz_eq16(const uint8_t *a, const uint8_t *b)
{
    return (uint32_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)a), _mm_loadu_si128((const __m128i *)b)));
}

static inline size_t blz_mismatch(const uint8_t *in, size_t from, size_t bound, size_t dist)
{
    size_t p = from;
    while (p + 32 <= bound) {
        uint32_t eq = blz_eq16(in + p, in + p - dist) | blz_eq16(in + p + 16, in + p + 16 - dist) << 16;
        if (eq != 0xFFFFFFFFu)
            return p + (size_t)__builtin_ctz(~eq);
        p += 32;
    }
    if (p + 16 <= bound) {
        uint32_t eq = blz_eq16(in + p, in + p - dist);
        if (eq != 0xFFFFu)
            return p + (size_t)__builtin_ctz(~eq);
        p += 16;
    }
    while (p < bound && in[p] == in[p - dist])
        p++;
    return p;
}

#define BLZ_COMPRESS b2_blosclz_compress_sse2
#include "blosclz_encode_template.h"
#endif
