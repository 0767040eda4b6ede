/* SPDX-License-Identifier: BSD-3-Clause */
/* Integer truncation (doc/format/plugins.md, id 36): clear low bits of every element of
 * an integer type of 1, 2, 4 or 8 bytes. The meta byte is signed: p > 0 keeps
 * the p high bits of the element, p < 0 clears the -p low bits; at least one
 * bit must survive. Lossy without inverse: decoding is a copy, so the pipeline
 * skips it when undoing. Bytes past the last whole element are copied. */
#include <string.h>
#include "filters.h"
#include "b2_common.h"

/* Bits to clear for this meta and typesize, or B2_ERR_FILTER. */
static int cleared_bits(int8_t meta, int32_t typesize)
{
    B2_FAIL_IF(typesize != 1 && typesize != 2 && typesize != 4 && typesize != 8, B2_ERR_FILTER,
               "int_trunc on typesize %d (needs 1, 2, 4 or 8)", (int)typesize);
    int bits = 8 * typesize, p = meta;
    B2_FAIL_IF(p == 0 || p > bits || -p >= bits, B2_ERR_FILTER,
               "int_trunc meta %d for %d-bit integers", p, bits);
    return p > 0 ? bits - p : -p;
}

int b2_int_trunc(int8_t meta, int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst)
{
    int z = cleared_bits(meta, typesize);
    if (z < 0)
        return z;
    if (n <= 0)
        return 0;
    /* Elements are little-endian: byte k of an element takes byte k of the mask. */
    uint64_t mask = ~(((uint64_t)1 << z) - 1);
    uint8_t mbytes[8];
    for (int k = 0; k < 8; k++)
        mbytes[k] = (uint8_t)(mask >> (8 * k));
    size_t body = (size_t)(n / typesize) * (size_t)typesize;
    for (size_t i = 0; i < body; i += (size_t)typesize)
        for (int32_t k = 0; k < typesize; k++)
            dst[i + (size_t)k] = (uint8_t)(src[i + (size_t)k] & mbytes[k]);
    memcpy(dst + body, src + body, (size_t)n - body);
    return 0;
}
