/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX-512 BW delta kernels (delta_template.h): the prefix per 128-bit lane, then
 * an exclusive prefix of the lanes' last words over the four lanes. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include "simd_kernels.h"

typedef __m512i V;
#define VB 64
#define LOADU(p) _mm512_loadu_si512((const void *)(p))
#define STOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define VXOR _mm512_xor_si512
#define VZERO _mm512_setzero_si512()

ALWAYS_INLINE V bcast_lane(V v, int u)
{
    if (u == 8)
        return _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0xEE);
    if (u == 1)
        v = _mm512_unpackhi_epi8(v, v);
    if (u <= 2)
        v = _mm512_shufflehi_epi16(v, 0xFF);
    return _mm512_shuffle_epi32(v, (_MM_PERM_ENUM)0xFF);
}

/* v's lanes moved up by k lanes (2k qwords), zeros below. */
#define LANES_UP(v, k) _mm512_alignr_epi64((v), _mm512_setzero_si512(), 8 - 2 * (k))

ALWAYS_INLINE V prefix_local(V v, int u)
{
    if (u <= 1)
        v = _mm512_xor_si512(v, _mm512_bslli_epi128(v, 1));
    if (u <= 2)
        v = _mm512_xor_si512(v, _mm512_bslli_epi128(v, 2));
    if (u <= 4)
        v = _mm512_xor_si512(v, _mm512_bslli_epi128(v, 4));
    v = _mm512_xor_si512(v, _mm512_bslli_epi128(v, 8));
    V e = LANES_UP(bcast_lane(v, u), 1);
    e = _mm512_xor_si512(e, LANES_UP(e, 1));
    e = _mm512_xor_si512(e, LANES_UP(e, 2));
    return _mm512_xor_si512(v, e);
}

ALWAYS_INLINE V bcast_last(V v, int u)
{
    V b = bcast_lane(v, u);
    return _mm512_shuffle_i64x2(b, b, 0xFF);
}

#define DELTA_ENCODE b2_delta_encode_avx512
#define DELTA_DECODE b2_delta_decode_avx512
#include "delta_template.h"
#endif
