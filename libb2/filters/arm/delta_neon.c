/* SPDX-License-Identifier: BSD-3-Clause */
/* NEON delta kernels (doc/format/filters.md §4). XOR against block 0 or the
 * previous word is byte-wise and vectorises plainly. Decoding block 0 is a
 * running XOR of u-byte words: each vector does its own prefix in log steps
 * (byte shifts with ext), and the carry from the vectors before it is one XOR
 * with the previous vector's last word broadcast, so vectors do not wait on each
 * other's shifts. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

static void xor_vec(const uint8_t *a, const uint8_t *b, size_t len, uint8_t *dst)
{
    size_t i = 0;
    for (; i + 64 <= len; i += 64) {
        uint8x16_t x0 = veorq_u8(vld1q_u8(a + i), vld1q_u8(b + i));
        uint8x16_t x1 = veorq_u8(vld1q_u8(a + i + 16), vld1q_u8(b + i + 16));
        uint8x16_t x2 = veorq_u8(vld1q_u8(a + i + 32), vld1q_u8(b + i + 32));
        uint8x16_t x3 = veorq_u8(vld1q_u8(a + i + 48), vld1q_u8(b + i + 48));
        vst1q_u8(dst + i, x0);
        vst1q_u8(dst + i + 16, x1);
        vst1q_u8(dst + i + 32, x2);
        vst1q_u8(dst + i + 48, x3);
    }
    for (; i + 16 <= len; i += 16)
        vst1q_u8(dst + i, veorq_u8(vld1q_u8(a + i), vld1q_u8(b + i)));
    for (; i < len; i++)
        dst[i] = a[i] ^ b[i];
}

/* v moved k bytes up (towards the higher lanes), zeros shifted in. */
#define SHIFT_UP(v, k) vextq_u8(vdupq_n_u8(0), v, 16 - (k))

/* Running XOR of the u-byte words within v. */
ALWAYS_INLINE uint8x16_t prefix_local(uint8x16_t v, int u)
{
    if (u <= 1)
        v = veorq_u8(v, SHIFT_UP(v, 1));
    if (u <= 2)
        v = veorq_u8(v, SHIFT_UP(v, 2));
    if (u <= 4)
        v = veorq_u8(v, SHIFT_UP(v, 4));
    return veorq_u8(v, SHIFT_UP(v, 8));
}

/* v's last u-byte word repeated across a vector. */
ALWAYS_INLINE uint8x16_t bcast_last(uint8x16_t v, int u)
{
    switch (u) {
    case 1: return vdupq_laneq_u8(v, 15);
    case 2: return vreinterpretq_u8_u16(vdupq_laneq_u16(vreinterpretq_u16_u8(v), 7));
    case 4: return vreinterpretq_u8_u32(vdupq_laneq_u32(vreinterpretq_u32_u8(v), 3));
    default: return vreinterpretq_u8_u64(vdupq_laneq_u64(vreinterpretq_u64_u8(v), 1));
    }
}

/* x[i] = y[i] ^ x[i - u] over body bytes. */
ALWAYS_INLINE void prefix_xor(int u, const uint8_t *src, size_t body, uint8_t *dst)
{
    uint8x16_t carry = vdupq_n_u8(0);
    size_t i = 0;
    for (; i + 16 <= body; i += 16) {
        uint8x16_t v = prefix_local(vld1q_u8(src + i), u);
        vst1q_u8(dst + i, veorq_u8(v, carry));
        carry = veorq_u8(carry, bcast_last(v, u));
    }
    for (; i < body; i++)
        dst[i] = (uint8_t)(src[i] ^ (i >= (size_t)u ? dst[i - (size_t)u] : 0));
}

void b2_delta_encode_neon(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
                          uint8_t *dst)
{
    if (n <= 0)
        return;
    int32_t u = b2_delta_unit(typesize);
    size_t body = (size_t)(n / u) * u;
    if (ref) {
        xor_vec(src, ref, body, dst);
    } else if (body > 0) {
        memcpy(dst, src, (size_t)u);
        xor_vec(src + u, src, body - u, dst + u);
    }
    memcpy(dst + body, src + body, (size_t)n - body);
}

void b2_delta_decode_neon(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
                          uint8_t *dst)
{
    if (n <= 0)
        return;
    int32_t u = b2_delta_unit(typesize);
    size_t body = (size_t)(n / u) * u;
    if (ref) {
        xor_vec(src, ref, body, dst);
    } else {
        switch (u) {
        case 1: prefix_xor(1, src, body, dst); break;
        case 2: prefix_xor(2, src, body, dst); break;
        case 4: prefix_xor(4, src, body, dst); break;
        default: prefix_xor(8, src, body, dst); break;
        }
    }
    memcpy(dst + body, src + body, (size_t)n - body);
}
#endif
