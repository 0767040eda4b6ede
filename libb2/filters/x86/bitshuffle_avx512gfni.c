/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX-512 bit shuffle kernels for CPUs with VBMI and GFNI (Ice Lake, Zen 4 and
 * later): the strips of simd_kernels.h, with each byte plane's 8x8 bit blocks
 * moved in registers. 64 groups per step: three rounds of two-register byte
 * permutes (vpermt2b) turn 8 bit rows of 64 bytes into 64 qwords of one group
 * each (or back), and one GF2P8AFFINEQB per register transposes the 8x8 bit
 * matrix of every qword. It replaces the mask-register kernels of
 * bitshuffle_avx512.c where both instruction sets are present. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Round r (unit s = 1, 2, 4 bytes) zips the units of two registers X, Y:
 * lo takes units 0..32/s-1 of each, hi the rest, alternating X, Y. The unzip
 * tables undo a round: from (lo, hi) back to X or Y. */
static const uint8_t zip_idx[3][2][64] __attribute__((aligned(64))) = {
    {{0,  64, 1,  65, 2,  66, 3,  67, 4,  68, 5,  69, 6,  70, 7,  71,
      8,  72, 9,  73, 10, 74, 11, 75, 12, 76, 13, 77, 14, 78, 15, 79,
      16, 80, 17, 81, 18, 82, 19, 83, 20, 84, 21, 85, 22, 86, 23, 87,
      24, 88, 25, 89, 26, 90, 27, 91, 28, 92, 29, 93, 30, 94, 31, 95},
     {32, 96,  33, 97,  34, 98,  35, 99,  36, 100, 37, 101, 38, 102, 39, 103,
      40, 104, 41, 105, 42, 106, 43, 107, 44, 108, 45, 109, 46, 110, 47, 111,
      48, 112, 49, 113, 50, 114, 51, 115, 52, 116, 53, 117, 54, 118, 55, 119,
      56, 120, 57, 121, 58, 122, 59, 123, 60, 124, 61, 125, 62, 126, 63, 127}},
    {{0,  1,  64, 65, 2,  3,  66, 67, 4,  5,  68, 69, 6,  7,  70, 71,
      8,  9,  72, 73, 10, 11, 74, 75, 12, 13, 76, 77, 14, 15, 78, 79,
      16, 17, 80, 81, 18, 19, 82, 83, 20, 21, 84, 85, 22, 23, 86, 87,
      24, 25, 88, 89, 26, 27, 90, 91, 28, 29, 92, 93, 30, 31, 94, 95},
     {32, 33, 96,  97,  34, 35, 98,  99,  36, 37, 100, 101, 38, 39, 102, 103,
      40, 41, 104, 105, 42, 43, 106, 107, 44, 45, 108, 109, 46, 47, 110, 111,
      48, 49, 112, 113, 50, 51, 114, 115, 52, 53, 116, 117, 54, 55, 118, 119,
      56, 57, 120, 121, 58, 59, 122, 123, 60, 61, 124, 125, 62, 63, 126, 127}},
    {{0,  1,  2,  3,  64, 65, 66, 67, 4,  5,  6,  7,  68, 69, 70, 71,
      8,  9,  10, 11, 72, 73, 74, 75, 12, 13, 14, 15, 76, 77, 78, 79,
      16, 17, 18, 19, 80, 81, 82, 83, 20, 21, 22, 23, 84, 85, 86, 87,
      24, 25, 26, 27, 88, 89, 90, 91, 28, 29, 30, 31, 92, 93, 94, 95},
     {32, 33, 34, 35, 96,  97,  98,  99,  36, 37, 38, 39, 100, 101, 102, 103,
      40, 41, 42, 43, 104, 105, 106, 107, 44, 45, 46, 47, 108, 109, 110, 111,
      48, 49, 50, 51, 112, 113, 114, 115, 52, 53, 54, 55, 116, 117, 118, 119,
      56, 57, 58, 59, 120, 121, 122, 123, 60, 61, 62, 63, 124, 125, 126, 127}},
};
static const uint8_t unzip_idx[3][2][64] __attribute__((aligned(64))) = {
    {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
      32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62,
      64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 90, 92, 94,
      96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 120, 122, 124, 126},
     {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
      33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63,
      65, 67, 69, 71, 73, 75, 77, 79, 81, 83, 85, 87, 89, 91, 93, 95,
      97, 99, 101, 103, 105, 107, 109, 111, 113, 115, 117, 119, 121, 123, 125, 127}},
    {{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29,
      32, 33, 36, 37, 40, 41, 44, 45, 48, 49, 52, 53, 56, 57, 60, 61,
      64, 65, 68, 69, 72, 73, 76, 77, 80, 81, 84, 85, 88, 89, 92, 93,
      96, 97, 100, 101, 104, 105, 108, 109, 112, 113, 116, 117, 120, 121, 124, 125},
     {2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31,
      34, 35, 38, 39, 42, 43, 46, 47, 50, 51, 54, 55, 58, 59, 62, 63,
      66, 67, 70, 71, 74, 75, 78, 79, 82, 83, 86, 87, 90, 91, 94, 95,
      98, 99, 102, 103, 106, 107, 110, 111, 114, 115, 118, 119, 122, 123, 126, 127}},
    {{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27,
      32, 33, 34, 35, 40, 41, 42, 43, 48, 49, 50, 51, 56, 57, 58, 59,
      64, 65, 66, 67, 72, 73, 74, 75, 80, 81, 82, 83, 88, 89, 90, 91,
      96, 97, 98, 99, 104, 105, 106, 107, 112, 113, 114, 115, 120, 121, 122, 123},
     {4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31,
      36, 37, 38, 39, 44, 45, 46, 47, 52, 53, 54, 55, 60, 61, 62, 63,
      68, 69, 70, 71, 76, 77, 78, 79, 84, 85, 86, 87, 92, 93, 94, 95,
      100, 101, 102, 103, 108, 109, 110, 111, 116, 117, 118, 119, 124, 125, 126, 127}},
};

