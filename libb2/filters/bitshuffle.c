/* SPDX-License-Identifier: BSD-3-Clause */
/* Bit shuffle (doc/format/filters.md §3): the portable kernel (kernel_table.c dispatches).
 * e = n / ts elements, e8 = e rounded down to a multiple of 8; the first e8*ts
 * bytes become 8*ts rows of e8/8 bytes (row 8j+b = bit b of byte j of every
 * element, element 0 in the LSB of the row's first byte); the rest is copied. */
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

void b2_bitshuffle_groups(int32_t ts, int32_t e8, int32_t k0, int32_t k1,
                          const uint8_t *in, uint8_t *out)
{
    size_t rowlen = (size_t)e8 / 8;
    for (int32_t k = k0; k < k1; k++) {
        const uint8_t *g = in + (size_t)k * 8 * ts;
        for (int32_t j = 0; j < ts; j++) {
            uint64_t x = 0;
            for (int m = 0; m < 8; m++)  /* byte j of the group's 8 elements */
                x |= (uint64_t)g[(size_t)m * ts + j] << (8 * m);
            x = b2_transpose8x8(x);
            uint8_t *row = out + (size_t)8 * j * rowlen + k;
            for (int b = 0; b < 8; b++)
                row[(size_t)b * rowlen] = (uint8_t)(x >> (8 * b));
        }
    }
}

void b2_bitunshuffle_groups(int32_t ts, int32_t e8, int32_t k0, int32_t k1,
                            const uint8_t *in, uint8_t *out)
{
    size_t rowlen = (size_t)e8 / 8;
    for (int32_t k = k0; k < k1; k++) {
        uint8_t *g = out + (size_t)k * 8 * ts;
        for (int32_t j = 0; j < ts; j++) {
            const uint8_t *row = in + (size_t)8 * j * rowlen + k;
            uint64_t x = 0;
            for (int b = 0; b < 8; b++)
                x |= (uint64_t)row[(size_t)b * rowlen] << (8 * b);
            x = b2_transpose8x8(x);
            for (int m = 0; m < 8; m++)
                g[(size_t)m * ts + j] = (uint8_t)(x >> (8 * m));
        }
    }
}

/* Number of bytes that take part in the transpose (e8 * ts); 0 for ts < 1. */
static int32_t transposed_bytes(int32_t ts, int32_t n, int32_t *e8)
{
    if (ts < 1 || n <= 0) {
        *e8 = 0;
        return 0;
    }
    *e8 = (n / ts) & ~7;
    return *e8 * ts;
}

/* The portable plane kernels are the SIMD kernels' tails run over every group. */
static void plane_to_bitrows(const uint8_t *plane, int32_t ngroups, uint8_t *rows, size_t rowlen)
{
    b2_plane_to_bitrows_tail(plane, 0, ngroups, rows, rowlen);
}

static void bitrows_to_plane(const uint8_t *rows, size_t rowlen, int32_t ngroups, uint8_t *plane)
{
    b2_bitrows_to_plane_tail(rows, rowlen, 0, ngroups, plane);
}

void b2_bitshuffle_generic(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst)
{
    int32_t e8, t = transposed_bytes(ts, n, &e8);
    if (ts >= 1 && ts <= B2_BITSTRIP_MAX_TS)
        b2_bitshuffle_strips(ts, e8, src, dst, b2_shuffle_generic, plane_to_bitrows);
    else
        b2_bitshuffle_groups(ts, e8, 0, e8 / 8, src, dst);
    if (n > t)
        memcpy(dst + t, src + t, (size_t)(n - t));
}

/* Version-2 chunks (Blosc 1.x): a block whose element count is not a multiple
 * of 8 was not bitshuffled at all (doc/format/filters.md §3.4); otherwise the modern rule
 * gives the same result for the elements. */
int b2_bitshuffle_legacy_untouched(int32_t ts, int32_t n)
{
    return ts < 1 || n <= 0 || (n / ts) % 8 != 0;
}

/* Blosc 1.x encoders never wrote the n % ts spare bytes of such a block (they
 * hold stale memory), so their value is unknowable. The reference decoder leaves
 * them unwritten and the reference vectors record them as zero: write zeros so
 * the result is deterministic and matches. */
void b2_bitshuffle_legacy_clear(int32_t ts, int32_t n, uint8_t *dst)
{
    int32_t spare = n % ts;
    if (spare)
        memset(dst + (n - spare), 0, (size_t)spare);
}

void b2_bitunshuffle_generic(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst,
                             int legacy_v2)
{
    if (legacy_v2 && b2_bitshuffle_legacy_untouched(ts, n)) {
        if (n > 0)
            memcpy(dst, src, (size_t)n);
        return;
    }
    int32_t e8, t = transposed_bytes(ts, n, &e8);
    if (ts >= 1 && ts <= B2_BITSTRIP_MAX_TS)
        b2_bitunshuffle_strips(ts, e8, src, dst, b2_unshuffle_generic, bitrows_to_plane);
    else
        b2_bitunshuffle_groups(ts, e8, 0, e8 / 8, src, dst);
    if (n > t)
        memcpy(dst + t, src + t, (size_t)(n - t));
    if (legacy_v2)
        b2_bitshuffle_legacy_clear(ts, n, dst);
}
