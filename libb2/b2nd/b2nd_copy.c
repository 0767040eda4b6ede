/* SPDX-License-Identifier: BSD-3-Clause */
/* b2nd arrays made from data: from a C-order buffer, copies with new chunk and
 * block shapes (whole, sliced, squeezed, cloned with new metalayers), and
 * saving. They fill the new array through the slice layer (b2nd_slice.c),
 * which itself only needs b2nd_array.c's objects. */
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"
#include "b2_nd_experimental.h"

int b2_nd_from_cbuffer(const b2_nd_params *p, const b2_nd_storage *st, const void *src, size_t len,
                      b2_nd_array **out)
{
    b2_nd_array *a;
    int rc = b2_nd_create(p, st, B2_ND_FILL_ZEROS, NULL, &a);
    if (rc < 0)
        return rc;
    if ((uint64_t)len != (uint64_t)a->g.nitems * (uint64_t)a->g.typesize) {
        b2_nd_free(a);
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    }
    int64_t start[B2_ND_MAX_DIM] = {0};
    /* One whole-chunk write per chunk in C order, as c-blosc2 does; then the
     * frame is made compact (the replaced zero chunks leave dead space). */
    if ((rc = b2_nd_set_slice_cbuffer_body(a, start, a->g.shape, src, len)) < 0 ||
        (b2_schunk_dead_bytes(a->sc) > 0 && (rc = b2_schunk_compact(a->sc)) < 0)) {
        b2_nd_free(a);
        return rc;
    }
    *out = a;
    return B2_OK;
}

/* Copy src into dst chunk by chunk of dst. dst has src's dimensions minus those
 * flagged in drop (which all have extent 1 in src); dst item x comes from src
 * item x + offset (offset NULL: none). */
static int copy_data(b2_nd_array *src, b2_nd_array *dst, const int *drop, const int64_t *offset,
                     b2_nd_progress_fn fn, void *ud)
{
    int64_t done = 0;
    const b2_nd_geom *g = &dst->g;
    if (g->nitems == 0)
        return B2_OK;
    size_t cap = (size_t)g->chunknitems * (size_t)g->typesize;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int64_t cc[B2_ND_MAX_DIM] = {0}, lo[B2_ND_MAX_DIM] = {0}, hi[B2_ND_MAX_DIM];
    for (int i = 0; i < g->ndim; i++)
        hi[i] = g->chunks_in_array[i] - 1;
    int rc;
    for (;;) {
        int64_t dlo[B2_ND_MAX_DIM], dhi[B2_ND_MAX_DIM], slo[B2_ND_MAX_DIM], shi[B2_ND_MAX_DIM];
        int64_t n = (int64_t)g->typesize;
        for (int i = 0; i < g->ndim; i++) {
            dlo[i] = cc[i] * g->chunkshape[i];
            dhi[i] = dlo[i] + g->chunkshape[i] < g->shape[i] ? dlo[i] + g->chunkshape[i] : g->shape[i];
            n *= dhi[i] - dlo[i];
        }
        for (int i = 0, j = 0; i < src->g.ndim; i++) {
            if (drop && drop[i]) {
                slo[i] = 0;
                shi[i] = 1;
            } else {
                int64_t off = offset ? offset[i] : 0;
                slo[i] = dlo[j] + off;
                shi[i] = dhi[j++] + off;
            }
        }
        if ((rc = b2_nd_get_slice_cbuffer_body(src, slo, shi, buf, cap)) < 0 ||
            (rc = b2_nd_set_slice_cbuffer_body(dst, dlo, dhi, buf, (size_t)n)) < 0 ||
            (fn && (rc = fn(ud, ++done, g->nchunks)) < 0))
            break;
        int d = g->ndim - 1;
        for (; d >= 0; d--) {
            if (++cc[d] <= hi[d])
                break;
            cc[d] = lo[d];
        }
        if (d < 0)
            break;
    }
    free(buf);
    return rc;
}