static inline __m512i zip(__m512i x, __m512i y, int round, int half)
{
    return _mm512_permutex2var_epi8(x, _mm512_load_si512((const void *)zip_idx[round][half]), y);
}

static inline __m512i unzip(__m512i lo, __m512i hi, int round, int which)
{
    return _mm512_permutex2var_epi8(lo, _mm512_load_si512((const void *)unzip_idx[round][which]), hi);
}

/* GF2P8AFFINEQB(x, A) sets bit j of byte i to the parity of A.byte[7 - j] & x.byte[i];
 * with x.byte[i] = 1 << i that is bit i of A.byte[7 - j]: the transpose of A's
 * 8x8 bit matrix with its bytes taken in reverse order. */
static inline __m512i transpose_bits(__m512i a)
{
    return _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64(0x8040201008040201LL), a, 0);
}

/* Bytes of the plane for groups [8k, 8k + 8) of a step of n groups (all 64
 * bytes when the step is whole). */
static inline __mmask64 plane_mask(int32_t n, int k)
{
    int32_t bytes = 8 * (n - 8 * k);
    return bytes >= 64 ? ~(__mmask64)0 : bytes <= 0 ? 0 : (((__mmask64)1 << bytes) - 1);
}

/* Loads and stores of a step: masked ones only for a partial last step (masked
 * stores are slow on some CPUs, e.g. AMD Zen 4). */
static inline __m512i load_part(const uint8_t *p, __mmask64 m, int whole)
{
    return whole ? _mm512_loadu_si512((const void *)p) : _mm512_maskz_loadu_epi8(m, p);
}

static inline void store_part(uint8_t *p, __mmask64 m, int whole, __m512i v)
{
    if (whole)
        _mm512_storeu_si512((void *)p, v);
    else if (m)
        _mm512_mask_storeu_epi8(p, m, v);
}

/* The 8 bit rows of a step of n <= 64 groups (whole: n == 64). */
static inline __attribute__((always_inline)) void
load_rows_step(const uint8_t *rows, size_t rowlen, int32_t n, int whole, __m512i r[8])
{
    __mmask64 m = whole ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
    B2_UNROLL
    for (int b = 0; b < 8; b++)
        r[b] = load_part(rows + (size_t)b * rowlen, m, whole);
}

/* Plane bytes 8g..8g+8n-1 of a step loaded by load_rows_step. */
static inline __attribute__((always_inline)) void
store_plane_step(const __m512i r[8], int32_t n, int whole, uint8_t *plane)
{
    /* bytes of a group's qword from row 7 down to row 0 (see transpose_bits) */
    __m512i p[4][2], q[4][2];
    B2_UNROLL
    for (int i = 0; i < 4; i++) {
        p[i][0] = zip(r[7 - 2 * i], r[6 - 2 * i], 0, 0); /* groups 0..31 */
        p[i][1] = zip(r[7 - 2 * i], r[6 - 2 * i], 0, 1); /* groups 32..63 */
    }
    B2_UNROLL
    for (int i = 0; i < 2; i++)
        B2_UNROLL
        for (int h = 0; h < 2; h++) {
            q[2 * i + 0][h] = zip(p[2 * i][h], p[2 * i + 1][h], 1, 0);
            q[2 * i + 1][h] = zip(p[2 * i][h], p[2 * i + 1][h], 1, 1);
        }
    /* q[0 or 1][h]: rows 7..4 / q[2 or 3][h]: rows 3..0, groups 32h + 16 * (index & 1) .. +15 */
    B2_UNROLL
    for (int s = 0; s < 4; s++) {
        int h = s >> 1, part = s & 1;
        __m512i hi4 = q[part][h], lo4 = q[2 + part][h];
        B2_UNROLL
        for (int w = 0; w < 2; w++) {
            int k = 2 * s + w;
            store_part(plane + 64 * k, whole ? 0 : plane_mask(n, k), whole,
                       transpose_bits(zip(hi4, lo4, 2, w)));
        }
    }
}

