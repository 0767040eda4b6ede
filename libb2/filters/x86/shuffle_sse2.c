/* SPDX-License-Identifier: BSD-3-Clause */
/* SSE2 byte shuffle kernels for units 2, 4, 8 and 16 (other units use the
 * portable loop). Shuffles of units 4 to 16 take four interleave rounds (the
 * "wide" step below); unit 2 and every unshuffle transpose 16 elements = `unit`
 * vectors in registers by log2(unit) rounds of even/odd byte unzips (pack of the
 * low / high bytes of 16-bit lanes) and zip them back with unpacklo/hi. */
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Units of 4 to 16 bytes, 16 elements: vector m holds bytes 16m.. of the step,
 * so the index is (element, byte); four interleave rounds make it (byte,
 * element), so vector b is plane b: one instruction a vector and round against
 * up to 3 per level for the unzips (unit 4: 38 against 31 GB/s, unit 8: 23
 * against 15, in L2). Units of 8 and 16 go through a staging area
 * (simd_kernels.h). */
ALWAYS_INLINE void shuffle_step_wide(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    __m128i v[16];
    B2_UNROLL
    for (int m = 0; m < S; m++)
        v[m] = _mm_loadu_si128((const __m128i *)(in + (size_t)i * S + 16 * m));
    B2_UNROLL
    for (int r = 0; r < 4; r++)
        interleave128_round(v, S);
    B2_UNROLL
    for (int b = 0; b < S; b++)
        _mm_storeu_si128((__m128i *)(out + (size_t)b * q + i), v[b]);
}

ALWAYS_INLINE void shuffle_step(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    __m128i v[16];
    B2_UNROLL
    for (int r = 0; r < S; r++)
        v[r] = _mm_loadu_si128((const __m128i *)(in + (size_t)i * S + 16 * r));
    transpose128_fwd(v, S);
    B2_UNROLL
    for (int p = 0; p < S; p++)
        _mm_storeu_si128((__m128i *)(out + (size_t)plane_of(p, S) * q + i), v[p]);
}

ALWAYS_INLINE void shuffle_step_any(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    if (S >= 4)
        shuffle_step_wide(S, q, i, in, out);
    else
        shuffle_step(S, q, i, in, out);
}

B2_DEFINE_SHUFFLE_VEC(shuffle_vec, shuffle_step_any, 16)

ALWAYS_INLINE void unshuffle_step(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    __m128i v[16];
    B2_UNROLL
    for (int p = 0; p < S; p++)
        v[p] = _mm_loadu_si128((const __m128i *)(pl[plane_of(p, S)] + i));
    transpose128_inv(v, S);
    B2_UNROLL
    for (int r = 0; r < S; r++)
        _mm_storeu_si128((__m128i *)(out + 16 * r), v[r]);
}

B2_DEFINE_UNSHUFFLE_VEC(unshuffle_vec, unshuffle_step, 16)

B2_DEFINE_SHUFFLE_PART(b2_shuffle_part_sse2, shuffle_vec, b2_shuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_sse2, b2_shuffle_part_sse2)

B2_DEFINE_UNSHUFFLE_PLANES(b2_unshuffle_planes_sse2, unshuffle_vec)
B2_DEFINE_UNSHUFFLE_PART(b2_unshuffle_part_sse2, b2_unshuffle_planes_sse2)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_sse2, b2_unshuffle_part_sse2)
#endif
