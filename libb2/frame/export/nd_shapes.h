/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the shape part of a "b2nd" metalayer (doc/format/b2nd.md §1) with msgpack-c, one
 * scalar at a time: every marker is checked before msgpack-c sees it, so hostile
 * content never makes it allocate for a declared array or string size. Shared by
 * the frame layer (block geometry for the n-dimensional plugins) and the b2nd
 * layer (the whole metalayer). */
#ifndef B2_ND_SHAPES_H
#define B2_ND_SHAPES_H

#include <msgpack.h>
#include <stddef.h>
#include <stdint.h>
#include "b2_internal.h"

#define B2_ND_SHAPES_MAX_DIM 16

typedef struct b2_nd_shapes {
    int version, ndim;
    int legacy; /* the 5-entry layout without dtype (array marker 0x95) */
    int64_t shape[B2_ND_SHAPES_MAX_DIM];
    int32_t chunkshape[B2_ND_SHAPES_MAX_DIM], blockshape[B2_ND_SHAPES_MAX_DIM];
} b2_nd_shapes;

/* Unpack the scalar at buf[*off] (its marker already checked) into *obj. */
B2_HIDDEN int b2_mp_unpack_scalar(const uint8_t *buf, size_t len, size_t *off,
                                  msgpack_object *obj, msgpack_unpacked *u);
/* Read an integer whose marker must be exactly marker (0: a positive fixint). */
B2_HIDDEN int b2_mp_read_int(const uint8_t *buf, size_t len, size_t *off, int marker,
                             int64_t *val, msgpack_unpacked *u);
/* Read the array marker, version, ndim, shape, chunkshape and blockshape from p;
 * *off is left after the block shape. The values are not checked against each
 * other (b2_nd_shapes_check in the b2nd layer does that). */
B2_HIDDEN int b2_nd_shapes_read(const uint8_t *p, size_t len, b2_nd_shapes *s, size_t *off,
                                msgpack_unpacked *u);

#endif
