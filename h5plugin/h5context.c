/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread filter state. HDF5 calls the filter with no context argument, once
 * per chunk, possibly from several threads; creating threads and touching fresh
 * memory on every chunk cost more than decoding it (new pages are zeroed and
 * faulted in by the kernel). So each calling thread keeps its contexts and
 * buffers in thread-specific data, freed when the thread exits. The key is the
 * plugin's only process-wide state; it is deleted when the plugin is unloaded,
 * so no destructor can run into unmapped code afterwards. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "h5context.h"

static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static int ctx_key_ok;

static void ctx_free(void *p)
{
    b2_h5_ctx *c = p;
    if (!c)
        return;
    b2_dctx_free(c->dctx);
    b2_cctx_free(c->cctx);
    free(c->buf[0]);
    free(c->buf[1]);
    free(c);
}

static void ctx_key_init(void) { ctx_key_ok = pthread_key_create(&ctx_key, ctx_free) == 0; }

__attribute__((destructor)) static void ctx_unload(void)
{
    if (!ctx_key_ok)
        return;
    ctx_free(pthread_getspecific(ctx_key));
    pthread_setspecific(ctx_key, NULL);
    pthread_key_delete(ctx_key); /* other threads' states leak rather than crash */
    ctx_key_ok = 0;
}

b2_h5_ctx *b2_h5_ctx_get(int nthreads)
{
    pthread_once(&ctx_once, ctx_key_init);
    if (!ctx_key_ok)
        return NULL;
    b2_h5_ctx *c = pthread_getspecific(ctx_key);
    if (!c) {
        if (!(c = calloc(1, sizeof *c)))
            return NULL;
        if (!(c->dctx = b2_dctx_new(nthreads)) || pthread_setspecific(ctx_key, c) != 0) {
            ctx_free(c);
            return NULL;
        }
        return c;
    }
    /* b2_dctx_set_nthreads drops the workers' scratch: only when it changed */
    if (b2_dctx_nthreads(c->dctx) != (nthreads > 0 ? nthreads : 1) &&
        b2_dctx_set_nthreads(c->dctx, nthreads) < 0)
        return NULL;
    return c;
}

b2_cctx *b2_h5_ctx_cctx(b2_h5_ctx *c, const b2_cparams *cp)
{
    if (c->cctx && memcmp(&c->cparams, cp, sizeof *cp) == 0)
        return c->cctx;
    b2_cctx_free(c->cctx);
    c->cctx = b2_cctx_new(cp);
    if (c->cctx)
        c->cparams = *cp;
    return c->cctx;
}

uint8_t *b2_h5_ctx_buffer(b2_h5_ctx *c, int i, size_t n)
{
    if (c->cap[i] < n) {
        free(c->buf[i]);
        c->cap[i] = 0;
        if (!(c->buf[i] = malloc(n ? n : 1)))
            return NULL;
        c->cap[i] = n;
    }
    return c->buf[i];
}
