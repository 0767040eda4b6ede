/* AVX2 byte shuffle kernels for units 2, 4, 8 and 16 (other units use the
 * portable loop). Same scheme as shuffle_sse2.c with 32 elements per step; the
 * pack/unpack instructions work within 128-bit lanes, so each unzip result is
 * put back in order with a 64-bit permute (0,2,1,3) and each zip's inputs are
 * permuted the same way first. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Units of 16 bytes (any multiple of 8 works): lane L of vector m holds the 16 bytes at 16*m of
 * elements 16L.. of the step, so the index is (element, byte); four rotations
 * make it (byte, element): vector b is then plane b of the 32 elements. That is
 * 4 instructions a vector against 3*log2(S) for the unzips. */
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

ALWAYS_INLINE int32_t shuffle_vec_wide(int S, int32_t q, int32_t n, const uint8_t *in,
                                       uint8_t *out)
{
    int32_t i = 0;
    for (; i + 32 <= n; i += 32)
        shuffle_step_wide(S, q, i, in, out);
    if (i < n && n >= 32) { /* last step overlaps the one before: same bytes again */
        shuffle_step_wide(S, q, n - 32, in, out);
        i = n;
    }
    return i;
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

ALWAYS_INLINE int32_t shuffle_vec(int S, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    if (S == 16) /* for 8 the unzips measure as fast: both are shuffle-port bound */
        return shuffle_vec_wide(S, q, n, in, out);
    int32_t i = 0;
    for (; i + 32 <= n; i += 32)
        shuffle_step(S, q, i, in, out);
    if (i < n && n >= 32) { /* last step overlaps the one before: same bytes again */
        shuffle_step(S, q, n - 32, in, out);
        i = n;
    }
    return i;
}

ALWAYS_INLINE void unshuffle_step(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    __m256i v[16];
    B2_UNROLL
    for (int p = 0; p < S; p++)
        v[p] = _mm256_loadu_si256((const __m256i *)(in + (size_t)plane_of(p, S) * q + i));
    transpose256_inv(v, S);
    B2_UNROLL
    for (int r = 0; r < S; r++)
        _mm256_storeu_si256((__m256i *)(out + (size_t)i * S + 32 * r), v[r]);
}

ALWAYS_INLINE int32_t unshuffle_vec(int S, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t i = 0;
    for (; i + 32 <= n; i += 32)
        unshuffle_step(S, q, i, in, out);
    if (i < n && n >= 32) { /* last step overlaps the one before: same bytes again */
        unshuffle_step(S, q, n - 32, in, out);
        i = n;
    }
    return i;
}

B2_DEFINE_SHUFFLE_PART(b2_shuffle_part_avx2, shuffle_vec, b2_shuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_avx2, b2_shuffle_part_avx2)

B2_DEFINE_SHUFFLE_PART(b2_unshuffle_part_avx2, unshuffle_vec, b2_unshuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_avx2, b2_unshuffle_part_avx2)
#endif
