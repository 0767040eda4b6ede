/* SPDX-License-Identifier: BSD-3-Clause */
/* "Readable by the reference" for zlib chunks our default build writes with
 * libdeflate: every zlib stream of the chunk inflates with the system zlib (the
 * library c-blosc2 decodes them with) to exactly its stream's size. */
#ifndef B2_TEST_ZLIB_REF_H
#define B2_TEST_ZLIB_REF_H

#include <stddef.h>
#include <stdint.h>

/* Walk the streams of the (non-VL) chunk at c (n bytes) and inflate each zlib
 * stream with zlib. Returns the number of zlib streams inflated (0 for a chunk
 * with none: special, memcpy, all runs), or -1 when one fails (message on stdout). */
int b2t_zlib_ref_inflate(const uint8_t *c, size_t n);

#endif
