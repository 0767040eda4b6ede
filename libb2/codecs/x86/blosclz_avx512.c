/* SPDX-License-Identifier: BSD-3-Clause */
/* BloscLZ encoder with an AVX-512 BW match scan: 64 bytes a compare into a
 * mask register, first zero bit; the last bytes before bound through masked
 * loads (which do not fault past the mask), so no byte loop. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline size_t blz_mismatch(const uint8_t *in, size_t from, size_t bound, size_t dist)
{
    size_t p = from;
    while (p + 64 <= bound) {
        __m512i a = _mm512_loadu_si512((const void *)(in + p));
        __m512i b = _mm512_loadu_si512((const void *)(in + p - dist));
        uint64_t ne = (uint64_t)_mm512_cmpneq_epi8_mask(a, b);
        if (ne)
            return p + (size_t)__builtin_ctzll(ne);
        p += 64;
    }
    if (p < bound) {
        __mmask64 m = (1ull << (bound - p)) - 1; /* bound - p < 64 here */
        __m512i a = _mm512_maskz_loadu_epi8(m, in + p);
        __m512i b = _mm512_maskz_loadu_epi8(m, in + p - dist);
        uint64_t ne = (uint64_t)_mm512_mask_cmpneq_epi8_mask(m, a, b);
        return ne ? p + (size_t)__builtin_ctzll(ne) : bound;
    }
    return p;
}

#define BLZ_COMPRESS b2_blosclz_compress_avx512
#include "blosclz_encode_template.h"
#endif
