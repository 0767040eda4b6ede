/* SPDX-License-Identifier: BSD-3-Clause */
/* SSE2 bit shuffle kernels for every typesize up to B2_BITSTRIP_MAX_TS: strips of
 * elements are byte-(un)shuffled in L1 (simd_kernels.h), and each byte plane's
 * 8x8 bit blocks are transposed with three delta swaps per 64-bit lane, the
 * blocks being gathered from (or spread to) the 8 bit rows by byte interleaving. */
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

static inline __m128i bits8x8(__m128i x)
{
    __m128i t;
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 7)), _mm_set1_epi64x(0x00AA00AA00AA00AALL));
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 7)));
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 14)), _mm_set1_epi64x(0x0000CCCC0000CCCCLL));
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 14)));
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 28)), _mm_set1_epi64x(0x00000000F0F0F0F0LL));
    return _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 28)));
}

/* 16 groups per step: 16 bytes of each bit row, three rounds turn (row, group)
 * into (group, row), i.e. one 64-bit 8x8 bit block per group. */
static void bitrows_to_plane(const uint8_t *rows, size_t rowlen, int32_t ngroups, uint8_t *plane)
{
    int32_t g = 0;
    for (; g + 16 <= ngroups; g += 16) {
        __m128i v[8];
        B2_UNROLL
        for (int b = 0; b < 8; b++)
            v[b] = _mm_loadu_si128((const __m128i *)(rows + (size_t)b * rowlen + g));
        interleave128_round(v, 8);
        interleave128_round(v, 8);
        interleave128_round(v, 8);
        B2_UNROLL
        for (int m = 0; m < 8; m++)
            _mm_storeu_si128((__m128i *)(plane + (size_t)8 * g + 16 * m), bits8x8(v[m]));
    }
    b2_bitrows_to_plane_tail(rows, rowlen, g, ngroups, plane);
}

/* The inverse: four rounds turn (group, row) back into (row, group). */
static void plane_to_bitrows(const uint8_t *plane, int32_t ngroups, uint8_t *rows, size_t rowlen)
{
    int32_t g = 0;
    for (; g + 16 <= ngroups; g += 16) {
        __m128i v[8];
        B2_UNROLL
        for (int m = 0; m < 8; m++)
            v[m] = bits8x8(_mm_loadu_si128((const __m128i *)(plane + (size_t)8 * g + 16 * m)));
        interleave128_round(v, 8);
        interleave128_round(v, 8);
        interleave128_round(v, 8);
        interleave128_round(v, 8);
        B2_UNROLL
        for (int b = 0; b < 8; b++)
            _mm_storeu_si128((__m128i *)(rows + (size_t)b * rowlen + g), v[b]);
    }
    b2_plane_to_bitrows_tail(plane, g, ngroups, rows, rowlen);
}

static void bitshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitshuffle_strips(ts, e8, in, out, b2_shuffle_sse2, plane_to_bitrows);
}

static void bitunshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitunshuffle_strips(ts, e8, in, out, b2_unshuffle_sse2, bitrows_to_plane);
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_sse2, bitshuffle_any, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_sse2, bitunshuffle_any, b2_bitunshuffle_groups)
#endif
