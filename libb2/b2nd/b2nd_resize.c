/* SPDX-License-Identifier: BSD-3-Clause */
/* Changing an array's shape (doc/format/b2nd.md §7): resize (shrink then extend),
 * insert, append, delete. Whole chunks are inserted (as zero-special chunks) or
 * deleted, so a change in the middle of a dimension must be chunk-aligned.
 *
 * One deliberate difference from c-blosc2: growing inside the last partial chunk
 * zeroes the newly exposed items, where the reference shows stale data left by
 * an earlier shrink (doc/format/b2nd.md §3.1). Likewise append is always exact (no quirk). */
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"

static int zero_chunk(const b2_nd_array *a, uint8_t *buf, size_t cap)
{
    int32_t ts = a->g.typesize > B2_MAX_TYPESIZE ? 1 : a->g.typesize;
    return b2_chunk_make_special(B2_SPECIAL_ZEROS, ts, a->g.chunk_bytes, NULL, buf, cap);
}

/* Write the shape in a->meta to the frame and rebuild the geometry. */
static int commit_shape(b2_nd_array *a, const int64_t *shape)
{
    int64_t old[B2_ND_MAX_DIM];
    memcpy(old, a->meta.shape, sizeof old);
    memcpy(a->meta.shape, shape, sizeof a->meta.shape);
    int rc = b2_nd_array_refresh_geom(a);
    if (rc >= 0)
        rc = b2_nd_st_write_meta(a);
    if (rc < 0) { /* keep the array consistent with what is stored */
        memcpy(a->meta.shape, old, sizeof old);
        b2_nd_array_refresh_geom(a);
    }
    return rc;
}

/* Whether chunk grid position cc (grid of `grid`) starts inside [lo, lo+n) in some dim. */
static int chunk_in_band(const b2_nd_array *a, const int64_t *cc, const int64_t *lo,
                         const int64_t *n)
{
    for (int j = 0; j < a->g.ndim; j++) {
        int64_t o = cc[j] * a->g.chunkshape[j];
        if (n[j] > 0 && o >= lo[j] && o < lo[j] + n[j])
            return 1;
    }
    return 0;
}

static void grid_pos(const b2_nd_geom *g, int64_t k, int64_t *cc)
{
    for (int i = g->ndim - 1; i >= 0; i--) {
        cc[i] = k % g->chunks_in_array[i];
        k /= g->chunks_in_array[i];
    }
}

/* Shrink dims to `to` (<= current), removing [start, start+old-to) in each. */
static int shrink(b2_nd_array *a, const int64_t *to, const int64_t *start)
{
    b2_nd_geom old = a->g;
    int64_t lo[B2_ND_MAX_DIM], n[B2_ND_MAX_DIM];
    for (int j = 0; j < old.ndim; j++) {
        n[j] = old.shape[j] - to[j];
        lo[j] = start[j];
    }
    int rc = commit_shape(a, to); /* metalayer first, then the chunks */
    if (rc < 0)
        return rc;
    int64_t cc[B2_ND_MAX_DIM];
    for (int64_t k = old.nchunks - 1; k >= 0 && rc >= 0; k--) {
        grid_pos(&old, k, cc);
        if (chunk_in_band(a, cc, lo, n))
            rc = b2_nd_st_delete_chunk(a, k);
    }
    return rc;
}

