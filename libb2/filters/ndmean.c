/* SPDX-License-Identifier: BSD-3-Clause */
/* ndmean (filter 33, doc/format/plugins.md): lossy; every cell of an n-dimensional block
 * of float32 or float64 becomes its mean. The meta byte, read signed, is the
 * cell side (1..127), cut to the block's extent along each dimension; cells at
 * the far edges are partial. Forward writes the cells one after another, as
 * ndcell does, each filled with its mean; backward scatters them back in place.
 *
 * The means are c-blosc2 3.3's to the bit: items are summed in the element type
 * starting from +0, row by row in C order of the cell, and the sum divided by
 * the cell's item count converted to that type. Its cell origins also step by
 * the first dimension's side along every dimension; that only differs from the
 * sides of the tiling when the first extent is below the meta while another is
 * not, and is reproduced (the rows then overlap and miss some items). */
#include <string.h>
#include "filters.h"
#include "cells.h"

/* As ndcell's check (ndcell.c), plus the element type; with a geometry, fill
 * the cell sides. */
static int check(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                 int64_t *sides)
{
    B2_FAIL_IF(typesize != 4 && typesize != 8, B2_ERR_FILTER,
               "ndmean on typesize %d (needs float32 or float64)", (int)typesize);
    B2_FAIL_IF(meta <= 0, B2_ERR_FILTER, "ndmean meta %d: the cell side must be 1..127",
               (int)meta);
    if (!geom) {
        B2_FAIL_IF(n != 0, B2_ERR_FILTER,
                   "ndmean needs the block shape (a b2nd array, or b2_dctx_set_geometry)");
        return 0;
    }
    int64_t items;
    int rc = b2_cells_block_items("ndmean", geom, typesize, &items);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(n != 0 && n != items * typesize, B2_ERR_FILTER,
               "ndmean on %d bytes, but a block of this shape holds %lld", (int)n,
               (long long)(items * typesize));
    for (int d = 0; d < geom->ndim; d++)
        sides[d] = meta < geom->blockshape[d] ? meta : geom->blockshape[d];
    return 0;
}

/* Sum the current cell's items in the element type T, in the reference's
 * order, and write the cell at op as copies of sum / items; returns the end. */
#define DEFINE_MEAN_CELL(name, T)                                              \
    static uint8_t *name(b2_cells *w, const uint8_t *src, uint8_t *op)          \
    {                                                                          \
        int64_t len = w->ext[w->ndim - 1];                                     \
        T sum = 0;                                                             \
        do {                                                                   \
            const uint8_t *p = src + (size_t)w->row * sizeof(T);               \
            for (int64_t i = 0; i < len; i++) {                                \
                T v;                                                           \
                memcpy(&v, p + (size_t)i * sizeof(T), sizeof(T));              \
                sum += v;                                                      \
            }                                                                  \
        } while (b2_cells_next_row(w));                                        \
        T mean = sum / (T)w->items;                                            \
        for (int64_t i = 0; i < w->items; i++, op += sizeof(T))                \
            memcpy(op, &mean, sizeof(T));                                      \
        return op;                                                             \
    }

DEFINE_MEAN_CELL(mean_cell_f32, float)
DEFINE_MEAN_CELL(mean_cell_f64, double)

int b2_ndmean_forward(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                      const uint8_t *src, uint8_t *dst)
{
    int64_t sides[B2_GEOM_MAX_DIM];
    int rc = check(meta, typesize, geom, n, sides);
    if (rc < 0 || n == 0)
        return rc;
    b2_cells w;
    b2_cells_init(&w, geom, sides, sides[0]);
    uint8_t *op = dst;
    do {
        op = typesize == 4 ? mean_cell_f32(&w, src, op) : mean_cell_f64(&w, src, op);
    } while (b2_cells_next_cell(&w));
    return 0;
}

int b2_ndmean_backward(int8_t meta, int32_t typesize, const b2_block_geometry *geom, int32_t n,
                       const uint8_t *src, uint8_t *dst)
{
    int64_t sides[B2_GEOM_MAX_DIM];
    int rc = check(meta, typesize, geom, n, sides);
    if (rc < 0 || n == 0)
        return rc;
    /* With the reference's skewed origins some items get no row (its output
     * leaves them as whatever its buffer held); ours are zero. */
    for (int d = 1; d < geom->ndim; d++)
        if (sides[d] != sides[0] && geom->blockshape[d] > sides[d]) {
            memset(dst, 0, (size_t)n);
            break;
        }
    b2_cells w;
    b2_cells_init(&w, geom, sides, sides[0]);
    size_t ts = (size_t)typesize;
    const uint8_t *ip = src;
    do {
        size_t len = (size_t)w.ext[geom->ndim - 1] * ts;
        do {
            b2_cells_copy_row(dst + (size_t)w.row * ts, ip, len);
            ip += len;
        } while (b2_cells_next_row(&w));
    } while (b2_cells_next_cell(&w));
    return 0;
}
