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

ALWAYS_INLINE int32_t shuffle_vec(int S, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v[16];
        B2_UNROLL
        for (int r = 0; r < S; r++)
            v[r] = _mm256_loadu_si256((const __m256i *)(in + (size_t)i * S + 32 * r));
        transpose256_fwd(v, S);
        B2_UNROLL
        for (int p = 0; p < S; p++)
            _mm256_storeu_si256((__m256i *)(out + (size_t)plane_of(p, S) * q + i), v[p]);
    }
    return i;
}

ALWAYS_INLINE int32_t unshuffle_vec(int S, int32_t q, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v[16];
        B2_UNROLL
        for (int p = 0; p < S; p++)
            v[p] = _mm256_loadu_si256((const __m256i *)(in + (size_t)plane_of(p, S) * q + i));
        transpose256_inv(v, S);
        B2_UNROLL
        for (int r = 0; r < S; r++)
            _mm256_storeu_si256((__m256i *)(out + (size_t)i * S + 32 * r), v[r]);
    }
    return i;
}

B2_DEFINE_SHUFFLE_PART(b2_shuffle_part_avx2, shuffle_vec, b2_shuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_avx2, b2_shuffle_part_avx2)

B2_DEFINE_SHUFFLE_PART(b2_unshuffle_part_avx2, unshuffle_vec, b2_unshuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_avx2, b2_unshuffle_part_avx2)
#endif
