/* SPDX-License-Identifier: BSD-3-Clause */
/* NEON byte shuffle kernels for units 2, 4, 8 and 16 (other units use the
 * portable loop), 16 elements a step. The structured loads and stores do most
 * of the transpose: vld2q/vld4q split bytes by their index mod 2 or 4 (vst2q/
 * vst4q interleave them back), and units of 8 and 16 finish with one or two
 * rounds of even/odd unzips (uzp1/uzp2; zip1/zip2 the other way). Units of 8
 * and 16 go through the staging area of simd_kernels.h. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* Elements [i, i + 16) of S bytes at in + i*S -> byte planes q apart at out + i.
 * vld4q of 64 bytes holding e = 64/S elements puts byte k + 4h of element x at
 * lane x*(S/4) + h of val[k]; unzipping val[k] of consecutive loads splits h
 * into planes k + 4h. */
ALWAYS_INLINE void shuffle_step(int S, int32_t q, int32_t i, const uint8_t *in, uint8_t *out)
{
    const uint8_t *src = in + (size_t)i * S;
    uint8_t *dst = out + i;
    if (S == 2) {
        uint8x16x2_t a = vld2q_u8(src);
        vst1q_u8(dst, a.val[0]);
        vst1q_u8(dst + q, a.val[1]);
    } else if (S == 4) {
        uint8x16x4_t a = vld4q_u8(src);
        B2_UNROLL
        for (int k = 0; k < 4; k++)
            vst1q_u8(dst + (size_t)k * q, a.val[k]);
    } else if (S == 8) {
        uint8x16x4_t a = vld4q_u8(src), b = vld4q_u8(src + 64);
        B2_UNROLL
        for (int k = 0; k < 4; k++) {
            vst1q_u8(dst + (size_t)k * q, vuzp1q_u8(a.val[k], b.val[k]));
            vst1q_u8(dst + (size_t)(k + 4) * q, vuzp2q_u8(a.val[k], b.val[k]));
        }
    } else { /* 16 */
        uint8x16x4_t l0 = vld4q_u8(src), l1 = vld4q_u8(src + 64);
        uint8x16x4_t l2 = vld4q_u8(src + 128), l3 = vld4q_u8(src + 192);
        B2_UNROLL
        for (int k = 0; k < 4; k++) {
            /* h in {0, 2} and {1, 3} of elements 0-7, then of 8-15 */
            uint8x16_t x01 = vuzp1q_u8(l0.val[k], l1.val[k]), y01 = vuzp2q_u8(l0.val[k], l1.val[k]);
            uint8x16_t x23 = vuzp1q_u8(l2.val[k], l3.val[k]), y23 = vuzp2q_u8(l2.val[k], l3.val[k]);
            vst1q_u8(dst + (size_t)k * q, vuzp1q_u8(x01, x23));
            vst1q_u8(dst + (size_t)(k + 8) * q, vuzp2q_u8(x01, x23));
            vst1q_u8(dst + (size_t)(k + 4) * q, vuzp1q_u8(y01, y23));
            vst1q_u8(dst + (size_t)(k + 12) * q, vuzp2q_u8(y01, y23));
        }
    }
}

B2_DEFINE_SHUFFLE_VEC(shuffle_vec, shuffle_step, 16)

/* The inverse: 16 elements from the planes pl[b] + i to out, the zips undoing
 * the unzips above in reverse order. */
ALWAYS_INLINE void unshuffle_step(int S, const uint8_t *const *pl, int32_t i, uint8_t *out)
{
    if (S == 2) {
        uint8x16x2_t a = {{vld1q_u8(pl[0] + i), vld1q_u8(pl[1] + i)}};
        vst2q_u8(out, a);
    } else if (S == 4) {
        uint8x16x4_t a;
        B2_UNROLL
        for (int k = 0; k < 4; k++)
            a.val[k] = vld1q_u8(pl[k] + i);
        vst4q_u8(out, a);
    } else if (S == 8) {
        uint8x16x4_t a, b;
        B2_UNROLL
        for (int k = 0; k < 4; k++) {
            uint8x16_t lo = vld1q_u8(pl[k] + i), hi = vld1q_u8(pl[k + 4] + i);
            a.val[k] = vzip1q_u8(lo, hi);
            b.val[k] = vzip2q_u8(lo, hi);
        }
        vst4q_u8(out, a);
        vst4q_u8(out + 64, b);
    } else { /* 16 */
        uint8x16x4_t l0, l1, l2, l3;
        B2_UNROLL
        for (int k = 0; k < 4; k++) {
            uint8x16_t p0 = vld1q_u8(pl[k] + i), p8 = vld1q_u8(pl[k + 8] + i);
            uint8x16_t p4 = vld1q_u8(pl[k + 4] + i), p12 = vld1q_u8(pl[k + 12] + i);
            uint8x16_t x01 = vzip1q_u8(p0, p8), x23 = vzip2q_u8(p0, p8);
            uint8x16_t y01 = vzip1q_u8(p4, p12), y23 = vzip2q_u8(p4, p12);
            l0.val[k] = vzip1q_u8(x01, y01);
            l1.val[k] = vzip2q_u8(x01, y01);
            l2.val[k] = vzip1q_u8(x23, y23);
            l3.val[k] = vzip2q_u8(x23, y23);
        }
        vst4q_u8(out, l0);
        vst4q_u8(out + 64, l1);
        vst4q_u8(out + 128, l2);
        vst4q_u8(out + 192, l3);
    }
}

B2_DEFINE_UNSHUFFLE_VEC(unshuffle_vec, unshuffle_step, 16)

B2_DEFINE_SHUFFLE_PART(b2_shuffle_part_neon, shuffle_vec, b2_shuffle_range)
B2_DEFINE_SHUFFLE_ENTRY(b2_shuffle_neon, b2_shuffle_part_neon)

B2_DEFINE_UNSHUFFLE_PLANES(b2_unshuffle_planes_neon, unshuffle_vec)
B2_DEFINE_UNSHUFFLE_PART(b2_unshuffle_part_neon, b2_unshuffle_planes_neon)
B2_DEFINE_SHUFFLE_ENTRY(b2_unshuffle_neon, b2_unshuffle_part_neon)
#endif
