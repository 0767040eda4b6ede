/* SPDX-License-Identifier: BSD-3-Clause */
/* BloscLZ encoder with a NEON match scan: 16 bytes a compare, 32 a step while
 * they fit. NEON has no byte movemask: the equality mask is narrowed to 4 bits a
 * byte (shift right and narrow of its 16-bit lanes), one 64-bit word whose
 * lowest clear nibble is the first mismatch. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

/* 4 bits per byte of a == b, byte 0 in bits 0-3. */
static inline uint64_t blz_eq16(const uint8_t *a, const uint8_t *b)
{
    uint8x16_t eq = vceqq_u8(vld1q_u8(a), vld1q_u8(b));
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(eq), 4)), 0);
}

static inline size_t blz_mismatch(const uint8_t *in, size_t from, size_t bound, size_t dist)
{
    size_t p = from;
    while (p + 32 <= bound) {
        uint64_t e0 = blz_eq16(in + p, in + p - dist);
        if (e0 != UINT64_MAX)
            return p + (size_t)(__builtin_ctzll(~e0) >> 2);
        uint64_t e1 = blz_eq16(in + p + 16, in + p + 16 - dist);
        if (e1 != UINT64_MAX)
            return p + 16 + (size_t)(__builtin_ctzll(~e1) >> 2);
        p += 32;
    }
    if (p + 16 <= bound) {
        uint64_t e = blz_eq16(in + p, in + p - dist);
        if (e != UINT64_MAX)
            return p + (size_t)(__builtin_ctzll(~e) >> 2);
        p += 16;
    }
    while (p < bound && in[p] == in[p - dist])
        p++;
    return p;
}

#define BLZ_COMPRESS b2_blosclz_compress_neon
#include "blosclz_encode_template.h"
#endif
