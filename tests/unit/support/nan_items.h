/* SPDX-License-Identifier: BSD-3-Clause */
/* NaN special chunks decode to the machine's own float or double quiet NaN (as
 * c-blosc2 writes one), while the interop manifests hash the bytes x86 decoded:
 * little-endian NaNs. A big-endian reader is right to differ there, so the tests
 * that hash decoded vectors check those items as typed NaNs and hash them as the
 * little-endian bytes. */
#ifndef B2_TEST_NAN_ITEMS_H
#define B2_TEST_NAN_ITEMS_H

#include <stddef.h>
#include <stdint.h>

/* The n bytes at p hold items of ts bytes (4: float, 8: double; any other ts
 * counts every item as wrong) that must each be the machine's quiet NaN
 * (0x7fc00000 / 0x7ff8000000000000 in its own byte order). Rewrites them as the
 * little-endian bytes of that NaN; returns how many items were not that NaN. */
size_t test_nan_items_to_le(uint8_t *p, size_t n, int ts);

#endif
