/* SPDX-License-Identifier: BSD-3-Clause */
/* b2nd array objects: opening (from frames in memory, files, sframes), creating
 * empty ones (zeros/uninit/nans/full), settings and the property getters.
 * Arrays made from data (a C-order buffer, copies) are in b2nd_copy.c. */
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"
#include "b2_nd_experimental.h"

/* The block geometry the n-dimensional plugins (ndcell, ndmean, ndlz, zfp) need. */
static void nd_geometry(const b2_nd_array *a, b2_block_geometry *g)
{
    memset(g, 0, sizeof *g);
    g->ndim = a->meta.ndim <= B2_GEOM_MAX_DIM ? a->meta.ndim : 0;
    for (int i = 0; i < g->ndim; i++)
        g->blockshape[i] = a->meta.blockshape[i];
}

int b2_nd_array_refresh_geom(b2_nd_array *a)
{
    return b2_nd_geom_init(&a->g, a->meta.ndim, a->meta.shape, a->meta.chunkshape,
                          a->meta.blockshape, a->g.typesize);
}

void b2_nd_free(b2_nd_array *a)
{
    if (!a)
        return;
    b2_nd_meta_clear(&a->meta);
    b2_cctx_free(a->cctx);
    b2_schunk_free(a->sc);
    free(a);
}

/* Build the array object around s (not owned on failure). */
static int wrap(b2_schunk *s, b2_nd_array **out)
{
    b2_nd_array *a = calloc(1, sizeof *a);
    if (!a)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    uint8_t *content = NULL;
    int32_t len = 0;
    const char *name = B2_ND_META_NAME;
    int rc = b2_schunk_meta_get(s, name, &content, &len);
    if (rc == B2_ERR_NOT_FOUND) {
        name = B2_ND_META_LEGACY_NAME;
        rc = b2_schunk_meta_get(s, name, &content, &len);
    }
    if (rc == B2_ERR_NOT_FOUND)
        rc = B2_FAIL(rc, "no \"%s\" or \"%s\" metalayer: not a b2nd array", B2_ND_META_NAME,
                     B2_ND_META_LEGACY_NAME);
    else if (rc >= 0 && (rc = b2_nd_meta_decode(content, (size_t)len, &a->meta)) < 0)
        rc = B2_PREFIX(rc, name[0] == 'b' ? "b2nd metalayer" : "caterva metalayer");
    free(content);
    if (rc < 0) {
        free(a);
        return rc;
    }
    strcpy(a->meta_name, name);
    /* The element width comes from the frame, never from the dtype label. */
    a->g.typesize = b2_schunk_typesize(s);
    if ((rc = b2_nd_array_refresh_geom(a)) < 0)
        goto fail;
    if (b2_schunk_nchunks(s) != a->g.nchunks) {
        rc = B2_FAIL(B2_ERR_CORRUPT, "frame has %lld chunks, the shapes need %lld",
                     (long long)b2_schunk_nchunks(s), (long long)a->g.nchunks);
        goto fail;
    }
    const b2_cparams *cp = b2_schunk_cparams(s);
    if (cp)
        a->cparams = *cp;
    else
        b2_cparams_init(&a->cparams);
    a->cparams.typesize = a->g.typesize;
    a->cparams.blocksize = a->g.block_bytes;
    nd_geometry(a, &a->cparams.geometry);
    a->sc = s;
    *out = a;
    return B2_OK;
fail:
    b2_nd_meta_clear(&a->meta);
    free(a);
    return rc;
}

int b2_nd_refresh_body(b2_nd_array *a)
{
    if (!a)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "array is NULL");
    int rc = b2_schunk_refresh(a->sc);
    if (rc <= 0)
        return rc; /* the failure is recorded already */
    /* the shapes as the frame now records them; the array's settings stay */
    b2_nd_array *t;
    if ((rc = wrap(a->sc, &t)) < 0)
        return rc;
    b2_nd_meta m = a->meta;
    a->meta = t->meta;
    t->meta = m;
    a->g = t->g;
    strcpy(a->meta_name, t->meta_name);
    b2_cparams cp = t->cparams;
    cp.nthreads = a->cparams.nthreads;
    cp.registry = a->cparams.registry;
    a->cparams = cp;
    b2_cctx_free(a->cctx);
    a->cctx = NULL;
    t->sc = NULL; /* a's */
    b2_nd_free(t);
    return 1;
}

