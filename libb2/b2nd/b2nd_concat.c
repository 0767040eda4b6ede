/* SPDX-License-Identifier: BSD-3-Clause */
/* Joining arrays and adding dimensions without touching the data when possible.
 *
 * concatenate: when the grids line up (the first array ends on a chunk
 * boundary of the axis and both have the same chunk and block shapes) every
 * chunk is copied compressed, as it is: a new array is assembled from the two
 * arrays' chunks in one pass of appends, and in place the first array grows
 * (b2_nd_resize) and takes the second one's chunks. Otherwise the first array
 * (or its copy) grows and the new part is written chunk by chunk of the result,
 * each read as a box of the second array (one chunk of memory at a time).
 *
 * expand_dims: dimensions of extent 1 change neither the C order of a chunk nor
 * that of a block, so the chunks stay byte for byte what they were: the result
 * is a copy of the frame with a new b2nd metalayer (no view, nothing shared). */
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"

static int same_grid(const b2_nd_geom *x, const b2_nd_geom *y)
{
    for (int i = 0; i < x->ndim; i++)
        if (x->chunkshape[i] != y->chunkshape[i] || x->blockshape[i] != y->blockshape[i])
            return 0;
    return x->typesize == y->typesize;
}

/* Chunk number of chunk coordinates cc in g's grid. */
static int64_t chunk_at(const b2_nd_geom *g, const int64_t *cc)
{
    int64_t n = 0;
    for (int i = 0; i < g->ndim; i++)
        n = n * g->chunks_in_array[i] + cc[i];
    return n;
}

/* Next chunk coordinates in C order within [lo, hi]; 0 after the last. */
static int next_cc(int nd, int64_t *cc, const int64_t *lo, const int64_t *hi)
{
    for (int d = nd - 1; d >= 0; d--) {
        if (++cc[d] <= hi[d])
            return 1;
        cc[d] = lo[d];
    }
    return 0;
}

/* b's chunks (grid bg) into dst's grid, shifted by `shift` chunks along axis:
 * compressed bytes copied as they are. b's chunks are numbered by `numbering`
 * (bg, or dst's new grid when b is dst itself). */
static int copy_chunks(b2_nd_array *dst, b2_nd_array *b, const b2_nd_geom *bg,
                       const b2_nd_geom *numbering, int axis, int64_t shift)
{
    int64_t cc[B2_ND_MAX_DIM] = {0}, lo[B2_ND_MAX_DIM] = {0}, hi[B2_ND_MAX_DIM];
    for (int i = 0; i < bg->ndim; i++)
        hi[i] = bg->chunks_in_array[i] - 1;
    int rc = B2_OK;
    do {
        uint8_t *chunk;
        int32_t cbytes;
        if ((rc = b2_nd_st_get_chunk(b, chunk_at(numbering, cc), &chunk, &cbytes)) < 0)
            break;
        cc[axis] += shift;
        rc = b2_nd_st_update_chunk(dst, chunk_at(&dst->g, cc), chunk, cbytes);
        cc[axis] -= shift;
        free(chunk);
    } while (rc >= 0 && next_cc(bg->ndim, cc, lo, hi));
    return rc;
}

