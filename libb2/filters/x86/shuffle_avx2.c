/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX2 byte shuffle kernels for units 2, 4, 8 and 16 (other units use the
 * portable loop), 32 elements per step. Shuffles of units 4 to 16 and
 * unshuffles of 8 and 16 use interleave rounds within 128-bit lanes (the
 * "wide" steps); unit 2 and the unshuffle of 4 keep the unzip / zip scheme of
 * simd_kernels.h (pack and unpack work within lanes, so results are reordered
 * with a 64-bit permute). Units of 8 and 16 go through a staging area. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Units of 4 to 16 bytes: lane 0 of vector m holds bytes 16m.. of the step and
 * lane 1 bytes 16S + 16m.., so within a lane the index is (element, byte); four
 * interleave rounds make it (byte, element), and vector b is plane b of the 32
 * elements: one instruction a vector and round, against up to 3 per level for
 * the unzips (unit 4: 47 against 38 GB/s, unit 8: 30 against 20, in L2). */
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

ALWAYS_INLINE void shuffle_step_any(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    if (S >= 4)
        shuffle_step_wide(S, q, i, in, out);
    else
        shuffle_step(S, q, i, in, out);
}

B2_DEFINE_SHUFFLE_VEC(shuffle_vec, shuffle_step_any, 32)

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

/* Units of 8 and 16 bytes, 32 elements: log2(S) interleave rounds within each
 * 128-bit lane turn the planes into the elements (lane 0: elements 0-15, lane 1:
 * 16-31; two vectors' lanes are joined per store): for S = 8, 24 unpacks and 4
 * permutes where the unzip/zip scheme needs twice as many shuffle-port steps. */
ALWAYS_INLINE void unshuffle_step_wide(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    __m256i v[16];
    B2_UNROLL
    for (int p = 0; p < S; p++)
        v[p] = _mm256_loadu_si256((const __m256i *)(pl[p] + i));
    const int rounds = S == 8 ? 3 : 4;
    B2_UNROLL
    for (int r = 0; r < rounds; r++)
        interleave256_round(v, S);
    B2_UNROLL
    for (int m = 0; m < S; m += 2) {
        _mm256_storeu_si256((__m256i *)(out + 16 * m), _mm256_permute2x128_si256(v[m], v[m + 1], 0x20));
        _mm256_storeu_si256((__m256i *)(out + 16 * S + 16 * m),
                            _mm256_permute2x128_si256(v[m], v[m + 1], 0x31));
    }
}

ALWAYS_INLINE void unshuffle_step_any(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    if (S >= 8)
        unshuffle_step_wide(S, pl, i, out);
    else
        unshuffle_step(S, pl, i, out);
}

B2_DEFINE_UNSHUFFLE_VEC(unshuffle_vec, unshuffle_step_any, 32)

static B2_DEFINE_SHUFFLE_PART(shuffle_part_vec, shuffle_vec, b2_shuffle_range)

/* Runs shorter than one 32-element step (rows of small b2nd blocks) would take
 * the scalar tail here: SSE2's 16-element steps cover them. */
void b2_shuffle_part_avx2(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    (n < 32 ? b2_shuffle_part_sse2 : shuffle_part_vec)(unit, q, n, in, out);
}
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_avx2, b2_shuffle_part_avx2)

static B2_DEFINE_UNSHUFFLE_PLANES(unshuffle_planes_vec, unshuffle_vec)
void b2_unshuffle_planes_avx2(int32_t unit, const uint8_t *const *pl, int32_t i0, int32_t n,
                              uint8_t *out)
{
    (n < 32 ? b2_unshuffle_planes_sse2 : unshuffle_planes_vec)(unit, pl, i0, n, out);
}
B2_DEFINE_UNSHUFFLE_PART(b2_unshuffle_part_avx2, b2_unshuffle_planes_avx2)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_avx2, b2_unshuffle_part_avx2)
#endif
