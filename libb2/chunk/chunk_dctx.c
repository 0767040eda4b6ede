/* SPDX-License-Identifier: BSD-3-Clause */
/* The decompression context: its workers, pool and settings (the setters of
 * b2_chunk.h and b2_chunk_experimental.h), and running a job on its threads. */
#include <stdlib.h>
#include "chunk_decode.h"

b2_dctx *b2_dctx_new(int nthreads)
{
    b2_dctx *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (b2_dctx_set_nthreads(d, nthreads) < 0) {
        free(d);
        return NULL;
    }
    d->nchunk = -1;
    return d;
}

static void free_workers(b2_dworker *w, int n)
{
    for (int i = 0; i < n; i++) {
        b2_codec_state_free(&w[i].cs);
        free(w[i].scratch);
    }
    free(w);
}

void b2_dctx_free(b2_dctx *d)
{
    if (!d)
        return;
    b2_pool_free(d->pool);
    free_workers(d->workers, d->nthreads);
    free(d->ref);
    free(d->item);
    free(d);
}

int b2_dctx_set_nthreads(b2_dctx *d, int nthreads)
{
    if (!d)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (nthreads <= 0)
        nthreads = 1;
    if (nthreads > 256)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_dworker *w = calloc((size_t)nthreads, sizeof *w);
    b2_pool *pool = b2_pool_new(nthreads);
    if (!w || !pool) {
        free(w);
        b2_pool_free(pool);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    for (int i = 0; i < nthreads; i++)
        b2_codec_state_init(&w[i].cs);
    b2_pool_free(d->pool);
    free_workers(d->workers, d->nthreads);
    d->workers = w;
    d->pool = pool;
    d->nthreads = nthreads;
    return B2_OK;
}

int b2_dctx_nthreads(const b2_dctx *d) { return d ? d->nthreads : B2_ERR_INVALID_PARAM; }

const char *b2_dctx_last_error(const b2_dctx *d) { return d ? b2_err_text(&d->err) : ""; }

int64_t b2_dctx_blocks_decoded(const b2_dctx *d)
{
    return d ? __atomic_load_n(&d->blocks_decoded, __ATOMIC_RELAXED) : 0;
}

int b2_dctx_set_geometry(b2_dctx *d, const b2_block_geometry *g)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    if (!g || g->ndim == 0) {
        memset(&d->geom, 0, sizeof d->geom);
        return B2_OK;
    }
    B2_FAIL_IF(g->ndim < 0 || g->ndim > B2_GEOM_MAX_DIM, B2_ERR_INVALID_PARAM,
               "geometry ndim %d is not 0..%d", g->ndim, B2_GEOM_MAX_DIM);
    for (int i = 0; i < g->ndim; i++)
        B2_FAIL_IF(g->blockshape[i] < 1, B2_ERR_INVALID_PARAM, "geometry blockshape[%d] = %d", i,
                   (int)g->blockshape[i]);
    d->geom = *g;
    return B2_OK;
}

int b2_dctx_set_memory_limit(b2_dctx *d, int64_t bytes)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->mem_limit = bytes > 0 ? bytes : 0;
    return B2_OK;
}

int b2_dctx_set_postfilter(b2_dctx *d, b2_postfilter_fn fn, void *user)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->post = fn;
    d->post_user = fn ? user : NULL;
    return B2_OK;
}

int b2_dctx_set_nchunk(b2_dctx *d, int64_t nchunk)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->nchunk = nchunk;
    return B2_OK;
}

int b2_dctx_set_registry(b2_dctx *d, const b2_registry *reg)
{
    if (!d)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "dctx is NULL");
    d->reg = reg;
    return B2_OK;
}

/* A b2_dctx_run job as the pool sees it. */
typedef struct pool_arg {
    b2_dworker_fn fn;
    void *job;
    b2_dworker *workers;
} pool_arg;

/* Pool worker `worker` runs the job on its own decoding state. */
static void pool_main(void *p, int worker)
{
    pool_arg *a = p;
    a->fn(a->job, &a->workers[worker]);
}

void b2_dctx_run(b2_dctx *d, int nt, b2_dworker_fn fn, void *job)
{
    pool_arg a = {fn, job, d->workers};
    if (b2_pool_run(d->pool, nt, pool_main, &a) < 0)
        fn(job, &d->workers[0]);
}
