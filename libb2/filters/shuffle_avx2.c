/* AVX2 byte shuffle kernels for units 2, 4, 8 and 16 (other units use the
 * portable loop), 32 elements per step. Units 2 and 4, and every unshuffle, use
 * the scheme of shuffle_sse2.c (unzips / zips; pack and unpack work within
 * 128-bit lanes, so results are reordered with a 64-bit permute). Shuffles of 8-
 * and 16-byte units have their own steps below and go through a staging area. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Units of 16 bytes: lane L of vector m holds element 16L + m of the step, so
 * within a lane the index is (element, byte); four interleave rounds make it
 * (byte, element), and vector b is plane b of the 32 elements: 4 instructions a
 * vector against 12 for the unzips. */
ALWAYS_INLINE void shuffle_step_wide(int S, int32_t q, int32_t i, const uint8_t *in,
                                     uint8_t *out)
{
    const uint8_t *p = in + (size_t)i * S;
    __m256i v[16];
    B2_UNROLL
    for (int m = 0; m < S; m++) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(p + 16 * m));
        __m128i hi = _mm_loadu_si128((const __m128i *)(p + 16 * S + 16 * m));
        v[m] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
    B2_UNROLL
    for (int r = 0; r < 4; r++)
        interleave256_round(v, S);
    B2_UNROLL
    for (int b = 0; b < S; b++)
        _mm256_storeu_si256((__m256i *)(out + (size_t)b * q + i), v[b]);
}

ALWAYS_INLINE void shuffle_step(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    __m256i v[16];
    B2_UNROLL
    for (int r = 0; r < S; r++)
        v[r] = _mm256_loadu_si256((const __m256i *)(in + (size_t)i * S + 32 * r));
    transpose256_fwd(v, S);
    B2_UNROLL
    for (int p = 0; p < S; p++)
        _mm256_storeu_si256((__m256i *)(out + (size_t)plane_of(p, S) * q + i), v[p]);
}

/* Swap the high `sh`-bit half of every 2*sh-bit group of *a with the low half of
 * the same group of *b (a delta swap between two rows of byte matrices). */
ALWAYS_INLINE void delta_swap(__m256i *a, __m256i *b, int sh, __m256i lowmask)
{
    __m256i t = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64(*a, sh), *b), lowmask);
    *b = _mm256_xor_si256(*b, t);
    *a = _mm256_xor_si256(*a, _mm256_slli_epi64(t, sh));
}