/* New array with parameters p, filled from src (see copy_data for drop/offset). */
static int create_copy(b2_nd_array *src, const b2_nd_params *p, const b2_nd_storage *st,
                       const int *drop, const int64_t *offset, b2_nd_progress_fn fn, void *ud,
                       b2_nd_array **out)
{
    b2_nd_array *a;
    int rc = b2_nd_create(p, st, B2_ND_FILL_ZEROS, NULL, &a);
    if (rc < 0)
        return rc;
    /* A new file: written without an fsync per chunk, then rewritten compact
     * (to a temporary file renamed into place, synced), as b2_nd_save does. */
    int file = st && st->kind == B2_STORAGE_FILE;
    if (file)
        b2_schunk_set_sync(a->sc, 0);
    rc = copy_data(src, a, drop, offset, fn, ud);
    if (file) {
        b2_schunk_set_sync(a->sc, 1);
        if (rc >= 0 && b2_schunk_dead_bytes(a->sc) > 0)
            rc = b2_schunk_compact(a->sc);
    }
    if (rc < 0) {
        b2_nd_free(a);
        return rc;
    }
    *out = a;
    return B2_OK;
}

static void params_like(const b2_nd_array *a, b2_nd_params *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = a->g.ndim;
    memcpy(p->shape, a->g.shape, sizeof p->shape);
    p->typesize = a->g.typesize;
    /* A dtype that disagrees with the real width (reference test files do that)
     * would be refused on creation: keep it only when consistent. */
    int32_t isz = a->meta.dtype ? b2_nd_dtype_itemsize(a->meta.dtype) : -1;
    p->dtype = isz == 0 || isz == a->g.typesize ? a->meta.dtype : NULL;
    p->cparams = &a->cparams;
}

/* Chunks of a plain clone passed on with progress reports. */
typedef struct progress_src {
    b2_nd_array *a;
    b2_nd_progress_fn fn;
    void *ud;
} progress_src;

static int chunk_with_progress(void *ud, int64_t i, uint8_t **chunk, int32_t *cbytes)
{
    progress_src *p = ud;
    int rc = i > 0 ? p->fn(p->ud, i, p->a->g.nchunks) : B2_OK; /* chunk i-1 is written */
    return rc < 0 ? rc : b2_nd_st_get_chunk(p->a, i, chunk, cbytes);
}

int b2_nd_copy_body(b2_nd_array *src, const int32_t *chunkshape, const int32_t *blockshape,
              const b2_nd_storage *st, b2_nd_array **out)
{
    return b2_nd_copy_with_progress(src, chunkshape, blockshape, st, NULL, NULL, out);
}

int b2_nd_copy_with_progress(b2_nd_array *src, const int32_t *chunkshape, const int32_t *blockshape,
                             const b2_nd_storage *st, b2_nd_progress_fn fn, void *ud,
                             b2_nd_array **out)
{
    if (!src || !out)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_nd_params p;
    params_like(src, &p);
    int same = 1;
    for (int i = 0; i < p.ndim; i++) {
        p.chunkshape[i] = chunkshape ? chunkshape[i] : src->g.chunkshape[i];
        p.blockshape[i] = blockshape ? blockshape[i] : src->g.blockshape[i];
        same &= p.chunkshape[i] == src->g.chunkshape[i] && p.blockshape[i] == src->g.blockshape[i];
    }
    /* Unchanged shapes: the chunks are copied as they are, as b2_nd_save does. */
    if (same && !fn)
        return b2_nd_clone(src, st, NULL, 0, out);
    if (same) {
        progress_src ps = {src, fn, ud};
        int rc = b2_nd_clone_with(src, st, NULL, 0, src->g.nchunks, chunk_with_progress, &ps, out);
        if (rc >= 0 && (rc = fn(ud, src->g.nchunks, src->g.nchunks)) < 0) {
            b2_nd_free(*out);
            *out = NULL;
        }
        return rc < 0 ? rc : B2_OK;
    }
    return create_copy(src, &p, st, NULL, NULL, fn, ud, out);
}

int b2_nd_squeeze_body(b2_nd_array *src, const b2_nd_storage *st, b2_nd_array **out)
{
    if (!src || !out)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_nd_params p;
    params_like(src, &p);
    int drop[B2_ND_MAX_DIM] = {0}, nd = 0;
    for (int i = 0; i < src->g.ndim; i++) {
        if (src->g.shape[i] == 1) {
            drop[i] = 1;
            continue;
        }
        p.shape[nd] = src->g.shape[i];
        p.chunkshape[nd] = src->g.chunkshape[i];
        p.blockshape[nd] = src->g.blockshape[i];
        nd++;
    }
    p.ndim = nd;
    return create_copy(src, &p, st, drop, NULL, NULL, NULL, out);
}