/* dst[.., from:, ..] = b, box by box of dst's chunks. */
static int copy_boxes(b2_nd_array *dst, b2_nd_array *b, int axis, int64_t from)
{
    const b2_nd_geom *g = &dst->g;
    int64_t cc[B2_ND_MAX_DIM], lo[B2_ND_MAX_DIM], hi[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++) {
        lo[i] = cc[i] = i == axis ? from / g->chunkshape[i] : 0;
        hi[i] = g->chunks_in_array[i] - 1;
    }
    uint8_t *buf = malloc((size_t)g->chunknitems * (size_t)g->typesize);
    if (!buf)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int rc = B2_OK;
    do {
        int64_t dlo[B2_ND_MAX_DIM], dhi[B2_ND_MAX_DIM], slo[B2_ND_MAX_DIM], shi[B2_ND_MAX_DIM];
        int64_t n = g->typesize;
        for (int i = 0; i < g->ndim; i++) {
            int64_t c = g->chunkshape[i];
            dlo[i] = cc[i] * c;
            dhi[i] = dlo[i] + c < g->shape[i] ? dlo[i] + c : g->shape[i];
            if (i == axis && dlo[i] < from)
                dlo[i] = from; /* the chunk the first array ends in */
            slo[i] = i == axis ? dlo[i] - from : dlo[i];
            shi[i] = i == axis ? dhi[i] - from : dhi[i];
            n *= dhi[i] - dlo[i];
        }
        if ((rc = b2_nd_get_slice_cbuffer_body(b, slo, shi, buf, (size_t)n)) < 0 ||
            (rc = b2_nd_set_slice_cbuffer_body(dst, dlo, dhi, buf, (size_t)n)) < 0)
            break;
    } while (next_cc(g->ndim, cc, lo, hi));
    free(buf);
    return rc;
}

/* The chunks of concatenate(a, b) when the grids line up, in the result's C
 * order: each one a's or b's, copied compressed. */
typedef struct join_src {
    b2_nd_array *a, *b;
    b2_nd_geom g; /* the result's grid */
    int axis;
    int64_t na; /* a's chunks along axis */
} join_src;

static int joined_chunk(void *ud, int64_t i, uint8_t **chunk, int32_t *cbytes)
{
    const join_src *j = ud;
    int64_t cc[B2_ND_MAX_DIM];
    for (int d = j->g.ndim - 1; d >= 0; d--) {
        cc[d] = i % j->g.chunks_in_array[d];
        i /= j->g.chunks_in_array[d];
    }
    b2_nd_array *src = j->a;
    if (cc[j->axis] >= j->na) {
        cc[j->axis] -= j->na;
        src = j->b;
    }
    return b2_nd_st_get_chunk(src, chunk_at(&src->g, cc), chunk, cbytes);
}

/* concatenate into a new array whose chunks are all a's and b's: one pass of
 * appends, nothing decoded. */
static int join_new(b2_nd_array *a, b2_nd_array *b, int axis, const b2_nd_storage *st,
                    b2_nd_array **out)
{
    join_src j = {.a = a, .b = b, .axis = axis, .na = a->g.chunks_in_array[axis]};
    b2_nd_meta m = a->meta; /* dtype shared, not freed here */
    m.shape[axis] += b->g.shape[axis];
    int rc = b2_nd_geom_init(&j.g, m.ndim, m.shape, m.chunkshape, m.blockshape, a->g.typesize);
    uint8_t *meta = NULL;
    int32_t len;
    if (rc >= 0)
        rc = b2_nd_meta_encode(&m, &meta, &len);
    if (rc >= 0)
        rc = b2_nd_clone_with(a, st, meta, len, j.g.nchunks, joined_chunk, &j, out);
    free(meta);
    return rc;
}

