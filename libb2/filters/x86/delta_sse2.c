/* SPDX-License-Identifier: BSD-3-Clause */
/* SSE2 delta kernels (delta_template.h). Block 0 of 8-byte words decodes with
 * the portable loop: 0.9x of it in vectors (bench/bench_kernels.c). */
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include "simd_kernels.h"

typedef __m128i V;
#define VB 16
#define LOADU(p) _mm_loadu_si128((const __m128i *)(p))
#define STOREU(p, v) _mm_storeu_si128((__m128i *)(p), (v))
#define VXOR _mm_xor_si128
#define VZERO _mm_setzero_si128()

ALWAYS_INLINE V prefix_local(V v, int u)
{
    if (u <= 1)
        v = _mm_xor_si128(v, _mm_slli_si128(v, 1));
    if (u <= 2)
        v = _mm_xor_si128(v, _mm_slli_si128(v, 2));
    if (u <= 4)
        v = _mm_xor_si128(v, _mm_slli_si128(v, 4));
    return _mm_xor_si128(v, _mm_slli_si128(v, 8));
}

ALWAYS_INLINE V bcast_last(V v, int u)
{
    if (u == 8)
        return _mm_shuffle_epi32(v, 0xEE);
    if (u == 1)
        v = _mm_unpackhi_epi8(v, v); /* byte 15 doubled into word 7 */
    if (u <= 2)
        v = _mm_shufflehi_epi16(v, 0xFF);
    return _mm_shuffle_epi32(v, 0xFF);
}

#define DELTA_ENCODE b2_delta_encode_sse2
#define DELTA_DECODE b2_delta_decode_sse2
#define DELTA_DECODE_U8_PORTABLE
#include "delta_template.h"
#endif
