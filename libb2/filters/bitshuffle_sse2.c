/* SSE2 bit shuffle kernels for typesizes 1, 2, 4, 8 and 16 (others use the
 * portable code). Per step, 16 elements are byte-transposed in registers; then
 * movemask of each byte plane yields 16 bits of a row (bit 7 first, the plane
 * being doubled between masks to bring the next bit up). The inverse builds the
 * same movemask trick on the 8 row words of a plane and re-interleaves. */
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

static inline uint16_t load16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Bit-transpose 16 elements at `in`: row r's 2 bytes go to rows + r*stride. */
ALWAYS_INLINE void bitshuffle_step(int S, const uint8_t *in, uint8_t *rows, size_t stride)
{
    __m128i v[16];
    B2_UNROLL
    for (int r = 0; r < S; r++)
        v[r] = _mm_loadu_si128((const __m128i *)(in + 16 * r));
    transpose128_fwd(v, S);
    B2_UNROLL
    for (int p = 0; p < S; p++) {
        uint8_t *row = rows + (size_t)8 * plane_of(p, S) * stride;
        __m128i x = v[p];
        B2_UNROLL
        for (int b = 7; b >= 0; b--) {
            uint16_t m = (uint16_t)_mm_movemask_epi8(x);
            memcpy(row + (size_t)b * stride, &m, sizeof m);
            x = _mm_add_epi8(x, x);
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
        for (int32_t k = 0; k < BATCH; k += 16)
            bitshuffle_step(S, in + (size_t)(i + k) * S, buf + k / 8, BATCH / 8);
        B2_UNROLL
        for (int r = 0; r < 8 * S; r++)
            memcpy(out + (size_t)r * rowlen + i / 8, buf + r * (BATCH / 8), BATCH / 8);
    }
    for (; i + 16 <= e8; i += 16)
        bitshuffle_step(S, in + (size_t)i * S, out + i / 8, rowlen);
    return i;
}

/* Rebuild byte plane j of 16 elements from the 16-bit words of its 8 rows. */
static inline __m128i plane_from_rows(const uint8_t *row, size_t rowlen)
{
    const __m128i lo = _mm_set1_epi16(0x00ff);
    __m128i x = _mm_set_epi16((short)load16(row + 7 * rowlen), (short)load16(row + 6 * rowlen),
                              (short)load16(row + 5 * rowlen), (short)load16(row + 4 * rowlen),
                              (short)load16(row + 3 * rowlen), (short)load16(row + 2 * rowlen),
                              (short)load16(row + rowlen), (short)load16(row));
    /* bytes 0-7: rows 0-7 for elements 0-7; bytes 8-15: the same for 8-15, so a
     * movemask gives element 7's byte (low) and element 15's (high). */
    x = _mm_packus_epi16(_mm_and_si128(x, lo), _mm_srli_epi16(x, 8));
    int u[8];
    B2_UNROLL
    for (int m = 7; m >= 0; m--) {
        u[m] = _mm_movemask_epi8(x);
        x = _mm_add_epi8(x, x);
    }
    /* word m = (element m, element m+8); unzip into element order. */
    __m128i w = _mm_set_epi16((short)u[7], (short)u[6], (short)u[5], (short)u[4],
                              (short)u[3], (short)u[2], (short)u[1], (short)u[0]);
    return _mm_packus_epi16(_mm_and_si128(w, lo), _mm_srli_epi16(w, 8));
}

ALWAYS_INLINE int32_t bitunshuffle_vec(int S, int32_t e8, const uint8_t *in, uint8_t *out)
{
    size_t rowlen = (size_t)e8 / 8;
    int32_t i = 0;
    for (; i + 16 <= e8; i += 16) {
        __m128i v[16];
        B2_UNROLL
        for (int p = 0; p < S; p++)
            v[p] = plane_from_rows(in + (size_t)8 * plane_of(p, S) * rowlen + i / 8, rowlen);
        transpose128_inv(v, S);
        B2_UNROLL
        for (int r = 0; r < S; r++)
            _mm_storeu_si128((__m128i *)(out + (size_t)i * S + 16 * r), v[r]);
    }
    return i;
}

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitshuffle_sse2, bitshuffle_vec, b2_bitshuffle_groups)

B2_DEFINE_BITSHUFFLE_ENTRY(b2_bitunshuffle_sse2, bitunshuffle_vec, b2_bitunshuffle_groups)
#endif
