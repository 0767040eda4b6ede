/* SPDX-License-Identifier: BSD-3-Clause */
/* AVX2 delta kernels (delta_template.h). Byte shifts and shuffles stay within
 * 128-bit lanes, so the prefix is per lane, then the low lane's last word is
 * XORed into the high lane. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include "simd_kernels.h"

typedef __m256i V;
#define VB 32
#define LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define VXOR _mm256_xor_si256
#define VZERO _mm256_setzero_si256()

/* Each lane's last u-byte word across that lane. */
ALWAYS_INLINE V bcast_lane(V v, int u)
{
    if (u == 8)
        return _mm256_shuffle_epi32(v, 0xEE);
    if (u == 1)
        v = _mm256_unpackhi_epi8(v, v);
    if (u <= 2)
        v = _mm256_shufflehi_epi16(v, 0xFF);
    return _mm256_shuffle_epi32(v, 0xFF);
}

ALWAYS_INLINE V prefix_local(V v, int u)
{
    if (u <= 1)
        v = _mm256_xor_si256(v, _mm256_slli_si256(v, 1));
    if (u <= 2)
        v = _mm256_xor_si256(v, _mm256_slli_si256(v, 2));
    if (u <= 4)
        v = _mm256_xor_si256(v, _mm256_slli_si256(v, 4));
    v = _mm256_xor_si256(v, _mm256_slli_si256(v, 8));
    V b = bcast_lane(v, u);
    return _mm256_xor_si256(v, _mm256_permute2x128_si256(b, b, 0x08)); /* low lane -> high */
}

ALWAYS_INLINE V bcast_last(V v, int u)
{
    V b = bcast_lane(v, u);
    return _mm256_permute2x128_si256(b, b, 0x11);
}

#define DELTA_ENCODE b2_delta_encode_avx2
#define DELTA_DECODE b2_delta_decode_avx2
#include "delta_template.h"
#endif
