/* SPDX-License-Identifier: BSD-3-Clause */
/* Setting up a cell walk (cells.h). */
#include <stdint.h>
#include <string.h>
#include "cells.h"

void b2_cells_init(b2_cells *w, const b2_block_geometry *geom, const int64_t *side,
                   int64_t origin_side)
{
    memset(w, 0, sizeof *w);
    int n = geom->ndim;
    w->ndim = n;
    int64_t stride = 1;
    for (int d = n - 1; d >= 0; d--) {
        int64_t extent = geom->blockshape[d];
        w->stride[d] = stride;
        w->side[d] = side[d];
        w->count[d] = (extent + side[d] - 1) / side[d];
        w->tail[d] = extent - (w->count[d] - 1) * side[d];
        w->hop[d] = origin_side * stride;
        w->ext[d] = w->count[d] == 1 ? w->tail[d] : side[d];
        stride *= extent;
    }
    w->items = 1;
    for (int d = 0; d < n; d++)
        w->items *= w->ext[d];
}

int b2_cells_block_items(const char *filter, const b2_block_geometry *geom, int32_t typesize,
                         int64_t *nitems)
{
    B2_FAIL_IF(geom->ndim < 1 || geom->ndim > B2_GEOM_MAX_DIM, B2_ERR_FILTER,
               "%s: block geometry ndim %d is not 1..%d", filter, geom->ndim, B2_GEOM_MAX_DIM);
    int64_t items = 1;
    for (int d = 0; d < geom->ndim; d++) {
        B2_FAIL_IF(geom->blockshape[d] < 1, B2_ERR_FILTER, "%s: blockshape[%d] = %d", filter, d,
                   (int)geom->blockshape[d]);
        items *= geom->blockshape[d];
        B2_FAIL_IF(items * typesize > INT32_MAX, B2_ERR_FILTER,
                   "%s: a block of this shape exceeds %d bytes", filter, INT32_MAX);
    }
    *nitems = items;
    return 0;
}
