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
    const frame_hdr *a = &s->head.h, *b = &t->head.h;
    if (a->header_len != b->header_len || a->frame_len != b->frame_len ||
        a->nbytes != b->nbytes || a->cbytes != b->cbytes || a->chunksize != b->chunksize ||
        a->typesize != b->typesize || a->blocksize != b->blocksize ||
        a->general_flags != b->general_flags || s->ix.nchunks != t->ix.nchunks ||
        s->head.trailer_len != t->head.trailer_len)
        return 0;
    for (int64_t i = 0; i < s->ix.nchunks; i++)
        if (frame_entry(s, i) != frame_entry(t, i))
            return 0;
    return meta_equal(s->head.meta, s->head.nmeta, t->head.meta, t->head.nmeta) &&
           meta_equal(s->head.vlmeta, s->head.nvlmeta, t->head.vlmeta, t->head.nvlmeta);
}

/* A new store on the frame s was opened from (user I/O: s's own, borrowed). */
static int reopen_store(b2_schunk *s, b2_schunk *t)
{
    switch (s->io.storage) {
    case B2_STORAGE_USER:
        t->io.store = s->io.store;
        return B2_OK;
    case B2_STORAGE_SPARSE:
        return b2_store_sparse(s->io.path, 0, &t->io.store);
    default:
        return s->io.mmap ? b2_store_mmap(s->io.path, s->io.offset, &t->io.store)
                            : b2_store_file(s->io.path, s->io.offset, 0, 0, &t->io.store);
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
    SWAP(s->head.h, t->head.h);
    SWAP(s->head.nmeta, t->head.nmeta);
    frame_meta m[B2_FRAME_MAX_METALAYERS];
    memcpy(m, s->head.meta, sizeof m);
    memcpy(s->head.meta, t->head.meta, sizeof m);
    memcpy(t->head.meta, m, sizeof m);
    SWAP(s->head.nvlmeta, t->head.nvlmeta);
    SWAP(s->head.vlmeta, t->head.vlmeta);
    SWAP(s->head.vlmeta_cap, t->head.vlmeta_cap);
    SWAP(s->ix.nchunks, t->ix.nchunks);
    SWAP(s->ix.entries, t->ix.entries);
    SWAP(s->ix.uniform, t->ix.uniform);
    SWAP(s->ix.cap, t->ix.cap);
    SWAP(s->head.trailer_len, t->head.trailer_len);
    SWAP(s->check.table, t->check.table);
    if (s->io.storage != B2_STORAGE_USER)
        SWAP(s->io.store, t->io.store);
    s->io.sparse_next_id = 0; /* looked up again by a writer; a reader never needs them */
    s->io.sparse_marker_id = -1;
    /* the chunk defaults and geometry the frame now records; the settings stay */
    b2_cparams cp = t->codec.cparams;
    cp.nthreads = s->codec.cparams.nthreads;
    cp.registry = s->codec.cparams.registry;
    s->codec.cparams = cp;
    b2_cctx_free(s->codec.cctx);
    s->codec.cctx = NULL;
    b2_frame_rd_drop(s); /* made again with the new geometry */
}

int b2_schunk_refresh_body(b2_schunk *s)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    /* a memory frame has no other writer; a writable handle is the one writer */
    if (s->io.place->in_place || s->io.writable)
        return 0;
    b2_schunk *t = b2_schunk_alloc(NULL);
    if (!t)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    t->io.storage = s->io.storage;
    t->io.place = s->io.place;
    t->io.path = s->io.path; /* borrowed, for messages */
    t->mem_limit = s->mem_limit;
    t->codec.nthreads = s->codec.nthreads;
    t->codec.cparams.nthreads = s->codec.nthreads;
    t->codec.cparams.registry = s->codec.cparams.registry;
    int64_t len = 0;
    int rc = reopen_store(s, t);
    if (rc >= 0)
        rc = b2_fio_length(t, &len);
    if (rc >= 0)
        rc = b2_frame_load(t, len);
    if (rc >= 0)
        rc = b2_frame_sums_load(t, s->check.policy);
    int changed = rc >= 0 && !same_state(s, t);
    if (changed)
        take_state(s, t);
    if (s->io.storage == B2_STORAGE_USER)
        t->io.store = NULL; /* s's own */
    t->io.path = NULL;
    b2_schunk_free(t);
    if (rc < 0)
        return s->io.path ? B2_PREFIX(rc, s->io.path) : rc;
    return changed;
}
