/* SPDX-License-Identifier: BSD-3-Clause */
/* The b2nd tests' own model of an array: parameters from plain lists, and boxes
 * copied in and out of the whole array kept in C order, written here without
 * libb2's geometry so the tests do not check the library against itself. */
#ifndef B2_TEST_ND_MODEL_H
#define B2_TEST_ND_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "b2_nd.h"

/* p zeroed, then nd extents, chunk and block shapes (either may be NULL: left
 * 0, for b2_nd_default_shapes) and the typesize. */
void ndt_params(b2_nd_params *p, int nd, const int64_t *shape, const int32_t *chunk,
                const int32_t *block, int32_t typesize);

/* Items of an nd-dim shape (1 for nd = 0). */
int64_t ndt_nitems(int nd, const int64_t *shape);

/* Box [start, stop) of `full` (the whole array of that shape, C order) copied
 * out into `box` (the box alone, C order), or in from it. An empty box copies
 * nothing; nd = 0 copies the one item. */
void ndt_box_get(const uint8_t *full, const int64_t *shape, int nd, size_t ts,
                 const int64_t *start, const int64_t *stop, uint8_t *box);
void ndt_box_put(uint8_t *full, const int64_t *shape, int nd, size_t ts, const int64_t *start,
                 const int64_t *stop, const uint8_t *box);

#endif
