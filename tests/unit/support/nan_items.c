/* SPDX-License-Identifier: BSD-3-Clause */
/* Typed NaN items rewritten as the manifests' little-endian bytes (nan_items.h). */
#include <string.h>

#include "nan_items.h"

size_t test_nan_items_to_le(uint8_t *p, size_t n, int ts)
{
    if (ts != 4 && ts != 8)
        return n;
    size_t bad = n % (size_t)ts ? 1 : 0;
    uint64_t want = ts == 4 ? 0x7fc00000u : 0x7ff8000000000000ull;
    for (size_t o = 0; o + (size_t)ts <= n; o += (size_t)ts) {
        uint64_t v;
        if (ts == 4) {
            uint32_t f;
            memcpy(&f, p + o, 4);
            v = f;
        } else {
            memcpy(&v, p + o, 8);
        }
        if (v != want)
            bad++;
        for (int k = 0; k < ts; k++) /* little-endian bytes of the value */
            p[o + (size_t)k] = (uint8_t)(want >> (8 * k));
    }
    return bad;
}
