/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_schunk_refresh: a read-only handle takes the state a writer committed
 * since it was opened (or last refreshed).
 *
 * The frame is loaded again into a scratch handle through a fresh store (a file
 * may have been replaced by a compaction's rename, or a sparse frame's
 * chunks.b2frame by its atomic replace; the old store still shows the old
 * frame). The load is the open path, which already copes with a writer
 * committing meanwhile (frame_load.c), so the scratch handle holds one committed
 * state. When it differs from the handle's, the two swap their frame state and
 * the scratch handle frees the old one; the handle's settings (threads,
 * registry, memory limit, verify, error record) stay. */
#include <string.h>

#include "frame_internal.h"

static int meta_equal(const frame_meta *a, int na, const frame_meta *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (strcmp(a[i].name, b[i].name) || a[i].len != b[i].len ||
            (a[i].len && memcmp(a[i].content, b[i].content, (size_t)a[i].len)))
            return 0;
    return 1;
}

/* Whether t's loaded frame says the same as s's. */
static int same_state(const b2_schunk *s, const b2_schunk *t)
{
    const frame_hdr *a = &s->h, *b = &t->h;
    if (a->header_len != b->header_len || a->frame_len != b->frame_len ||
        a->nbytes != b->nbytes || a->cbytes != b->cbytes || a->chunksize != b->chunksize ||
        a->typesize != b->typesize || a->blocksize != b->blocksize ||
        a->general_flags != b->general_flags || s->nchunks != t->nchunks ||
        s->trailer_len != t->trailer_len)
        return 0;
    for (int64_t i = 0; i < s->nchunks; i++)
        if (frame_entry(s, i) != frame_entry(t, i))
            return 0;
    return meta_equal(s->meta, s->nmeta, t->meta, t->nmeta) &&
           meta_equal(s->vlmeta, s->nvlmeta, t->vlmeta, t->nvlmeta);
}

/* A new store on the frame s was opened from (user I/O: s's own, borrowed). */
static int reopen_store(b2_schunk *s, b2_schunk *t)
{
    switch (s->storage) {
    case B2_STORAGE_USER:
        t->store = s->store;
        return B2_OK;
    case B2_STORAGE_SPARSE:
        return b2_store_sparse(s->path, 0, &t->store);
    default:
        return s->open_mmap ? b2_store_mmap(s->path, s->open_offset, &t->store)
                            : b2_store_file(s->path, s->open_offset, 0, 0, &t->store);
    }
}

#define SWAP(a, b)              \
    do {                        \
        __typeof__(a) tmp_ = a; \
        a = b;                  \
        b = tmp_;               \
    } while (0)

/* s takes t's frame state; t gets s's old one, to be freed with t. */
static void take_state(b2_schunk *s, b2_schunk *t)
{
    SWAP(s->h, t->h);
    SWAP(s->nmeta, t->nmeta);
    frame_meta m[B2_FRAME_MAX_METALAYERS];
    memcpy(m, s->meta, sizeof m);
    memcpy(s->meta, t->meta, sizeof m);
    memcpy(t->meta, m, sizeof m);
    SWAP(s->nvlmeta, t->nvlmeta);
    SWAP(s->vlmeta, t->vlmeta);
    SWAP(s->vlmeta_cap, t->vlmeta_cap);
    SWAP(s->nchunks, t->nchunks);
    SWAP(s->index, t->index);
    SWAP(s->index_uniform, t->index_uniform);
    SWAP(s->index_cap, t->index_cap);
    SWAP(s->trailer_len, t->trailer_len);
    SWAP(s->sums, t->sums);
    if (s->storage != B2_STORAGE_USER)
        SWAP(s->store, t->store);
    s->sparse_next_id = 0; /* looked up again by a writer; a reader never needs them */
    s->sparse_marker_id = -1;
    /* the chunk defaults and geometry the frame now records; the settings stay */
    b2_cparams cp = t->cparams;
    cp.nthreads = s->cparams.nthreads;
    cp.registry = s->cparams.registry;
    s->cparams = cp;
    b2_cctx_free(s->cctx);
    s->cctx = NULL;
    b2_frame_rd_drop(s); /* made again with the new geometry */
}

int b2_schunk_refresh_body(b2_schunk *s)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    /* a memory frame has no other writer; a writable handle is the one writer */
    if (s->place->in_place || s->writable)
        return 0;
    b2_schunk *t = b2_schunk_alloc(NULL);
    if (!t)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    t->storage = s->storage;
    t->place = s->place;
    t->path = s->path; /* borrowed, for messages */
    t->mem_limit = s->mem_limit;
    t->nthreads = s->nthreads;
    t->cparams.nthreads = s->nthreads;
    t->cparams.registry = s->cparams.registry;
    int64_t len = 0;
    int rc = reopen_store(s, t);
    if (rc >= 0)
        rc = b2_fio_length(t, &len);
    if (rc >= 0)
        rc = b2_frame_load(t, len);
    if (rc >= 0)
        rc = b2_frame_sums_load(t, s->sum_policy);
    int changed = rc >= 0 && !same_state(s, t);
    if (changed)
        take_state(s, t);
    if (s->storage == B2_STORAGE_USER)
        t->store = NULL; /* s's own */
    t->path = NULL;
    b2_schunk_free(t);
    if (rc < 0)
        return s->path ? B2_PREFIX(rc, s->path) : rc;
    return changed;
}