/* Extend dims to `to` (>= current), opening [start, start+to-old) in each. */
static int extend(b2_nd_array *a, const int64_t *to, const int64_t *start)
{
    b2_nd_geom old = a->g, neu;
    int rc = b2_nd_geom_init(&neu, old.ndim, to, old.chunkshape, old.blockshape, old.typesize);
    if (rc < 0)
        return rc;
    int64_t lo[B2_ND_MAX_DIM], n[B2_ND_MAX_DIM], cc[B2_ND_MAX_DIM];
    for (int j = 0; j < old.ndim; j++) {
        n[j] = to[j] - old.shape[j];
        lo[j] = start[j];
    }
    uint8_t zc[B2_MAX_OVERHEAD + 16];
    int zlen = zero_chunk(a, zc, sizeof zc);
    if (zlen < 0)
        return zlen;
    if (old.nitems == 0) {
        /* The old grid was empty (some extent 0): every chunk of the new grid is new. */
        for (int64_t k = b2_nd_st_nchunks(a); k < neu.nchunks && rc >= 0; k++)
            rc = b2_nd_st_insert_chunk(a, k, zc, zlen);
    } else {
        for (int64_t k = 0; k < neu.nchunks && rc >= 0; k++) {
            grid_pos(&neu, k, cc);
            if (chunk_in_band(a, cc, lo, n))
                rc = b2_nd_st_insert_chunk(a, k, zc, zlen);
        }
    }
    if (rc < 0)
        return rc;
    if ((rc = commit_shape(a, to)) < 0)
        return rc;
    /* Zero what growing at the end exposes inside old partial chunks. */
    for (int i = 0; i < old.ndim && old.nitems > 0; i++) {
        int64_t c = old.chunkshape[i], edge = (old.shape[i] + c - 1) / c * c;
        if (n[i] <= 0 || start[i] != old.shape[i] || edge == old.shape[i])
            continue;
        int64_t bstart[B2_ND_MAX_DIM] = {0}, bstop[B2_ND_MAX_DIM], items = 1;
        memcpy(bstop, to, sizeof bstop);
        bstart[i] = old.shape[i];
        bstop[i] = edge < to[i] ? edge : to[i];
        for (int j = 0; j < old.ndim; j++)
            items *= bstop[j] - bstart[j];
        size_t bytes = (size_t)items * (size_t)old.typesize;
        uint8_t *zeros = calloc(bytes ? bytes : 1, 1);
        if (!zeros)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        rc = b2_nd_set_slice_cbuffer_body(a, bstart, bstop, zeros, bytes);
        free(zeros);
        if (rc < 0)
            return rc;
    }
    return B2_OK;
}

int b2_nd_resize_body(b2_nd_array *a, const int64_t *new_shape, const int64_t *start)
{
    if (!a || (!new_shape && a->g.ndim))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    const b2_nd_geom *g = &a->g;
    int64_t target[B2_ND_MAX_DIM] = {0}; /* callers pass ndim entries only */
    for (int i = 0; i < g->ndim; i++)
        target[i] = new_shape[i];
    new_shape = target;
    int64_t mid[B2_ND_MAX_DIM] = {0}, st_shrink[B2_ND_MAX_DIM] = {0}, st_extend[B2_ND_MAX_DIM] = {0};
    int any_shrink = 0, any_extend = 0;
    for (int i = 0; i < g->ndim; i++) {
        int64_t old = g->shape[i], neu = new_shape[i];
        B2_FAIL_IF(neu < 0, B2_ERR_INVALID_PARAM, "new_shape[%d] = %lld", i, (long long)neu);
        B2_FAIL_IF(neu != old && g->chunkshape[i] == 0, B2_ERR_INVALID_PARAM,
                   "dimension %d has no chunk size (empty when created)", i);
        int64_t c = g->chunkshape[i];
        mid[i] = neu < old ? neu : old;
        if (neu < old) {
            int64_t s = start ? start[i] : neu, d = old - neu;
            B2_FAIL_IF(s < 0 || s > neu, B2_ERR_RANGE, "dimension %d: start %lld outside 0..%lld", i,
                       (long long)s, (long long)neu);
            B2_FAIL_IF(s + d != old && (s % c || d % c), B2_ERR_INVALID_PARAM,
                       "dimension %d: removing %lld at %lld inside the array needs multiples "
                       "of chunkshape %lld", i, (long long)d, (long long)s, (long long)c);
            st_shrink[i] = s;
            any_shrink = 1;
        } else {
            st_shrink[i] = old;
        }
        if (neu > old) {
            int64_t s = start ? start[i] : old, d = neu - old;
            B2_FAIL_IF(s < 0 || s > old, B2_ERR_RANGE, "dimension %d: start %lld outside 0..%lld", i,
                       (long long)s, (long long)old);
            B2_FAIL_IF(s != old && (s % c || d % c), B2_ERR_INVALID_PARAM,
                       "dimension %d: inserting %lld at %lld inside the array needs multiples "
                       "of chunkshape %lld", i, (long long)d, (long long)s, (long long)c);
            st_extend[i] = s;
            any_extend = 1;
        } else {
            st_extend[i] = neu;
        }
    }
    /* The new geometry must be valid before anything is changed. */
    b2_nd_geom check;
    int rc = b2_nd_geom_init(&check, g->ndim, new_shape, g->chunkshape, g->blockshape, g->typesize);
    if (rc < 0)
        return rc;
    if (any_shrink && (rc = shrink(a, mid, st_shrink)) < 0)
        return rc;
    if (any_extend && (rc = extend(a, new_shape, st_extend)) < 0)
        return rc;
    return B2_OK;
}

