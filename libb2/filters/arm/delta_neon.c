/* SPDX-License-Identifier: BSD-3-Clause */
/* NEON delta kernels (delta_template.h): the prefix of a vector's words in log
 * steps of byte shifts with ext, its last word broadcast with a lane dup. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include "simd_kernels.h"

typedef uint8x16_t V;
#define VB 16
#define LOADU(p) vld1q_u8(p)
#define STOREU(p, v) vst1q_u8((p), (v))
#define VXOR veorq_u8
#define VZERO vdupq_n_u8(0)

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

#define DELTA_ENCODE b2_delta_encode_neon
#define DELTA_DECODE b2_delta_decode_neon
#include "delta_template.h"
#endif
