/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX-512 (F/BW) byte shuffle kernels for units 2, 4, 8 and 16 (other units use
 * the portable loop), 64 elements per step: the schemes of shuffle_avx2.c on
 * four 128-bit lanes. Byte unpacks and packs work within lanes, so the wide
 * steps move whole lanes between four vectors (a 4x4 transpose of 128-bit
 * blocks) on the contiguous side, and the unzip/zip steps reorder qwords with
 * one permute per vector. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Block L of vector j <-> block j of vector L, for 128-bit blocks. */
ALWAYS_INLINE void transpose_lanes4(__m512i *a, __m512i *b, __m512i *c, __m512i *d)
{
    __m512i t0 = _mm512_shuffle_i64x2(*a, *b, 0x44), t1 = _mm512_shuffle_i64x2(*a, *b, 0xEE);
    __m512i t2 = _mm512_shuffle_i64x2(*c, *d, 0x44), t3 = _mm512_shuffle_i64x2(*c, *d, 0xEE);
    *a = _mm512_shuffle_i64x2(t0, t2, 0x88);
    *b = _mm512_shuffle_i64x2(t0, t2, 0xDD);
    *c = _mm512_shuffle_i64x2(t1, t3, 0x88);
    *d = _mm512_shuffle_i64x2(t1, t3, 0xDD);
}

B2_DEFINE_INTERLEAVE_ROUND(interleave512_round, __m512i, _mm512_unpacklo_epi8,
                           _mm512_unpackhi_epi8)

/* Units of 4 to 16 bytes: after the lane transposes, lane L of vector m holds
 * bytes 16(S*L + m).. of the step, so each lane is shuffle_sse2.c's problem for
 * elements 16L..16L+15 and four interleave rounds make vector b plane b. */
ALWAYS_INLINE void shuffle_step_wide(int S, int32_t q, int32_t i, const uint8_t *in,
                                     uint8_t *out)
{
    const uint8_t *p = in + (size_t)i * S;
    __m512i v[16];
    B2_UNROLL
    for (int r = 0; r < S; r++)
        v[r] = _mm512_loadu_si512((const void *)(p + 64 * r));
    /* v[r0 + (S/4)L] block j -> v[4 r0 + j] block L */
    __m512i w[16];
    B2_UNROLL
    for (int r0 = 0; r0 < S / 4; r0++) {
        __m512i a = v[r0], b = v[r0 + S / 4], c = v[r0 + S / 2], d = v[r0 + 3 * S / 4];
        transpose_lanes4(&a, &b, &c, &d);
        w[4 * r0] = a, w[4 * r0 + 1] = b, w[4 * r0 + 2] = c, w[4 * r0 + 3] = d;
    }
    B2_UNROLL
    for (int r = 0; r < 4; r++)
        interleave512_round(w, S);
    B2_UNROLL
    for (int b = 0; b < S; b++)
        _mm512_storeu_si512((void *)(out + (size_t)b * q + i), w[b]);
}

/* Unit 2: one unzip round (packs of the low and high bytes), qwords put back in
 * order with one permute. */
ALWAYS_INLINE void shuffle_step_2(int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    const __m512i lo = _mm512_set1_epi16(0x00ff);
    const __m512i order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    __m512i a = _mm512_loadu_si512((const void *)(in + (size_t)i * 2));
    __m512i b = _mm512_loadu_si512((const void *)(in + (size_t)i * 2 + 64));
    __m512i ev = _mm512_packus_epi16(_mm512_and_si512(a, lo), _mm512_and_si512(b, lo));
    __m512i od = _mm512_packus_epi16(_mm512_srli_epi16(a, 8), _mm512_srli_epi16(b, 8));
    _mm512_storeu_si512((void *)(out + i), _mm512_permutexvar_epi64(order, ev));
    _mm512_storeu_si512((void *)(out + (size_t)q + i), _mm512_permutexvar_epi64(order, od));
}

ALWAYS_INLINE void shuffle_step_any(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    if (S >= 4)
        shuffle_step_wide(S, q, i, in, out);
    else
        shuffle_step_2(q, i, in, out);
}

B2_DEFINE_SHUFFLE_VEC(shuffle_vec, shuffle_step_any, 64)

