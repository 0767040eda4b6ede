/* SPDX-License-Identifier: BSD-3-Clause */
/* Truncate precision (doc/format/filters.md §5): zero the z low mantissa bits of every
 * float32/float64 element. Lossy and without inverse; the decoder skips it. */
#include <string.h>
#include "filters.h"
#include "b2_common.h"

/* Bits to zero for this meta and typesize, or B2_ERR_FILTER. The sign and
 * exponent must stay intact, hence z < M. */
static int zero_bits(int8_t meta, int32_t typesize)
{
    int mant;
    if (typesize == 4)
        mant = 23;
    else if (typesize == 8)
        mant = 52;
    else
        return B2_FAIL(B2_ERR_FILTER, "trunc_prec on typesize %d (needs 4 or 8)", (int)typesize);
    int p = meta;
    int z = p > 0 ? mant - p : -p;
    B2_FAIL_IF(p == 0 || p > mant || -p > mant || z >= mant, B2_ERR_FILTER,
               "trunc_prec meta %d for a %d-bit mantissa", p, mant);
    return z;
}

int b2_trunc_prec(int8_t meta, int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst)
{
    int z = zero_bits(meta, typesize);
    if (z < 0)
        return z;
    if (n <= 0)
        return 0;
    size_t body = (size_t)(n / typesize) * typesize;
    if (typesize == 4) {
        uint32_t mask = ~(((uint32_t)1 << z) - 1);
        for (size_t i = 0; i < body; i += 4)
            b2_store_le32(dst + i, b2_load_le32(src + i) & mask);
    } else {
        uint64_t mask = ~(((uint64_t)1 << z) - 1);
        for (size_t i = 0; i < body; i += 8)
            b2_store_le64(dst + i, b2_load_le64(src + i) & mask);
    }
    memcpy(dst + body, src + body, (size_t)n - body);
    return 0;
}