int b2_nd_insert_body(b2_nd_array *a, const void *src, size_t len, int axis, int64_t pos)
{
    B2_FAIL_IF(!a || (!src && len), B2_ERR_INVALID_PARAM, "%s is NULL", !a ? "array" : "src");
    B2_FAIL_IF(axis < 0 || axis >= a->g.ndim, B2_ERR_INVALID_PARAM, "axis %d of %d dimensions",
               axis, a->g.ndim);
    const b2_nd_geom *g = &a->g;
    int64_t slab = g->typesize;
    for (int j = 0; j < g->ndim; j++)
        if (j != axis)
            slab *= g->shape[j];
    if (len == 0)
        return B2_OK;
    B2_FAIL_IF(slab == 0 || len % (uint64_t)slab, B2_ERR_INVALID_PARAM,
               "%zu bytes are not whole slabs of %lld bytes along axis %d", len, (long long)slab,
               axis);
    int64_t n = (int64_t)(len / (uint64_t)slab);
    B2_FAIL_IF(pos < 0 || pos > g->shape[axis] || n > INT64_MAX - g->shape[axis], B2_ERR_RANGE,
               "position %lld on axis %d of extent %lld", (long long)pos, axis,
               (long long)g->shape[axis]);
    int64_t shape[B2_ND_MAX_DIM], start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
    for (int j = 0; j < g->ndim; j++) {
        shape[j] = g->shape[j];
        start[j] = j == axis ? pos : 0;
    }
    shape[axis] += n;
    int rc = b2_nd_resize_body(a, shape, start);
    if (rc < 0)
        return rc;
    memcpy(stop, shape, sizeof stop);
    stop[axis] = pos + n;
    return b2_nd_set_slice_cbuffer_body(a, start, stop, src, len);
}

int b2_nd_append_body(b2_nd_array *a, const void *src, size_t len, int axis)
{
    B2_FAIL_IF(!a, B2_ERR_INVALID_PARAM, "array is NULL");
    B2_FAIL_IF(axis < 0 || axis >= a->g.ndim, B2_ERR_INVALID_PARAM, "axis %d of %d dimensions",
               axis, a->g.ndim);
    return b2_nd_insert_body(a, src, len, axis, a->g.shape[axis]);
}

int b2_nd_delete_body(b2_nd_array *a, int axis, int64_t start, int64_t n)
{
    B2_FAIL_IF(!a, B2_ERR_INVALID_PARAM, "array is NULL");
    B2_FAIL_IF(axis < 0 || axis >= a->g.ndim, B2_ERR_INVALID_PARAM, "axis %d of %d dimensions",
               axis, a->g.ndim);
    B2_FAIL_IF(start < 0 || n < 0 || start > a->g.shape[axis] || n > a->g.shape[axis] - start,
               B2_ERR_RANGE, "deleting %lld at %lld on axis %d of extent %lld", (long long)n,
               (long long)start, axis, (long long)a->g.shape[axis]);
    int64_t shape[B2_ND_MAX_DIM], st[B2_ND_MAX_DIM];
    for (int j = 0; j < a->g.ndim; j++) {
        shape[j] = a->g.shape[j];
        st[j] = j == axis ? start : shape[j];
    }
    shape[axis] -= n;
    return b2_nd_resize_body(a, shape, st);
}