/* Unit 4 (and 2): zips of bytes, then of 16-bit pieces, after a qword permute
 * that puts each half of a vector in the lanes the within-lane unpacks read. */
ALWAYS_INLINE void unshuffle_step(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    const __m512i order = _mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0);
    __m512i v[16], t[16];
    B2_UNROLL
    for (int p = 0; p < S; p++)
        v[p] = _mm512_loadu_si512((const void *)(pl[plane_of(p, S)] + i));
    B2_UNROLL
    for (int L = 2; L <= S; L <<= 1) {
        B2_UNROLL
        for (int g = 0; g < S; g += L)
            B2_UNROLL
            for (int m = 0; m < L / 2; m++) {
                __m512i e = _mm512_permutexvar_epi64(order, v[g + m]);
                __m512i o = _mm512_permutexvar_epi64(order, v[g + L / 2 + m]);
                t[g + 2 * m] = _mm512_unpacklo_epi8(e, o);
                t[g + 2 * m + 1] = _mm512_unpackhi_epi8(e, o);
            }
        B2_UNROLL
        for (int p = 0; p < S; p++)
            v[p] = t[p];
    }
    B2_UNROLL
    for (int r = 0; r < S; r++)
        _mm512_storeu_si512((void *)(out + 64 * r), v[r]);
}

/* Units of 8 and 16 bytes: log2(S) interleave rounds within lanes turn the
 * planes into elements, lane L of vector m holding output bytes 16(S*L + m)..;
 * lane transposes of four vectors make the stores whole. */
ALWAYS_INLINE void unshuffle_step_wide(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    __m512i v[16];
    B2_UNROLL
    for (int p = 0; p < S; p++)
        v[p] = _mm512_loadu_si512((const void *)(pl[p] + i));
    const int rounds = S == 8 ? 3 : 4;
    B2_UNROLL
    for (int r = 0; r < rounds; r++)
        interleave512_round(v, S);
    B2_UNROLL
    for (int m = 0; m < S; m += 4) {
        transpose_lanes4(&v[m], &v[m + 1], &v[m + 2], &v[m + 3]);
        B2_UNROLL
        for (int L = 0; L < 4; L++)
            _mm512_storeu_si512((void *)(out + 16 * S * L + 16 * m), v[m + L]);
    }
}

ALWAYS_INLINE void unshuffle_step_any(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    if (S >= 8)
        unshuffle_step_wide(S, pl, i, out);
    else
        unshuffle_step(S, pl, i, out);
}

B2_DEFINE_UNSHUFFLE_VEC(unshuffle_vec, unshuffle_step_any, 64)

static B2_DEFINE_SHUFFLE_PART(shuffle_part_vec, shuffle_vec, b2_shuffle_range)

/* Shuffles of units 8 and 16 measured faster than AVX2's in L1 (16 KB) but not
 * on 256 KB blocks (bench/bench_kernels): a block runs AVX2's, a bit shuffle
 * strip (16 KB) this file's. Runs shorter than one 64-element step (b2nd block
 * rows, 50 elements for a 50x50 block) would fall to the scalar tail here;
 * AVX2's 32-element steps cover them. */
void b2_shuffle_part_avx512(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    (unit >= 8 || n < 64 ? b2_shuffle_part_avx2 : shuffle_part_vec)(unit, q, n, in, out);
}

B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_avx512, b2_shuffle_part_avx512)
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_strip_avx512, shuffle_part_vec)

static B2_DEFINE_UNSHUFFLE_PLANES(unshuffle_planes_vec, unshuffle_vec)

/* The unshuffle of unit 2 measured no faster than AVX2's (bench/bench_kernels):
 * AVX2's runs; so does any run shorter than one 64-element step (see above). */
void b2_unshuffle_planes_avx512(int32_t unit, const uint8_t *const *pl, int32_t i0, int32_t n,
                                uint8_t *out)
{
    (unit == 2 || n < 64 ? b2_unshuffle_planes_avx2 : unshuffle_planes_vec)(unit, pl, i0, n, out);
}
B2_DEFINE_UNSHUFFLE_PART(b2_unshuffle_part_avx512, b2_unshuffle_planes_avx512)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_avx512, b2_unshuffle_part_avx512)
#endif
