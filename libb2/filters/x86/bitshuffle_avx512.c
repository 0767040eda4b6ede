/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX-512 (F/BW/VL) bit shuffle kernels: the strips of simd_kernels.h, with the
 * byte (un)shuffle of a strip done by the AVX-512 kernels and each byte
 * plane's bits moved by mask registers. For 8 groups
 * (64 plane bytes), bit b of every byte is one 64-bit mask (vptestmb), whose
 * little-endian bytes are exactly the 8 bytes of bit row b; the inverse adds
 * 1 << b to the bytes a row's mask selects. No 8x8 bit-matrix arithmetic. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

static void plane_to_bitrows(const uint8_t *plane, int32_t ngroups, uint8_t *rows, size_t rowlen)
{
    int32_t g = 0;
    for (; g + 8 <= ngroups; g += 8) {
        __m512i v = _mm512_loadu_si512((const void *)(plane + (size_t)8 * g));
        B2_UNROLL
        for (int b = 0; b < 8; b++) {
            uint64_t row = _cvtmask64_u64(_mm512_test_epi8_mask(v, _mm512_set1_epi8((char)(1 << b))));
            memcpy(rows + (size_t)b * rowlen + g, &row, 8);
        }
    }
    b2_plane_to_bitrows_tail(plane, g, ngroups, rows, rowlen);
}

static void bitrows_to_plane(const uint8_t *rows, size_t rowlen, int32_t ngroups, uint8_t *plane)
{
    int32_t g = 0;
    for (; g + 8 <= ngroups; g += 8) {
        __m512i v = _mm512_setzero_si512();
        B2_UNROLL
        for (int b = 0; b < 8; b++) {
            uint64_t row;
            memcpy(&row, rows + (size_t)b * rowlen + g, 8);
            v = _mm512_mask_add_epi8(v, _cvtu64_mask64(row), v, _mm512_set1_epi8((char)(1 << b)));
        }
        _mm512_storeu_si512((void *)(plane + (size_t)8 * g), v);
    }
    b2_bitrows_to_plane_tail(rows, rowlen, g, ngroups, plane);
}

static void bitshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitshuffle_strips(ts, e8, in, out, b2_shuffle_strip_avx512, plane_to_bitrows);
}

static void bitunshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitunshuffle_strips(ts, e8, in, out, b2_unshuffle_avx512, bitrows_to_plane);
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_avx512, bitshuffle_any, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_avx512, bitunshuffle_any, b2_bitunshuffle_groups)
#endif
