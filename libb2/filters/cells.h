/* SPDX-License-Identifier: BSD-3-Clause */
/* Walking one block cell by cell, for the ndcell and ndmean filters
 * (doc/format/plugins.md): the block is tiled with cells, visited in C order of the cell
 * grid, and each cell's rows (runs along the last dimension) in C order of the
 * cell. Cells at the far edge of a dimension that the side does not divide are
 * partial. The walk keeps running offsets, so no item index is divided out. */
#ifndef B2_CELLS_H
#define B2_CELLS_H

#include <stdint.h>
#include <string.h>
#include "b2_chunk.h"
#include "b2_internal.h"

typedef struct b2_cells {
    int ndim;
    int64_t stride[B2_GEOM_MAX_DIM]; /* items between neighbours along d */
    int64_t side[B2_GEOM_MAX_DIM];   /* a whole cell's extent along d */
    int64_t tail[B2_GEOM_MAX_DIM];   /* extent of the last cell along d */
    int64_t count[B2_GEOM_MAX_DIM];  /* cells along d */
    int64_t hop[B2_GEOM_MAX_DIM];    /* origin step between neighbouring cells along d */
    /* the current cell */
    int64_t at[B2_GEOM_MAX_DIM];     /* its place in the cell grid */
    int64_t ext[B2_GEOM_MAX_DIM];    /* its extent */
    int64_t origin;                  /* its first item */
    int64_t items;                   /* ext[0] * ... * ext[ndim-1] */
    /* the current row of the current cell */
    int64_t k[B2_GEOM_MAX_DIM];      /* its place in the cell (dims 0..ndim-2) */
    int64_t row;                     /* its first item */
} b2_cells;

/* Set w on the first row of the first cell of a block of geom's shape (ndim
 * 1..B2_GEOM_MAX_DIM, every extent >= 1) with cells of side[d] >= 1 items
 * along d (a side past the extent makes one cell of the extent). Neighbouring
 * cell origins lie origin_side items apart along every dimension: the side
 * for a consistent tiling; ndmean's reference takes its first dimension's
 * side for all of them, which this reproduces. */
B2_HIDDEN void b2_cells_init(b2_cells *w, const b2_block_geometry *geom, const int64_t *side,
                             int64_t origin_side);

/* Items in a block of geom's shape into *nitems, after checking ndim (1..
 * B2_GEOM_MAX_DIM), the extents (>= 1) and that the block's bytes fit an
 * int32_t. filter names the caller in messages. Returns 0 or B2_ERR_FILTER. */
B2_HIDDEN int b2_cells_block_items(const char *filter, const b2_block_geometry *geom,
                                   int32_t typesize, int64_t *nitems);

/* Copy one row of len bytes. Rows are short (side * typesize bytes), so
 * fixed-size moves, overlapping when len is between two sizes, beat a memcpy
 * call of variable length. */
static inline void b2_cells_copy_row(uint8_t *dst, const uint8_t *src, size_t len)
{
    if (len >= 8 && len <= 32) {
        if (len <= 16) {
            memcpy(dst, src, 8);
            memcpy(dst + len - 8, src + len - 8, 8);
        } else {
            memcpy(dst, src, 16);
            memcpy(dst + len - 16, src + len - 16, 16);
        }
    } else if (len >= 4 && len < 8) {
        memcpy(dst, src, 4);
        memcpy(dst + len - 4, src + len - 4, 4);
    } else {
        memcpy(dst, src, len);
    }
}

/* Move to the next row of the current cell; 0 after its last row. */
static inline int b2_cells_next_row(b2_cells *w)
{
    for (int d = w->ndim - 2; d >= 0; d--) {
        w->row += w->stride[d];
        if (++w->k[d] < w->ext[d])
            return 1;
        w->row -= w->k[d] * w->stride[d];
        w->k[d] = 0;
    }
    return 0;
}

/* Move to the first row of the next cell; 0 after the last cell. */
static inline int b2_cells_next_cell(b2_cells *w)
{
    int d = w->ndim - 1;
    for (; d >= 0; d--) {
        w->origin += w->hop[d];
        if (++w->at[d] < w->count[d])
            break;
        w->origin -= w->at[d] * w->hop[d];
        w->at[d] = 0;
        w->ext[d] = w->count[d] == 1 ? w->tail[d] : w->side[d];
    }
    if (d < 0)
        return 0;
    w->ext[d] = w->at[d] == w->count[d] - 1 ? w->tail[d] : w->side[d];
    int64_t items = 1;
    for (int e = 0; e < w->ndim; e++)
        items *= w->ext[e];
    w->items = items;
    w->row = w->origin;
    return 1;
}

#endif
