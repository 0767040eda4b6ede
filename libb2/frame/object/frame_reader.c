/* SPDX-License-Identifier: BSD-3-Clause */
/* Readers of a super-chunk (frame_reader.h; the struct is in frame_internal.h). Every read call takes
 * one from the handle's stack of idle readers and gives it back when done, so
 * threads reading one shared handle each decode with their own context and
 * buffers, and a thread reading again reuses the reader it left (its worker
 * threads and scratch survive between calls). The stack grows to the number of
 * reads that ever ran at once; a mutex guards it for the few nanoseconds a push
 * or pop takes, never during I/O or decoding. */
#include <stdlib.h>

#include "frame_internal.h"

static void rd_free(frame_rd *r)
{
    b2_dctx_free(r->dctx);
    free(r->scratch);
    free(r);
}

frame_rd *b2_frame_rd_get(b2_schunk *s)
{
    pthread_mutex_lock(&s->readers.mu);
    frame_rd *r = s->readers.idle;
    if (r)
        s->readers.idle = r->next;
    pthread_mutex_unlock(&s->readers.mu);
    if (r)
        return r;
    /* The settings are only changed while no read runs (b2_frame.h), so they
     * may be read here without the lock. */
    r = calloc(1, sizeof *r);
    if (r)
        r->mem_limit = s->mem_limit;
    if (r && (r->dctx = b2_dctx_new(s->codec.nthreads)) != NULL &&
        b2_dctx_set_memory_limit(r->dctx, s->mem_limit) >= 0 &&
        b2_dctx_set_registry(r->dctx, s->codec.cparams.registry) >= 0 &&
        b2_dctx_set_geometry(r->dctx, &s->codec.cparams.geometry) >= 0)
        return r;
    if (r)
        rd_free(r);
    b2_err_record(B2_ERR_NOMEM, __func__, "a reader of the super-chunk");
    return NULL;
}

void b2_frame_rd_put(b2_schunk *s, frame_rd *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&s->readers.mu);
    r->next = s->readers.idle;
    s->readers.idle = r;
    pthread_mutex_unlock(&s->readers.mu);
}

void b2_frame_rd_drop(b2_schunk *s)
{
    pthread_mutex_lock(&s->readers.mu);
    frame_rd *r = s->readers.idle;
    s->readers.idle = NULL;
    pthread_mutex_unlock(&s->readers.mu);
    while (r) {
        frame_rd *next = r->next;
        rd_free(r);
        r = next;
    }
}

int b2_frame_rd_scratch(frame_rd *r, size_t n)
{
    if (n <= r->scratch_cap)
        return B2_OK;
    int rc = b2_mem_check(r->mem_limit, (int64_t)n, "reading the chunk", "b2_open_options.memory_limit");
    if (rc < 0)
        return rc;
    uint8_t *p = realloc(r->scratch, n);
    if (!p)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    r->scratch = p;
    r->scratch_cap = n;
    return B2_OK;
}

b2_dctx *b2_frame_rd_dctx(frame_rd *r)
{
    return r->dctx;
}
