/* SPDX-License-Identifier: BSD-3-Clause */
/* ndcell (filter 32, doc/format/plugins.md): lossless reordering of one n-dimensional
 * block cell by cell. Forward writes the cells one after another in C order of
 * the cell grid, each as its rows in C order; cells of side s hold s^ndim
 * items, fewer at the far edges where s does not divide the block's extent.
 * Backward puts every row back. The meta byte is the side, read unsigned
 * (1..255) as c-blosc2 3.3 does. Like the reference, a block must be whole and
 * hold at least one full cell's worth of items (s^ndim, even when s exceeds an
 * extent). */
#include <string.h>
#include "filters.h"
#include "cells.h"

/* Check the parameters; with a geometry, also the block (n = 0: any size).
 * Without one only the meta byte can be judged: cparams are checked before a
 * frame's b2nd metalayer (and so the geometry) is known, and a block that
 * arrives with still none is refused then. */
static int check(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n)
{
    int side = (uint8_t)meta;
    B2_FAIL_IF(side == 0, B2_ERR_FILTER, "ndcell meta 0: the cell side must be 1..255");
    B2_FAIL_IF(typesize < 1, B2_ERR_FILTER, "ndcell typesize %d", (int)typesize);
    if (!geom) {
        B2_FAIL_IF(n != 0, B2_ERR_FILTER,
                   "ndcell needs the block shape (a b2nd array, or b2_dctx_set_geometry)");
        return 0;
    }
    int64_t items;
    int rc = b2_cells_block_items("ndcell", geom, typesize, &items);
    if (rc < 0)
        return rc;
    int64_t cell = 1;
    for (int d = 0; d < geom->ndim && cell <= items; d++)
        cell *= side;
    B2_FAIL_IF(cell > items, B2_ERR_FILTER,
               "ndcell cells of side %d (%d dims) hold more than the block's %lld items", side,
               geom->ndim, (long long)items);
    B2_FAIL_IF(n != 0 && n != items * typesize, B2_ERR_FILTER,
               "ndcell on %d bytes, but a block of this shape holds %lld", (int)n,
               (long long)(items * typesize));
    return 0;
}

/* Walk the block's cells; forward gathers rows into dst, backward scatters. */
static void walk(int side, int32_t typesize, const b2_block_geometry *geom, const uint8_t *src,
                 uint8_t *dst, int forward)
{
    int64_t sides[B2_GEOM_MAX_DIM];
    for (int d = 0; d < geom->ndim; d++)
        sides[d] = side;
    b2_cells w;
    b2_cells_init(&w, geom, sides, side);
    size_t ts = (size_t)typesize;
    const uint8_t *ip = src;
    uint8_t *op = dst;
    do {
        size_t len = (size_t)w.ext[geom->ndim - 1] * ts;
        if (forward)
            do {
                b2_cells_copy_row(op, src + (size_t)w.row * ts, len);
                op += len;
            } while (b2_cells_next_row(&w));
        else
            do {
                b2_cells_copy_row(dst + (size_t)w.row * ts, ip, len);
                ip += len;
            } while (b2_cells_next_row(&w));
    } while (b2_cells_next_cell(&w));
}

int b2_ndcell_forward(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                      const uint8_t *src, uint8_t *dst)
{
    int rc = check(meta, typesize, geom, n);
    if (rc == 0 && n > 0)
        walk((uint8_t)meta, typesize, geom, src, dst, 1);
    return rc;
}

int b2_ndcell_backward(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                       const uint8_t *src, uint8_t *dst)
{
    int rc = check(meta, typesize, geom, n);
    if (rc == 0 && n > 0)
        walk((uint8_t)meta, typesize, geom, src, dst, 0);
    return rc;
}
