/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX2 bit shuffle kernels: the scheme of bitshuffle_sse2.c with 32 groups of 8
 * elements per step. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* The byte interleaving works within 128-bit lanes, so lane L holds groups
 * 16L..16L+15 throughout and the lanes are recombined at the plane side. */

static inline __m256i bits8x8(__m256i x)
{
    __m256i t;
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 7)),
                         _mm256_set1_epi64x(0x00AA00AA00AA00AALL));
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 7)));
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 14)),
                         _mm256_set1_epi64x(0x0000CCCC0000CCCCLL));
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 14)));
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 28)),
                         _mm256_set1_epi64x(0x00000000F0F0F0F0LL));
    return _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 28)));
}

static void bitrows_to_plane(const uint8_t *rows, size_t rowlen, int32_t ngroups, uint8_t *plane)
{
    int32_t g = 0;
    for (; g + 32 <= ngroups; g += 32) {
        __m256i v[8];
        B2_UNROLL
        for (int b = 0; b < 8; b++)
            v[b] = _mm256_loadu_si256((const __m256i *)(rows + (size_t)b * rowlen + g));
        interleave256_round(v, 8);
        interleave256_round(v, 8);
        interleave256_round(v, 8);
        /* v[m] lane L: groups 16L+2m, 16L+2m+1 */
        uint8_t *p = plane + (size_t)8 * g;
        B2_UNROLL
        for (int m = 0; m < 8; m += 2) {
            __m256i a = bits8x8(v[m]), b = bits8x8(v[m + 1]);
            _mm256_storeu_si256((__m256i *)(p + 16 * m), _mm256_permute2x128_si256(a, b, 0x20));
            _mm256_storeu_si256((__m256i *)(p + 128 + 16 * m), _mm256_permute2x128_si256(a, b, 0x31));
        }
    }
    b2_bitrows_to_plane_tail(rows, rowlen, g, ngroups, plane);
}

static void plane_to_bitrows(const uint8_t *plane, int32_t ngroups, uint8_t *rows, size_t rowlen)
{
    int32_t g = 0;
    for (; g + 32 <= ngroups; g += 32) {
        const uint8_t *p = plane + (size_t)8 * g;
        __m256i v[8];
        B2_UNROLL
        for (int m = 0; m < 8; m++) {
            __m128i lo = _mm_loadu_si128((const __m128i *)(p + 16 * m));
            __m128i hi = _mm_loadu_si128((const __m128i *)(p + 128 + 16 * m));
            v[m] = bits8x8(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1));
        }
        interleave256_round(v, 8);
        interleave256_round(v, 8);
        interleave256_round(v, 8);
        interleave256_round(v, 8);
        B2_UNROLL
        for (int b = 0; b < 8; b++)
            _mm256_storeu_si256((__m256i *)(rows + (size_t)b * rowlen + g), v[b]);
    }
    b2_plane_to_bitrows_tail(plane, g, ngroups, rows, rowlen);
}

static void bitshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitshuffle_strips(ts, e8, in, out, b2_shuffle_avx2, plane_to_bitrows);
}

static void bitunshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitunshuffle_strips(ts, e8, in, out, b2_unshuffle_avx2, bitrows_to_plane);
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_avx2, bitshuffle_any, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_avx2, bitunshuffle_any, b2_bitunshuffle_groups)
#endif