/* 4x4 transpose of 64-bit lanes: lane k of out[i] = lane i of in[k]. */
ALWAYS_INLINE void transpose4x64(__m256i a, __m256i b, __m256i c, __m256i d, __m256i *out)
{
    __m256i t0 = _mm256_unpacklo_epi64(a, b), t1 = _mm256_unpackhi_epi64(a, b);
    __m256i t2 = _mm256_unpacklo_epi64(c, d), t3 = _mm256_unpackhi_epi64(c, d);
    out[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    out[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    out[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    out[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* Units of 8 bytes, 32 elements: a 64-bit-lane transpose puts element 8k + r in
 * lane k of row r; three rounds of delta swaps then transpose each lane's 8x8
 * byte matrix, so row c is plane c of the 32 elements in order. The swaps use
 * shifts and logic, not the shuffle port the unzips saturate. */
ALWAYS_INLINE void shuffle_step8(int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    const uint8_t *p = in + (size_t)i * 8;
    __m256i r[8], l[8];
    B2_UNROLL
    for (int j = 0; j < 8; j++) /* l[j]: elements 4j..4j+3 */
        l[j] = _mm256_loadu_si256((const __m256i *)(p + 32 * j));
    transpose4x64(l[0], l[2], l[4], l[6], r);
    transpose4x64(l[1], l[3], l[5], l[7], r + 4);
    const __m256i m32 = _mm256_set1_epi64x(0x00000000FFFFFFFFLL);
    const __m256i m16 = _mm256_set1_epi64x(0x0000FFFF0000FFFFLL);
    const __m256i m8 = _mm256_set1_epi64x(0x00FF00FF00FF00FFLL);
    B2_UNROLL
    for (int k = 0; k < 4; k++)
        delta_swap(&r[k], &r[k + 4], 32, m32);
    B2_UNROLL
    for (int k = 0; k < 8; k += 4) {
        delta_swap(&r[k], &r[k + 2], 16, m16);
        delta_swap(&r[k + 1], &r[k + 3], 16, m16);
    }
    B2_UNROLL
    for (int k = 0; k < 8; k += 2)
        delta_swap(&r[k], &r[k + 1], 8, m8);
    B2_UNROLL
    for (int c = 0; c < 8; c++)
        _mm256_storeu_si256((__m256i *)(out + (size_t)c * q + i), r[c]);
}

ALWAYS_INLINE void shuffle_step_any(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    if (S == 8)
        shuffle_step8(q, i, in, out);
    else if (S == 16)
        shuffle_step_wide(S, q, i, in, out);
    else
        shuffle_step(S, q, i, in, out);
}

ALWAYS_INLINE int32_t shuffle_vec(int S, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t i = 0;
    if (S >= 8) { /* through a staging area (simd_kernels.h) */
        uint8_t stage[16 * B2_STAGE] __attribute__((aligned(64)));
        for (; i + B2_STAGE <= n; i += B2_STAGE) {
            for (int32_t k = 0; k < B2_STAGE; k += 32)
                shuffle_step_any(S, B2_STAGE, k, in + (size_t)i * S, stage);
            b2_stage_to_planes(S, stage, out + i, (size_t)q);
        }
    }
    for (; i + 32 <= n; i += 32)
        shuffle_step_any(S, q, i, in, out);
    if (i < n && n >= 32) { /* last step overlaps the one before: same bytes again */
        shuffle_step_any(S, q, n - 32, in, out);
        i = n;
    }
    return i;
}

ALWAYS_INLINE void unshuffle_step(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    __m256i v[16];
    B2_UNROLL
    for (int p = 0; p < S; p++)
        v[p] = _mm256_loadu_si256((const __m256i *)(pl[plane_of(p, S)] + i));
    transpose256_inv(v, S);
    B2_UNROLL
    for (int r = 0; r < S; r++)
        _mm256_storeu_si256((__m256i *)(out + 32 * r), v[r]);
}

ALWAYS_INLINE int32_t unshuffle_vec(int S, const uint8_t *const *pl, int32_t i0, int32_t n,
                                    uint8_t *out)
{
    int32_t i = 0;
    if (S == 16) { /* the planes' reads conflict the same way: staged too */
        uint8_t stage[16 * B2_STAGE] __attribute__((aligned(64)));
        const uint8_t *spl[16];
        for (int b = 0; b < S; b++)
            spl[b] = stage + B2_STAGE * b;
        for (; i + B2_STAGE <= n; i += B2_STAGE) {
            b2_planes_to_stage(S, pl, i0 + i, stage);
            for (int32_t k = 0; k < B2_STAGE; k += 32)
                unshuffle_step(S, spl, k, out + (size_t)(i + k) * S);
        }
    }
    for (; i + 32 <= n; i += 32)
        unshuffle_step(S, pl, i0 + i, out + (size_t)i * S);
    if (i < n && n >= 32) { /* last step overlaps the one before: same bytes again */
        unshuffle_step(S, pl, i0 + n - 32, out + (size_t)(n - 32) * S);
        i = n;
    }
    return i;
}

B2_DEFINE_SHUFFLE_PART(b2_shuffle_part_avx2, shuffle_vec, b2_shuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_avx2, b2_shuffle_part_avx2)

B2_DEFINE_UNSHUFFLE_PLANES(b2_unshuffle_planes_avx2, unshuffle_vec)
B2_DEFINE_UNSHUFFLE_PART(b2_unshuffle_part_avx2, b2_unshuffle_planes_avx2)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_avx2, b2_unshuffle_part_avx2)
#endif