int b2_nd_from_schunk(b2_schunk *s, b2_nd_array **out)
{
    if (!s || !out)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    return wrap(s, out);
}

int b2_nd_open(const char *path, int flags, b2_nd_array **out)
{
    if (!path || !out)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_schunk *s;
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.flags = flags & B2_OPEN_WRITE;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return rc;
    if ((rc = wrap(s, out)) < 0) {
        b2_schunk_free(s);
        return B2_PREFIX(rc, path);
    }
    return rc;
}

int b2_nd_open_buffer(const void *buf, size_t len, int copy, b2_nd_array **out)
{
    if (!buf || !out)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_schunk *s;
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = buf;
    o.buffer_len = len;
    o.copy_buffer = copy;
    o.flags = copy ? B2_OPEN_WRITE : B2_OPEN_READONLY;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return rc;
    if ((rc = wrap(s, out)) < 0)
        b2_schunk_free(s);
    return rc;
}

int b2_nd_to_frame_buffer_body(b2_nd_array *a, uint8_t **out, size_t *len)
{
    if (!a || !out || !len)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    return b2_schunk_to_buffer(a->sc, out, len);
}

int b2_nd_ndim(const b2_nd_array *a) { return a->g.ndim; }
const char *b2_nd_last_error(const b2_nd_array *a) { return a ? b2_err_text(&a->err) : ""; }
const int64_t *b2_nd_shape(const b2_nd_array *a) { return a->g.shape; }
const int32_t *b2_nd_chunkshape(const b2_nd_array *a) { return a->g.chunkshape; }
const int32_t *b2_nd_blockshape(const b2_nd_array *a) { return a->g.blockshape; }
int32_t b2_nd_typesize(const b2_nd_array *a) { return a->g.typesize; }
const char *b2_nd_dtype(const b2_nd_array *a) { return a->meta.dtype ? a->meta.dtype : "|u1"; }
int64_t b2_nd_nitems(const b2_nd_array *a) { return a->g.nitems; }
b2_schunk *b2_nd_schunk(b2_nd_array *a) { return a->sc; }
int b2_nd_set_nthreads_body(b2_nd_array *a, int nthreads)
{
    if (!a)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (nthreads <= 0)
        nthreads = 1;
    int rc = a->lent ? b2_dctx_set_nthreads(a->lent, nthreads) : B2_OK;
    if (rc < 0)
        return rc;
    a->cparams.nthreads = nthreads;
    b2_cctx_free(a->cctx); /* rebuilt with the new count on the next write */
    a->cctx = NULL;
    rc = b2_schunk_set_nthreads(a->sc, nthreads);
    return rc < 0 ? rc : B2_OK;
}

int b2_nd_set_memory_limit(b2_nd_array *a, int64_t bytes)
{
    if (!a)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "array is NULL");
    a->mem_limit = bytes > 0 ? bytes : 0;
    return B2_KEEP(&a->err, b2_schunk_set_memory_limit(a->sc, bytes));
}

int b2_nd_set_dctx_body(b2_nd_array *a, b2_dctx *dctx)
{
    if (!a)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    a->lent = dctx;
    return B2_OK;
}

int b2_nd_set_registry_body(b2_nd_array *a, const b2_registry *registry)
{
    if (!a)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "array is NULL");
    a->cparams.registry = registry;
    b2_cctx_free(a->cctx); /* rebuilt with the registry on the next write */
    a->cctx = NULL;
    int rc = a->lent ? b2_dctx_set_registry(a->lent, registry) : B2_OK;
    if (rc >= 0)
        rc = b2_schunk_set_registry(a->sc, registry);
    return rc < 0 ? rc : B2_OK;
}

