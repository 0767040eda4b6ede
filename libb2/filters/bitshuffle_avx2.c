/* AVX2 bit shuffle kernels for typesizes 1, 2, 4, 8 and 16 (others use the
 * portable code): the scheme of bitshuffle_sse2.c with 32 elements per step,
 * so each movemask yields 4 bytes of a row. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

static inline int32_t load32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Bit-transpose 32 elements at `in`: row r's 4 bytes go to rows + r*stride. */
ALWAYS_INLINE void bitshuffle_step(int S, const uint8_t *in, uint8_t *rows, size_t stride)
{
    __m256i v[16];
    B2_UNROLL
    for (int r = 0; r < S; r++)
        v[r] = _mm256_loadu_si256((const __m256i *)(in + 32 * r));
    transpose256_fwd(v, S);
    B2_UNROLL
    for (int p = 0; p < S; p++) {
        uint8_t *row = rows + (size_t)8 * plane_of(p, S) * stride;
        __m256i x = v[p];
        B2_UNROLL
        for (int b = 7; b >= 0; b--) {
            int32_t m = (int32_t)_mm256_movemask_epi8(x);
            memcpy(row + (size_t)b * stride, &m, sizeof m);
            x = _mm256_add_epi8(x, x);
        }
    }
}

/* Elements per batch: each row then gets a whole 64-byte line at once. Storing
 * a few bytes into each of 8*S rows that lie a power of two apart thrashes the
 * L1 sets, so the batch is gathered in a small local buffer first. */
#define BATCH 512

ALWAYS_INLINE int32_t bitshuffle_vec(int S, int32_t e8, const uint8_t *in, uint8_t *out)
{
    size_t rowlen = (size_t)e8 / 8;
    int32_t i = 0;
    for (; i + BATCH <= e8; i += BATCH) {
        uint8_t buf[8 * 16 * (BATCH / 8)] __attribute__((aligned(64)));
        for (int32_t k = 0; k < BATCH; k += 32)
            bitshuffle_step(S, in + (size_t)(i + k) * S, buf + k / 8, BATCH / 8);
        B2_UNROLL
        for (int r = 0; r < 8 * S; r++)
            memcpy(out + (size_t)r * rowlen + i / 8, buf + r * (BATCH / 8), BATCH / 8);
    }
    for (; i + 32 <= e8; i += 32)
        bitshuffle_step(S, in + (size_t)i * S, out + i / 8, rowlen);
    return i;
}

/* 4x8 byte transpose: output byte 8c + d = byte c of input dword d. */
static inline __m256i transpose_4x8(__m256i v)
{
    const __m256i in_lane = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                             0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    return _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, in_lane), order);
}

/* Rebuild byte plane j of 32 elements from the 32-bit words of its 8 rows. */
static inline __m256i plane_from_rows(const uint8_t *row, size_t rowlen)
{
    __m256i x = _mm256_setr_epi32(load32(row), load32(row + rowlen), load32(row + 2 * rowlen),
                                  load32(row + 3 * rowlen), load32(row + 4 * rowlen),
                                  load32(row + 5 * rowlen), load32(row + 6 * rowlen),
                                  load32(row + 7 * rowlen));
    /* byte 8c + b = bits of elements 8c..8c+7 in row b, so a movemask gives the
     * bytes of elements 7, 15, 23, 31 (then 6, 14, ... after doubling). */
    x = transpose_4x8(x);
    int32_t u[8];
    B2_UNROLL
    for (int m = 7; m >= 0; m--) {
        u[m] = _mm256_movemask_epi8(x);
        x = _mm256_add_epi8(x, x);
    }
    /* dword m byte c = element 8c + m; put element e at byte e. */
    return transpose_4x8(_mm256_setr_epi32(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]));
}

ALWAYS_INLINE int32_t bitunshuffle_vec(int S, int32_t e8, const uint8_t *in, uint8_t *out)
{
    size_t rowlen = (size_t)e8 / 8;
    int32_t i = 0;
    for (; i + 32 <= e8; i += 32) {
        __m256i v[16];
        B2_UNROLL
        for (int p = 0; p < S; p++)
            v[p] = plane_from_rows(in + (size_t)8 * plane_of(p, S) * rowlen + i / 8, rowlen);
        transpose256_inv(v, S);
        B2_UNROLL
        for (int r = 0; r < S; r++)
            _mm256_storeu_si256((__m256i *)(out + (size_t)i * S + 32 * r), v[r]);
    }
    return i;
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_avx2, bitshuffle_vec, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_avx2, bitunshuffle_vec, b2_bitunshuffle_groups)
#endif
