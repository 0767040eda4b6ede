/* SPDX-License-Identifier: BSD-3-Clause */
/* Delta filter (doc/format/filters.md §4), portable kernels: XOR of u-byte words (u =
 * b2_delta_unit). Block 0 (ref == NULL)
 * is coded as a running XOR of consecutive words; other blocks are XORed with
 * the decoded block 0. The n - m*u tail bytes are copied unchanged. */
#include <string.h>
#include "filters.h"
#include "simd_kernels.h"

/* dst = a XOR b over len bytes, 8 bytes at a time (XOR is byte-wise, so the
 * word grouping does not matter here). */
static void xor_bytes(const uint8_t *a, const uint8_t *b, size_t len, uint8_t *dst)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        x ^= y;
        memcpy(dst + i, &x, 8);
    }
    for (; i < len; i++)
        dst[i] = a[i] ^ b[i];
}

void b2_delta_encode_generic(const uint8_t *ref, int32_t typesize, int32_t n,
                             const uint8_t *src, uint8_t *dst)
{
    if (n <= 0)
        return;
    int32_t u = b2_delta_unit(typesize);
    size_t body = (size_t)(n / u) * u;
    if (ref) {
        xor_bytes(src, ref, body, dst);
    } else if (body > 0) {
        /* y[i] = x[i] ^ x[i-1] word-wise is, byte-wise, a XOR with the byte u
         * positions back; src and dst never alias, so this reads only input. */
        memcpy(dst, src, (size_t)u);
        xor_bytes(src + u, src, body - u, dst + u);
    }
    memcpy(dst + body, src + body, (size_t)n - body);
}

/* Running XOR: x[i] = y[i] ^ x[i-1], one u-byte word at a time. */
#define PREFIX_XOR(T)                                   \
    do {                                                \
        T acc = 0, w;                                   \
        for (size_t i = 0; i < body; i += sizeof(T)) {  \
            memcpy(&w, src + i, sizeof(T));             \
            acc ^= w;                                   \
            memcpy(dst + i, &acc, sizeof(T));           \
        }                                               \
    } while (0)

void b2_delta_decode_generic(const uint8_t *ref, int32_t typesize, int32_t n,
                             const uint8_t *src, uint8_t *dst)
{
    if (n <= 0)
        return;
    int32_t u = b2_delta_unit(typesize);
    size_t body = (size_t)(n / u) * u;
    if (ref) {
        xor_bytes(src, ref, body, dst);
    } else {
        switch (u) {
        case 1: PREFIX_XOR(uint8_t); break;
        case 2: PREFIX_XOR(uint16_t); break;
        case 4: PREFIX_XOR(uint32_t); break;
        default: PREFIX_XOR(uint64_t); break;
        }
    }
    memcpy(dst + body, src + body, (size_t)n - body);
}