int b2_nd_set_postfilter(b2_nd_array *a, b2_postfilter_fn fn, void *user)
{
    if (!a)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "array is NULL");
    a->post = fn;
    a->post_user = fn ? user : NULL;
    return B2_OK;
}

int64_t b2_nd_blocks_decoded(const b2_nd_array *a)
{
    return a ? __atomic_load_n(&a->blocks_decoded, __ATOMIC_RELAXED) : 0;
}

/* ---- creation ---- */

int b2_nd_new_schunk(const b2_nd_storage *st, const b2_cparams *cp, b2_schunk **out)
{
    int kind = st ? st->kind : B2_STORAGE_MEMORY;
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.cparams = cp;
    if (kind != B2_STORAGE_MEMORY) {
        B2_FAIL_IF(!st->path || !*st->path, B2_ERR_INVALID_PARAM, "storage kind %d without a path",
                   kind);
        B2_FAIL_IF(kind != B2_STORAGE_FILE && kind != B2_STORAGE_SPARSE, B2_ERR_INVALID_PARAM,
                   "storage kind %d", kind);
        o.path = st->path;
        o.sparse = kind == B2_STORAGE_SPARSE;
    }
    return b2_schunk_open_with(&o, out);
}

/* Validate p, fill in defaults, and create an array holding no chunks yet. */
int b2_nd_create_bare(const b2_nd_params *p0, const b2_nd_storage *st, b2_nd_array **out)
{
    B2_FAIL_IF(!p0 || !out, B2_ERR_INVALID_PARAM, "%s is NULL", !p0 ? "params" : "out");
    B2_FAIL_IF(p0->ndim < 0 || p0->ndim > B2_ND_MAX_DIM, B2_ERR_INVALID_PARAM,
               "ndim %d is not 0..%d", p0->ndim, B2_ND_MAX_DIM);
    B2_FAIL_IF(p0->typesize <= 0, B2_ERR_INVALID_PARAM, "typesize %d", (int)p0->typesize);
    B2_FAIL_IF(p0->nmetalayers < 0 || p0->nmetalayers >= B2_FRAME_MAX_METALAYERS ||
                   (p0->nmetalayers && !p0->metalayers),
               B2_ERR_INVALID_PARAM, "nmetalayers %d (list %p)", p0->nmetalayers,
               (const void *)p0->metalayers);
    b2_nd_params p = *p0;
    int rc = b2_nd_default_shapes(&p);
    if (rc < 0)
        return rc;
    for (int i = 0; i < p.ndim; i++)
        /* python-blosc2 refuses it; so do we */
        B2_FAIL_IF(p.blockshape[i] > p.chunkshape[i], B2_ERR_INVALID_PARAM,
                   "blockshape[%d] = %d is larger than chunkshape[%d] = %d", i,
                   (int)p.blockshape[i], i, (int)p.chunkshape[i]);
    char defdt[32];
    const char *dtype = p.dtype;
    if (!dtype) {
        b2_nd_dtype_default(p.typesize, defdt, sizeof defdt);
        dtype = defdt;
    }
    int32_t isz = b2_nd_dtype_itemsize(dtype);
    B2_FAIL_IF(isz < 0 || (isz > 0 && isz != p.typesize), B2_ERR_INVALID_PARAM,
               "dtype \"%s\" (%d bytes) with typesize %d", dtype, (int)isz, (int)p.typesize);
    b2_nd_array *a = calloc(1, sizeof *a);
    if (!a)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    if ((rc = b2_nd_geom_init(&a->g, p.ndim, p.shape, p.chunkshape, p.blockshape, p.typesize)) < 0)
        goto fail;
    a->meta.version = B2_ND_META_VERSION;
    a->meta.ndim = p.ndim;
    memcpy(a->meta.shape, p.shape, sizeof p.shape);
    memcpy(a->meta.chunkshape, p.chunkshape, sizeof p.chunkshape);
    memcpy(a->meta.blockshape, p.blockshape, sizeof p.blockshape);
    a->meta.dtype_format = B2_ND_DTYPE_NUMPY;
    size_t dl = strlen(dtype);
    if (dl > INT32_MAX - 1000 || !(a->meta.dtype = malloc(dl + 1))) {
        rc = B2_FAIL_CODE(B2_ERR_NOMEM);
        goto fail;
    }
    memcpy(a->meta.dtype, dtype, dl + 1);
    a->meta.dtype_len = (int32_t)dl;
    strcpy(a->meta_name, B2_ND_META_NAME);
    if (p.cparams)
        a->cparams = *p.cparams;
    else
        b2_cparams_init(&a->cparams);
    a->cparams.typesize = p.typesize;
    a->cparams.blocksize = a->g.block_bytes; /* one Blosc2 block = one b2nd block */
    nd_geometry(a, &a->cparams.geometry);
    if ((rc = b2_nd_new_schunk(st, &a->cparams, &a->sc)) < 0)
        goto fail;
    uint8_t *mbuf;
    int32_t mlen;
    if ((rc = b2_nd_meta_encode(&a->meta, &mbuf, &mlen)) < 0)
        goto fail;
    rc = b2_schunk_meta_add(a->sc, B2_ND_META_NAME, mbuf, mlen);
    free(mbuf);
    if (rc < 0)
        goto fail;
    for (int i = 0; i < p.nmetalayers; i++) {
        const b2_nd_user_meta *um = &p.metalayers[i];
        if (!um->name || (!um->content && um->len) || !strcmp(um->name, B2_ND_META_NAME)) {
            rc = B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
            goto fail;
        }
        if ((rc = b2_schunk_meta_add(a->sc, um->name, um->content, um->len)) < 0)
            goto fail;
    }
    *out = a;
    return B2_OK;
fail:
    b2_nd_free(a);
    return rc;
}