/* Loads run one step ahead of the stores, as in plane_to_bitrows. */
static void bitrows_to_plane(const uint8_t *rows, size_t rowlen, int32_t ngroups, uint8_t *plane)
{
    int32_t whole = ngroups / 64;
    __m512i cur[8], next[8];
    if (whole > 0)
        load_rows_step(rows, rowlen, 64, 1, cur);
    for (int32_t s = 0; s < whole; s++) {
        if (s + 1 < whole)
            load_rows_step(rows + (size_t)64 * (s + 1), rowlen, 64, 1, next);
        store_plane_step(cur, 64, 1, plane + (size_t)512 * s);
        if (s + 1 < whole)
            memcpy(cur, next, sizeof cur);
    }
    int32_t g = 64 * whole;
    if (g < ngroups) {
        load_rows_step(rows + g, rowlen, ngroups - g, 0, cur);
        store_plane_step(cur, ngroups - g, 0, plane + (size_t)8 * g);
    }
}

/* Plane bytes of a step of n <= 64 groups (whole: n == 64), as t[k] for groups
 * 8k..8k+7 with each qword's bytes reversed (for transpose_bits). */
static inline __attribute__((always_inline)) void
load_plane_step(const uint8_t *plane, int32_t n, int whole, __m512i t[8])
{
    const __m512i rev = _mm512_set4_epi32(0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607);
    B2_UNROLL
    for (int k = 0; k < 8; k++)
        t[k] = _mm512_shuffle_epi8(load_part(plane + 64 * k, whole ? 0 : plane_mask(n, k), whole), rev);
}

/* The 8 bit rows of a step loaded by load_plane_step. */
static inline __attribute__((always_inline)) void
store_rows_step(const __m512i in[8], int32_t n, int whole, uint8_t *rows, size_t rowlen)
{
    __m512i t[8];
    B2_UNROLL
    for (int k = 0; k < 8; k++)
        t[k] = transpose_bits(in[k]); /* groups 8k..8k+7, byte i of a qword = row i */
    __m512i d[2][4], w[4][2];
    B2_UNROLL
    for (int s = 0; s < 4; s++) {
        d[0][s] = unzip(t[2 * s], t[2 * s + 1], 2, 0); /* rows 0..3, groups 16s.. */
        d[1][s] = unzip(t[2 * s], t[2 * s + 1], 2, 1); /* rows 4..7 */
    }
    B2_UNROLL
    for (int x = 0; x < 2; x++)
        B2_UNROLL
        for (int h = 0; h < 2; h++) {
            /* groups 32h..32h+31 */
            w[2 * x + 0][h] = unzip(d[x][2 * h], d[x][2 * h + 1], 1, 0); /* rows 4x, 4x+1 */
            w[2 * x + 1][h] = unzip(d[x][2 * h], d[x][2 * h + 1], 1, 1); /* rows 4x+2, 4x+3 */
        }
    __mmask64 m = whole ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
    B2_UNROLL
    for (int i = 0; i < 4; i++)
        B2_UNROLL
        for (int b = 0; b < 2; b++)
            store_part(rows + (size_t)(2 * i + b) * rowlen, m, whole, unzip(w[i][0], w[i][1], 0, b));
}

/* Each step's plane bytes are loaded before the previous step's rows are
 * stored: with a row length a multiple of 4 KB the row stores share their low
 * address bits, and loads behind them would wait on false (4K-aliased)
 * dependencies. */
static void plane_to_bitrows(const uint8_t *plane, int32_t ngroups, uint8_t *rows, size_t rowlen)
{
    int32_t whole = ngroups / 64;
    __m512i cur[8], next[8];
    if (whole > 0)
        load_plane_step(plane, 64, 1, cur);
    for (int32_t s = 0; s < whole; s++) {
        if (s + 1 < whole)
            load_plane_step(plane + (size_t)512 * (s + 1), 64, 1, next);
        store_rows_step(cur, 64, 1, rows + (size_t)64 * s, rowlen);
        if (s + 1 < whole)
            memcpy(cur, next, sizeof cur);
    }
    int32_t g = 64 * whole;
    if (g < ngroups) {
        load_plane_step(plane + (size_t)8 * g, ngroups - g, 0, cur);
        store_rows_step(cur, ngroups - g, 0, rows + g, rowlen);
    }
}

static void bitshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitshuffle_strips(ts, e8, in, out, b2_shuffle_strip_avx512, plane_to_bitrows);
}

static void bitunshuffle_any(int32_t ts, int32_t e8, const uint8_t *in, uint8_t *out)
{
    b2_bitunshuffle_strips(ts, e8, in, out, b2_unshuffle_avx512, bitrows_to_plane);
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_avx512gfni, bitshuffle_any, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_avx512gfni, bitunshuffle_any, b2_bitunshuffle_groups)
#endif