/* b2_nd_chunk_fn of a plain clone: a's own chunks. */
static int own_chunk(void *ud, int64_t i, uint8_t **chunk, int32_t *cbytes)
{
    return b2_nd_st_get_chunk(ud, i, chunk, cbytes);
}

int b2_nd_clone(b2_nd_array *a, const b2_nd_storage *st, const uint8_t *meta, int32_t meta_len,
                b2_nd_array **out)
{
    return b2_nd_clone_with(a, st, meta, meta_len, a->g.nchunks, own_chunk, a, out);
}

int b2_nd_clone_with(b2_nd_array *a, const b2_nd_storage *st, const uint8_t *meta,
                     int32_t meta_len, int64_t nchunks, b2_nd_chunk_fn chunk_of, void *ud,
                     b2_nd_array **out)
{
    b2_schunk *s;
    int rc = b2_nd_new_schunk(st, &a->cparams, &s);
    if (rc < 0)
        return rc;
    int file = st && st->kind == B2_STORAGE_FILE;
    /* Built without an fsync per chunk; the file is synced once at the end. */
    b2_schunk_set_sync(s, 0);
    /* Same metalayers (the array's own replaced when meta is given),
     * vlmetalayers and chunks (copied compressed). */
    for (int i = 0; rc >= 0 && i < b2_schunk_meta_count(a->sc); i++) {
        const char *name = b2_schunk_meta_name(a->sc, i);
        uint8_t *c = NULL;
        int32_t len;
        if (meta && strcmp(name, a->meta_name) == 0)
            rc = b2_schunk_meta_add(s, name, meta, meta_len);
        else if ((rc = b2_schunk_meta_get(a->sc, name, &c, &len)) >= 0)
            rc = b2_schunk_meta_add(s, name, c, len);
        free(c);
    }
    for (int i = 0; rc >= 0 && i < b2_schunk_vlmeta_count(a->sc); i++) {
        const char *name = b2_schunk_vlmeta_name(a->sc, i);
        uint8_t *c = NULL;
        int32_t len;
        if ((rc = b2_schunk_vlmeta_get(a->sc, name, &c, &len)) >= 0)
            rc = b2_schunk_vlmeta_add(s, name, c, len);
        free(c);
    }
    for (int64_t i = 0; rc >= 0 && i < nchunks; i++) {
        uint8_t *c;
        int32_t cb;
        if ((rc = chunk_of(ud, i, &c, &cb)) < 0)
            break;
        int64_t r = b2_schunk_append_chunk(s, c, cb);
        free(c);
        rc = r < 0 ? (int)r : B2_OK;
    }
    /* Each append left the previous index and trailer behind in a file frame:
     * rewrite it compact (to a temporary file renamed into place, synced). */
    b2_schunk_set_sync(s, 1);
    if (rc >= 0 && file && b2_schunk_dead_bytes(s) > 0)
        rc = b2_schunk_compact(s);
    if (rc >= 0 && out) {
        if ((rc = b2_nd_from_schunk(s, out)) >= 0)
            return B2_OK;
    }
    b2_schunk_free(s);
    return rc < 0 ? rc : B2_OK;
}

int b2_nd_save_body(b2_nd_array *a, const b2_nd_storage *st)
{
    if (!a || !st || st->kind == B2_STORAGE_MEMORY)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    return b2_nd_clone(a, st, NULL, 0, NULL);
}

int b2_nd_get_slice_body(b2_nd_array *src, const int64_t *start, const int64_t *stop,
                   const int32_t *chunkshape, const int32_t *blockshape, const b2_nd_storage *st,
                   b2_nd_array **out)
{
    if (!src || !out || (src->g.ndim && (!start || !stop)))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_nd_params p;
    params_like(src, &p);
    for (int i = 0; i < p.ndim; i++) {
        if (start[i] < 0 || stop[i] < start[i] || stop[i] > src->g.shape[i])
            return B2_FAIL_CODE(B2_ERR_RANGE);
        p.shape[i] = stop[i] - start[i];
        p.chunkshape[i] = chunkshape ? chunkshape[i] : src->g.chunkshape[i];
        p.blockshape[i] = blockshape ? blockshape[i] : src->g.blockshape[i];
    }
    return create_copy(src, &p, st, NULL, start, NULL, NULL, out);
}

