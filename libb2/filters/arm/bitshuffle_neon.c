/* SPDX-License-Identifier: BSD-3-Clause */
/* NEON bit shuffle kernels for every typesize up to B2_BITSTRIP_MAX_TS: strips of
 * elements are byte-(un)shuffled in L1 by the NEON byte kernels (simd_kernels.h),
 * and each byte plane's 8x8 bit blocks are transposed with three delta swaps per
 * 64-bit lane, the blocks being gathered from (or spread to) the 8 bit rows by
 * rounds of byte zips. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* One delta swap of b2_transpose8x8 in each 64-bit lane. */
#define DELTA_SWAP(x, sh, mask)                                                          \
    do {                                                                                 \
        uint64x2_t t_ = vandq_u64(veorq_u64(x, vshrq_n_u64(x, sh)), vdupq_n_u64(mask));  \
        x = veorq_u64(x, veorq_u64(t_, vshlq_n_u64(t_, sh)));                            \
    } while (0)

static inline uint8x16_t bits8x8(uint8x16_t v)
{
    uint64x2_t x = vreinterpretq_u64_u8(v);
    DELTA_SWAP(x, 7, 0x00AA00AA00AA00AAull);
    DELTA_SWAP(x, 14, 0x0000CCCC0000CCCCull);
    DELTA_SWAP(x, 28, 0x00000000F0F0F0F0ull);
    return vreinterpretq_u8_u64(x);
}

/* Zip vectors m and m + 4 of 8: over an index of 3 bits of vector and 4 of byte
 * it rotates the index left by one bit, so three rounds turn (row, group) into
 * (group, row) and four turn it back. */
ALWAYS_INLINE void zip_round8(uint8x16_t *v)
{
    uint8x16_t t[8];
    B2_UNROLL
    for (int m = 0; m < 4; m++) {
        t[2 * m] = vzip1q_u8(v[m], v[m + 4]);
        t[2 * m + 1] = vzip2q_u8(v[m], v[m + 4]);
    }
    B2_UNROLL
    for (int m = 0; m < 8; m++)
        v[m] = t[m];
}

/* 16 groups per step: 16 bytes of each bit row become one 64-bit 8x8 bit block
 * per group. */
static void bitrows_to_plane(const uint8_t *rows, size_t rowlen, int32_t ngroups, uint8_t *plane)
{
    int32_t g = 0;
    for (; g + 16 <= ngroups; g += 16) {
        uint8x16_t v[8];
        B2_UNROLL
        for (int b = 0; b < 8; b++)
            v[b] = vld1q_u8(rows + (size_t)b * rowlen + g);
        zip_round8(v);
        zip_round8(v);
        zip_round8(v);
        B2_UNROLL
        for (int m = 0; m < 8; m++)
            vst1q_u8(plane + (size_t)8 * g + 16 * m, bits8x8(v[m]));
    }
    b2_bitrows_to_plane_tail(rows, rowlen, g, ngroups, plane);
}

static void plane_to_bitrows(const uint8_t *plane, int32_t ngroups, uint8_t *rows, size_t rowlen)
{
    int32_t g = 0;
    for (; g + 16 <= ngroups; g += 16) {
        uint8x16_t v[8];
        B2_UNROLL
        for (int m = 0; m < 8; m++)
            v[m] = bits8x8(vld1q_u8(plane + (size_t)8 * g + 16 * m));
        zip_round8(v);
        zip_round8(v);
        zip_round8(v);
        zip_round8(v);
        B2_UNROLL
        for (int b = 0; b < 8; b++)
            vst1q_u8(rows + (size_t)b * rowlen + g, v[b]);
    }
    b2_plane_to_bitrows_tail(plane, g, ngroups, rows, rowlen);
}

static void bitshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitshuffle_strips(ts, e8, in, out, b2_shuffle_neon, plane_to_bitrows);
}

static void bitunshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitunshuffle_strips(ts, e8, in, out, b2_unshuffle_neon, bitrows_to_plane);
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_neon, bitshuffle_any, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_neon, bitunshuffle_any, b2_bitunshuffle_groups)
#endif