int b2_nd_create(const b2_nd_params *p, const b2_nd_storage *st, int fill, const void *value,
                b2_nd_array **out)
{
    b2_nd_array *a;
    if (fill < B2_ND_FILL_ZEROS || fill > B2_ND_FILL_VALUE || (fill == B2_ND_FILL_VALUE && !value))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (fill == B2_ND_FILL_NANS && p && p->typesize != 4 && p->typesize != 8)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = b2_nd_create_bare(p, st, &a);
    if (rc < 0)
        return rc;
    const b2_nd_geom *g = &a->g;
    if (g->nchunks > 0 && fill != B2_ND_FILL_VALUE) {
        static const int kind[] = {B2_SPECIAL_ZEROS, B2_SPECIAL_UNINIT, B2_SPECIAL_NAN};
        int32_t fts = b2_schunk_typesize(a->sc);
        int64_t nitems = g->nchunks * (g->chunk_bytes / fts);
        int64_t r = b2_schunk_fill_special(a->sc, nitems, kind[fill], g->chunk_bytes);
        rc = r < 0 ? (int)r : B2_OK;
    } else if (g->nchunks > 0) {
        /* One stored repeated-value chunk per chunk, as c-blosc2's full() does. */
        int32_t ts = g->typesize;
        size_t cap = B2_MAX_OVERHEAD + (size_t)ts;
        uint8_t *chunk = malloc(cap);
        if (!chunk)
            rc = B2_FAIL_CODE(B2_ERR_NOMEM);
        else if ((rc = b2_chunk_make_special(B2_SPECIAL_VALUE, ts, g->chunk_bytes, value, chunk,
                                             cap)) >= 0) {
            int32_t cbytes = rc;
            /* c-blosc2 builds these chunks with the array's cparams, so their
             * blocksize field is the block's byte size. */
            b2_store_le32(chunk + 8, (uint32_t)g->block_bytes);
            for (int64_t i = 0; i < g->nchunks && rc >= 0; i++) {
                int64_t r = b2_schunk_append_chunk(a->sc, chunk, cbytes);
                rc = r < 0 ? (int)r : B2_OK;
            }
        }
        free(chunk);
    }
    if (rc < 0) {
        b2_nd_free(a);
        return rc;
    }
    *out = a;
    return B2_OK;
}
