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

ALWAYS_INLINE int32_t bitshuffle_vec(int S, int32_t e8, const uint8_t *in, uint8_t *out)
{
    size_t rowlen = (size_t)e8 / 8;
    int32_t i = 0;
    for (; i + 16 <= e8; i += 16) {
        __m128i v[16];
        for (int r = 0; r < S; r++)
            v[r] = _mm_loadu_si128((const __m128i *)(in + (size_t)i * S + 16 * r));
        transpose128_fwd(v, S);
        for (int p = 0; p < S; p++) {
            uint8_t *row = out + (size_t)8 * plane_of(p, S) * rowlen + i / 8;
            __m128i x = v[p];
            for (int b = 7; b >= 0; b--) {
                uint16_t m = (uint16_t)_mm_movemask_epi8(x);
                memcpy(row + (size_t)b * rowlen, &m, 2);
                x = _mm_add_epi8(x, x);
            }
        }
    }
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
        for (int p = 0; p < S; p++)
            v[p] = plane_from_rows(in + (size_t)8 * plane_of(p, S) * rowlen + i / 8, rowlen);
        transpose128_inv(v, S);
        for (int r = 0; r < S; r++)
            _mm_storeu_si128((__m128i *)(out + (size_t)i * S + 16 * r), v[r]);
    }
    return i;
}

void b2_bitshuffle_sse2(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst)
{
    if (ts < 1 || n <= 0) {
        if (n > 0)
            memcpy(dst, src, (size_t)n);
        return;
    }
    int32_t e8 = (n / ts) & ~7, done;
    switch (ts) {
    case 1: done = bitshuffle_vec(1, e8, src, dst); break;
    case 2: done = bitshuffle_vec(2, e8, src, dst); break;
    case 4: done = bitshuffle_vec(4, e8, src, dst); break;
    case 8: done = bitshuffle_vec(8, e8, src, dst); break;
    case 16: done = bitshuffle_vec(16, e8, src, dst); break;
    default: done = 0; break;
    }
    b2_bitshuffle_groups(ts, e8, done / 8, e8 / 8, src, dst);
    int32_t t = e8 * ts;
    memcpy(dst + t, src + t, (size_t)(n - t));
}

void b2_bitunshuffle_sse2(int32_t ts, int32_t n, const uint8_t *src, uint8_t *dst)
{
    if (ts < 1 || n <= 0) {
        if (n > 0)
            memcpy(dst, src, (size_t)n);
        return;
    }
    int32_t e8 = (n / ts) & ~7, done;
    switch (ts) {
    case 1: done = bitunshuffle_vec(1, e8, src, dst); break;
    case 2: done = bitunshuffle_vec(2, e8, src, dst); break;
    case 4: done = bitunshuffle_vec(4, e8, src, dst); break;
    case 8: done = bitunshuffle_vec(8, e8, src, dst); break;
    case 16: done = bitunshuffle_vec(16, e8, src, dst); break;
    default: done = 0; break;
    }
    b2_bitunshuffle_groups(ts, e8, done / 8, e8 / 8, src, dst);
    int32_t t = e8 * ts;
    memcpy(dst + t, src + t, (size_t)(n - t));
}
#endif