int b2_nd_concatenate_body(b2_nd_array *a, b2_nd_array *b, int axis, const b2_nd_storage *st,
                           b2_nd_array **out)
{
    B2_FAIL_IF(!a || !b, B2_ERR_INVALID_PARAM, "array %s is NULL", !a ? "a" : "b");
    if (out)
        *out = NULL;
    B2_FAIL_IF(a->g.ndim != b->g.ndim || a->g.ndim == 0, B2_ERR_INVALID_PARAM,
               "arrays of %d and %d dimensions", a->g.ndim, b->g.ndim);
    B2_FAIL_IF(axis < 0 || axis >= a->g.ndim, B2_ERR_INVALID_PARAM, "axis %d of a %d-d array", axis,
               a->g.ndim);
    B2_FAIL_IF(a->g.typesize != b->g.typesize, B2_ERR_INVALID_PARAM, "typesizes %d and %d",
               (int)a->g.typesize, (int)b->g.typesize);
    for (int i = 0; i < a->g.ndim; i++)
        B2_FAIL_IF(i != axis && a->g.shape[i] != b->g.shape[i], B2_ERR_INVALID_PARAM,
                   "dimension %d: extents %lld and %lld differ", i, (long long)a->g.shape[i],
                   (long long)b->g.shape[i]);
    b2_nd_geom bg = b->g; /* b may be a: its geometry before the resize */
    if (out && a->g.shape[axis] % a->g.chunkshape[axis] == 0 && same_grid(&a->g, &bg))
        return join_new(a, b, axis, st, out);
    b2_nd_array *dst = a;
    int rc;
    if (out && (rc = b2_nd_clone(a, st, NULL, 0, &dst)) < 0)
        return rc;
    if (out) /* a new file: synced once, when done */
        b2_schunk_set_sync(dst->sc, 0);
    int64_t from = dst->g.shape[axis], shape[B2_ND_MAX_DIM];
    memcpy(shape, dst->g.shape, sizeof shape);
    shape[axis] += bg.shape[axis];
    if ((rc = b2_nd_resize_body(dst, shape, NULL)) >= 0 && bg.nitems > 0) {
        int aligned = from % dst->g.chunkshape[axis] == 0 && same_grid(&dst->g, &bg);
        rc = aligned ? copy_chunks(dst, b, &bg, b == dst ? &dst->g : &bg, axis,
                                   from / dst->g.chunkshape[axis])
                     : copy_boxes(dst, b, axis, from);
    }
    if (rc < 0) {
        if (out)
            b2_nd_free(dst);
        else if (dst->g.shape[axis] != from) { /* a keeps what it held */
            shape[axis] = from;
            (void)b2_nd_resize_body(dst, shape, NULL);
        }
        return rc;
    }
    if (out) {
        b2_schunk_set_sync(dst->sc, 1);
        if (b2_schunk_storage(dst->sc) == B2_STORAGE_FILE && b2_schunk_dead_bytes(dst->sc) > 0 &&
            (rc = b2_schunk_compact(dst->sc)) < 0) {
            b2_nd_free(dst);
            return rc;
        }
        *out = dst;
    }
    return B2_OK;
}

int b2_nd_expand_dims_body(b2_nd_array *a, const int *axes, int naxes, const b2_nd_storage *st,
                           b2_nd_array **out)
{
    B2_FAIL_IF(!a || !out || (naxes && !axes), B2_ERR_INVALID_PARAM, "NULL argument");
    *out = NULL;
    int nd = a->g.ndim + naxes;
    B2_FAIL_IF(naxes < 0 || nd > B2_ND_MAX_DIM, B2_ERR_INVALID_PARAM,
               "%d new dimensions for a %d-d array (at most %d in all)", naxes, a->g.ndim,
               B2_ND_MAX_DIM);
    int isnew[B2_ND_MAX_DIM] = {0};
    for (int k = 0; k < naxes; k++) {
        int ax = axes[k] < 0 ? axes[k] + nd : axes[k];
        B2_FAIL_IF(ax < 0 || ax >= nd, B2_ERR_INVALID_PARAM, "axis %d outside [-%d, %d)", axes[k],
                   nd, nd);
        B2_FAIL_IF(isnew[ax], B2_ERR_INVALID_PARAM, "axis %d given twice", axes[k]);
        isnew[ax] = 1;
    }
    b2_nd_meta m = a->meta; /* dtype shared, not freed here */
    m.ndim = nd;
    for (int i = 0, j = 0; i < nd; i++) {
        int old = !isnew[i];
        m.shape[i] = old ? a->g.shape[j] : 1;
        m.chunkshape[i] = old ? a->g.chunkshape[j] : 1;
        m.blockshape[i] = old ? a->g.blockshape[j] : 1;
        j += old;
    }
    uint8_t *meta;
    int32_t len;
    int rc = b2_nd_meta_encode(&m, &meta, &len);
    if (rc < 0)
        return rc;
    rc = b2_nd_clone(a, st, meta, len, out);
    free(meta);
    return rc;
}
