/* SPDX-License-Identifier: BSD-3-Clause */
/* Body of the vector delta kernels (doc/format/filters.md §4), included by
 * x86/delta_sse2.c, x86/delta_avx2.c, x86/delta_avx512.c and arm/delta_neon.c
 * after they define DELTA_ENCODE and DELTA_DECODE (the kernels' names) and, for
 * their vector type V of VB bytes: LOADU, STOREU, VXOR, VZERO, and
 *   prefix_local(v, u): running XOR of the u-byte words within v;
 *   bcast_last(v, u):   v's last u-byte word repeated across a vector;
 * and DELTA_DECODE_U8_PORTABLE where 8-byte words decode no faster in vectors.
 * XOR against block 0 or the previous word is byte-wise, so it vectorises
 * plainly. Decoding block 0 is a running XOR, serial word by word in the
 * portable code: here each vector does its own prefix in log steps, and the
 * carry from the vectors before it is one XOR, so vectors do not wait on each
 * other's shuffles. */
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

static void xor_vec(const uint8_t *a, const uint8_t *b, size_t len, uint8_t *dst)
{
    size_t i = 0;
    for (; i + 4 * VB <= len; i += 4 * VB) {
        V x0 = VXOR(LOADU(a + i), LOADU(b + i));
        V x1 = VXOR(LOADU(a + i + VB), LOADU(b + i + VB));
        V x2 = VXOR(LOADU(a + i + 2 * VB), LOADU(b + i + 2 * VB));
        V x3 = VXOR(LOADU(a + i + 3 * VB), LOADU(b + i + 3 * VB));
        STOREU(dst + i, x0);
        STOREU(dst + i + VB, x1);
        STOREU(dst + i + 2 * VB, x2);
        STOREU(dst + i + 3 * VB, x3);
    }
    for (; i + VB <= len; i += VB)
        STOREU(dst + i, VXOR(LOADU(a + i), LOADU(b + i)));
    for (; i < len; i++)
        dst[i] = a[i] ^ b[i];
}

/* x[i] = y[i] ^ x[i - u] over body bytes (the running XOR of u-byte words, seen
 * byte-wise). */
ALWAYS_INLINE void prefix_xor(int u, const uint8_t *src, size_t body, uint8_t *dst)
{
    V carry = VZERO;
    size_t i = 0;
    for (; i + VB <= body; i += VB) {
        V v = prefix_local(LOADU(src + i), u);
        STOREU(dst + i, VXOR(v, carry));
        carry = VXOR(carry, bcast_last(v, u));
    }
    for (; i < body; i++)
        dst[i] = (uint8_t)(src[i] ^ (i >= (size_t)u ? dst[i - (size_t)u] : 0));
}

void DELTA_ENCODE(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
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

void DELTA_DECODE(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
                  uint8_t *dst)
{
    if (n <= 0)
        return;
    int32_t u = b2_delta_unit(typesize);
#ifdef DELTA_DECODE_U8_PORTABLE
    if (!ref && u == 8) { /* two words a vector: the scalar chain is as fast */
        b2_delta_decode_generic(ref, typesize, n, src, dst);
        return;
    }
#endif
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
