/* SPDX-License-Identifier: BSD-3-Clause */
/* Chunk compression (doc/format/chunk.md §13): header, filters, streams, runs, stored
 * streams, memcpy fallback and zero-chunk collapse, byte-identical to
 * single-threaded c-blosc2 3.3 for the same codec library versions.
 *
 * Threads: blocks are encoded in parallel into per-block scratch areas with
 * maxout = neblock for every stream, then appended in block order. A stream's
 * single-threaded maxout is min(neblock, destsize - position); whenever that is
 * neblock the codec call is the same, so the bytes are the same. When the space
 * left at some stream is below neblock, the rest of the chunk (from that block)
 * is redone sequentially with the exact single-threaded rule. Output therefore
 * never depends on the thread count. */
#include <stdlib.h>
#include "chunk_encode.h"
#include "chunk_internal.h"
#include "codecs.h"
#include "filters.h"
#include "pool.h"
#include "registry.h"
#include "b2_chunk_experimental.h"

#define MAX_THREADS 64
#define ENC_FAIL (-1000) /* compressed form does not fit: use the memcpy fallback */

typedef struct worker {
    b2_codec_state cs;
    uint8_t *tmp_a, *tmp_b; /* filter scratch, ctx->tmpcap bytes each */
    uint8_t *tmp_c;         /* gathered block (b2_chunk_compress_rows), tmpcap bytes */
    uint8_t *tmp_d;         /* the prefilter's output block, tmpcap bytes */
} worker;

struct b2_cctx {
    b2_cparams p;
    int nthreads;
    worker *w;         /* nthreads workers; worker 0 is the calling thread */
    size_t tmpcap;
    uint8_t *slots;    /* per-block output scratch for the parallel path */
    size_t slotsize, slotcap;
    uint8_t *slotinfo; /* per slot: encoded length, zero runs, done flag */
    size_t slotinfocap;
    uint8_t *ref;      /* decoded block 0 (delta reference after lossy filters) */
    size_t refcap;
    uint8_t *samples;  /* filtered blocks for dictionary training */
    size_t samplecap;
    uint8_t dict[B2_MAX_DICT_SIZE];
    b2_pool *pool;     /* threads kept between calls (created on first use) */
    b2_prefilter_fn pre; /* b2_cctx_set_prefilter (NULL: none) */
    void *pre_user;
    int64_t nchunk;    /* passed to the prefilter (b2_cctx_set_nchunk) */
    b2_errinfo err;    /* last failure of a call on this context */
};

/* Everything one compression call needs, shared read-only by the workers. */
typedef struct job {
    const b2_cctx *c;
    const uint8_t *src;
    int32_t nbytes, blocksize, nblocks, leftover;
    int32_t typesize; /* header typesize */
    int split;
    int filtering;
    b2_pipeline pipe;
    const uint8_t *delta_ref; /* reference for blocks >= 1 */
    b2_block_rows_fn gather;  /* blocks come from the caller's rows (src unused) */
    void *gather_ud;
    const uint8_t *pre0;      /* block 0 as the prefilter gave it (delta reference), or NULL */
    int32_t shuffle_unit;     /* > 1: the pipeline is one byte shuffle of this unit */
    b2_codec_use codec;       /* blocksize set per block */
} job;

b2_cctx *b2_cctx_new(const b2_cparams *p)
{
    if (b2_cparams_check(p) != B2_OK)
        return NULL;
    b2_cctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->p = *p;
    c->nthreads = p->nthreads < 1 ? 1 : p->nthreads > MAX_THREADS ? MAX_THREADS : p->nthreads;
    c->w = calloc((size_t)c->nthreads, sizeof *c->w);
    c->pool = b2_pool_new(c->nthreads);
    if (!c->w || !c->pool) {
        free(c->w);
        b2_pool_free(c->pool);
        free(c);
        return NULL;
    }
    for (int i = 0; i < c->nthreads; i++)
        b2_codec_state_init(&c->w[i].cs);
    c->nchunk = -1;
    return c;
}

void b2_cctx_free(b2_cctx *c)
{
    if (!c)
        return;
    b2_pool_free(c->pool);
    for (int i = 0; i < c->nthreads; i++) {
        b2_codec_state_free(&c->w[i].cs);
        free(c->w[i].tmp_a);
        free(c->w[i].tmp_b);
        free(c->w[i].tmp_c);
        free(c->w[i].tmp_d);
    }
    free(c->w);
    free(c->slots);
    free(c->slotinfo);
    free(c->ref);
    free(c->samples);
    free(c);
}

const b2_cparams *b2_cctx_params(const b2_cctx *c) { return c ? &c->p : NULL; }

int b2_cctx_set_prefilter(b2_cctx *c, b2_prefilter_fn fn, void *user)
{
    if (!c)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "cctx is NULL");
    c->pre = fn;
    c->pre_user = fn ? user : NULL;
    return B2_OK;
}

int b2_cctx_set_nchunk(b2_cctx *c, int64_t nchunk)
{
    if (!c)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "cctx is NULL");
    c->nchunk = nchunk;
    return B2_OK;
}

const char *b2_cctx_last_error(const b2_cctx *c) { return c ? b2_err_text(&c->err) : ""; }

size_t b2_chunk_compress_bound(size_t nbytes) { return nbytes + B2_MAX_OVERHEAD; }

/* Grow *buf to at least n bytes (contents not kept). */
static int reserve(uint8_t **buf, size_t *cap, size_t n)
{
    if (*cap >= n)
        return B2_OK;
    free(*buf);
    *buf = malloc(n ? n : 1);
    *cap = *buf ? n : 0;
    return *buf ? B2_OK : B2_FAIL_CODE(B2_ERR_NOMEM);
}

static int reserve_workers(b2_cctx *c, int nw, size_t n, int gather)
{
    int pre = c->pre != NULL;
    if (c->tmpcap < n) {
        for (int i = 0; i < c->nthreads; i++) {
            free(c->w[i].tmp_a);
            free(c->w[i].tmp_b);
            free(c->w[i].tmp_c);
            free(c->w[i].tmp_d);
            c->w[i].tmp_a = c->w[i].tmp_b = c->w[i].tmp_c = c->w[i].tmp_d = NULL;
        }
        c->tmpcap = n;
    }
    for (int i = 0; i < nw; i++) {
        if (!c->w[i].tmp_a)
            c->w[i].tmp_a = malloc(c->tmpcap ? c->tmpcap : 1);
        if (!c->w[i].tmp_b)
            c->w[i].tmp_b = malloc(c->tmpcap ? c->tmpcap : 1);
        if (gather && !c->w[i].tmp_c)
            c->w[i].tmp_c = malloc(c->tmpcap ? c->tmpcap : 1);
        if (pre && !c->w[i].tmp_d)
            c->w[i].tmp_d = malloc(c->tmpcap ? c->tmpcap : 1);
        if (!c->w[i].tmp_a || !c->w[i].tmp_b || (gather && !c->w[i].tmp_c) ||
            (pre && !c->w[i].tmp_d))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    return B2_OK;
}

static int32_t block_size(const job *jb, int32_t j)
{
    return (j == jb->nblocks - 1 && jb->leftover) ? jb->leftover : jb->blocksize;
}

static int32_t block_streams(const job *jb, int32_t j)
{
    return (jb->split && block_size(jb, j) == jb->blocksize) ? jb->typesize : 1;
}

/* Row operations of the gather path: copy a row into the block, or shuffle it
 * straight into the block's planes. */
typedef struct gather_op {
    uint8_t *dst;
    int32_t unit, q;
    b2_part_fn shuffle; /* resolved once per block */
} gather_op;

static void row_copy_in(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    memcpy(((const gather_op *)arg)->dst + off, user, (size_t)len);
}

static void row_shuffle_in(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const gather_op *op = arg;
    op->shuffle(op->unit, op->q, (int32_t)(len / op->unit), user, op->dst + off / op->unit);
}

/* Block j of a gathered chunk into buf (bsize bytes; zeros where no row lies), or,
 * when the pipeline is one aligned shuffle, shuffled into planes (*shuffled = 1). */
static int gather_block(const job *jb, int32_t j, uint8_t *buf, uint8_t *planes, int *shuffled)
{
    int32_t bsize = block_size(jb, j), unit = jb->shuffle_unit;
    b2_block_rows r;
    memset(&r, 0, sizeof r);
    int rc = jb->gather(jb->gather_ud, j, &r);
    if (rc >= 0)
        rc = b2_rows_normalize(&r, bsize);
    if (rc < 0)
        return rc;
    *shuffled = planes && unit && bsize % unit == 0 && b2_rows_aligned(&r, unit);
    gather_op op = {*shuffled ? planes : buf, unit, unit ? bsize / unit : 0,
                    *shuffled ? b2_shuffle_part_kernel(unit) : NULL};
    if (b2_rows_bytes(&r) != bsize) /* padding of edge blocks */
        memset(op.dst, 0, (size_t)bsize);
    if (r.run)
        b2_rows_walk(&r, *shuffled ? row_shuffle_in : row_copy_in, &op);
    return B2_OK;
}

/* Block j as the prefilter makes it, into out (block_size bytes, zeroed first
 * so that bytes it leaves alone are defined). Its input is the source block: in
 * src, or gathered from the caller's rows into w->tmp_c; NULL without either. */
static int prefilter_block(const job *jb, worker *w, int32_t j, uint8_t *out)
{
    const b2_cctx *c = jb->c;
    int32_t bsize = block_size(jb, j);
    const uint8_t *in = jb->src ? jb->src + (size_t)j * (size_t)jb->blocksize : NULL;
    if (jb->gather) {
        int shuffled;
        int rc = gather_block(jb, j, w->tmp_c, NULL, &shuffled);
        if (rc < 0)
            return rc;
        in = w->tmp_c;
    }
    memset(out, 0, (size_t)bsize);
    b2_prefilter_params pp = {.user = c->pre_user, .input = in, .output = out, .size = bsize,
                              .typesize = jb->typesize,
                              .offset = (int32_t)((int64_t)j * jb->blocksize), .nblock = j,
                              .tid = (int)(w - c->w), .nchunk = c->nchunk};
    int rc = c->pre(&pp);
    if (rc != 0)
        return B2_FAIL(B2_ERR_CALLBACK, "prefilter returned %d for block %d (bytes %lld..+%d)", rc,
                       (int)j, (long long)pp.offset, (int)bsize);
    return B2_OK;
}

/* Filtered bytes of block j (src itself when no filter is active). */
static int filter_block(const job *jb, worker *w, int32_t j, const uint8_t **out)
{
    /* no src in gather mode: NULL + offset would be undefined (clang's UBSan) */
    const uint8_t *blk = jb->src ? jb->src + (size_t)j * (size_t)jb->blocksize : NULL;
    if (jb->c->pre) {
        /* the prefilter's block replaces the source; block 0 may be made already */
        if (j == 0 && jb->pre0) {
            blk = jb->pre0;
        } else {
            int rc = prefilter_block(jb, w, j, w->tmp_d);
            if (rc < 0)
                return rc;
            blk = w->tmp_d;
        }
    } else if (jb->gather) {
        /* The first pass reads the caller's rows: the shuffle itself when it is the
         * whole pipeline, else a copy into the block scratch. */
        int shuffled;
        int rc = gather_block(jb, j, w->tmp_c, jb->filtering ? w->tmp_a : NULL, &shuffled);
        if (rc < 0)
            return rc;
        if (shuffled) {
            *out = w->tmp_a;
            return B2_OK;
        }
        blk = w->tmp_c;
    }
    if (!jb->filtering) {
        *out = blk;
        return B2_OK;
    }
    return b2_pipeline_forward(&jb->pipe, blk, block_size(jb, j), j == 0 ? NULL : jb->delta_ref,
                               w->tmp_a, w->tmp_b, out);
}

static int is_run(const uint8_t *p, int32_t n)
{
    /* all bytes equal iff the buffer equals itself shifted by one */
    return n <= 1 || memcmp(p, p + 1, (size_t)n - 1) == 0;
}

/* Encode block j's streams at out[pos..], never writing at or past limit, with
 * the single-threaded rule of doc/format/chunk.md §13.5 step 4. Returns the new position,
 * ENC_FAIL, or a negative error. *nzero counts zero-run streams. */
static int64_t encode_block(const job *jb, worker *w, int32_t j, uint8_t *out, int64_t pos,
                            int64_t limit, int64_t *nzero)
{
    const uint8_t *f;
    int r = filter_block(jb, w, j, &f);
    if (r < 0)
        return r;
    int32_t ns = block_streams(jb, j);
    int32_t neblock = block_size(jb, j) / ns;
    for (int32_t s = 0; s < ns; s++, f += neblock) {
        int64_t cpos = pos;
        pos += 4;
        if (is_run(f, neblock)) {
            uint8_t v = f[0];
            pos += v != 0;
            if (pos > limit)
                return ENC_FAIL;
            b2_store_le32(out + cpos, (uint32_t)-(int32_t)v);
            if (v)
                out[cpos + 4] = 0x01; /* run token */
            else
                (*nzero)++;
            continue;
        }
        int64_t maxout = limit - pos < neblock ? limit - pos : neblock;
        if (maxout <= 0)
            return ENC_FAIL;
        b2_codec_use u = jb->codec;
        u.blocksize = block_size(jb, j);
        int cs = b2_codec_compress(&w->cs, &u, f, neblock, out + pos, (int)maxout);
        if (cs < 0)
            return cs;
        if (cs == 0 || cs >= neblock) {
            /* incompressible: store raw (csize == neblock means stored) */
            if (pos + neblock > limit)
                return ENC_FAIL;
            memcpy(out + pos, f, (size_t)neblock);
            cs = neblock;
        }
        b2_store_le32(out + cpos, (uint32_t)cs);
        pos += cs;
    }
    return pos;
}

/* Sequential encoding of blocks [from, nblocks) straight into dst. */
static int64_t encode_seq(const job *jb, worker *w, int32_t from, uint8_t *dst, int64_t pos,
                          int64_t destsize, int64_t *nzero)
{
    for (int32_t j = from; j < jb->nblocks; j++) {
        b2_store_le32(dst + B2_HEADER_LEN + 4 * (size_t)j, (uint32_t)pos);
        pos = encode_block(jb, w, j, dst, pos, destsize, nzero);
        if (pos < 0)
            return pos;
    }
    return pos;
}

/* ---- parallel path ---- */

typedef struct par {
    const job *jb;
    b2_cctx *c;
    int32_t base, next, end; /* next: taken atomically by the workers */
    int64_t *slen, *snz; /* per window slot: encoded length (or error), zero runs */
    uint8_t *done;       /* per window slot: set (release) once slen/snz are final */
    /* in-order appending, done by worker 0 (the caller) only */
    int32_t appended;    /* next block to append */
    int32_t seq_from;    /* first block to redo sequentially, or -1 */
    int64_t result;      /* first error, else 0 */
    uint8_t *dst;
    int64_t pos, destsize, *nzero;
} par;

static void run_block(par *pp, worker *w, int32_t j)
{
    int32_t k = j - pp->base;
    int64_t nz = 0;
    uint8_t *slot = pp->c->slots + (size_t)k * pp->c->slotsize;
    int64_t r = encode_block(pp->jb, w, j, slot, 0, (int64_t)pp->c->slotsize, &nz);
    pp->slen[k] = r;
    pp->snz[k] = nz;
    __atomic_store_n(&pp->done[k], 1, __ATOMIC_RELEASE);
}

/* Append window slot k (block j) at *pos if the single-threaded encoder would
 * have produced the same bytes there. Returns 1 if appended, 0 if block j must be
 * redone sequentially, ENC_FAIL, or an error. */
static int append_slot(const job *jb, b2_cctx *c, par *pp, int32_t j, uint8_t *dst,
                       int64_t *pos, int64_t destsize, int64_t *nzero)
{
    int32_t k = j - pp->base;
    int64_t len = pp->slen[k];
    if (len == ENC_FAIL)
        return 0;
    if (len < 0)
        return (int)len;
    const uint8_t *slot = c->slots + (size_t)k * c->slotsize;
    int32_t ns = block_streams(jb, j);
    int32_t neblock = block_size(jb, j) / ns;
    int64_t p = *pos, q = 0;
    for (int32_t s = 0; s < ns; s++) {
        int32_t cs = b2_load_le32s(slot + q);
        p += 4;
        q += 4;
        if (cs <= 0) {
            p += cs != 0;
            q += cs != 0;
            if (p > destsize)
                return ENC_FAIL;
        } else {
            if (destsize - p < neblock)
                return 0;
            p += cs;
            q += cs;
        }
    }
    b2_store_le32(dst + B2_HEADER_LEN + 4 * (size_t)j, (uint32_t)*pos);
    memcpy(dst + *pos, slot, (size_t)len);
    *pos += len;
    *nzero += pp->snz[k];
    return 1;
}

/* Append the finished blocks that come next in order, so copying the output
 * overlaps the other workers' encoding instead of following a barrier. */
static void append_ready(par *pp)
{
    while (pp->seq_from < 0 && pp->result >= 0 && pp->appended < pp->end &&
           __atomic_load_n(&pp->done[pp->appended - pp->base], __ATOMIC_ACQUIRE)) {
        int32_t j = pp->appended;
        int r = append_slot(pp->jb, pp->c, pp, j, pp->dst, &pp->pos, pp->destsize, pp->nzero);
        if (r == 0)
            pp->seq_from = j;
        else if (r < 0)
            pp->result = r;
        else
            pp->appended++;
    }
}

/* Pool worker: take blocks of the current window until none is left; the caller
 * (worker 0) also appends finished blocks as it goes. */
static void drain(void *arg, int wi)
{
    par *pp = arg;
    for (;;) {
        int32_t j = __atomic_fetch_add(&pp->next, 1, __ATOMIC_RELAXED);
        if (j >= pp->end)
            break;
        run_block(pp, &pp->c->w[wi], j);
        if (wi == 0)
            append_ready(pp);
    }
}

/* Slot memory a window may take before it is cut into several windows. */
#define PAR_SLOTS_MAX ((size_t)64 << 20)

static int64_t encode_par(const job *jb, b2_cctx *c, int nt, uint8_t *dst, int64_t pos,
                          int64_t destsize, int64_t *nzero)
{
    int32_t maxns = jb->split ? jb->typesize : 1;
    c->slotsize = (size_t)jb->blocksize + 5 * (size_t)maxns;
    /* one window for the whole chunk when its slots fit, so workers never wait
     * for each other between windows */
    size_t fit = PAR_SLOTS_MAX / c->slotsize;
    int32_t window = fit >= (size_t)jb->nblocks ? jb->nblocks : (int32_t)fit;
    if (window < 8 * nt)
        window = 8 * nt < jb->nblocks ? 8 * nt : jb->nblocks;
    size_t infosize = 2 * (size_t)window * sizeof(int64_t) + (size_t)window;
    if (reserve(&c->slotinfo, &c->slotinfocap, infosize) < 0 ||
        reserve(&c->slots, &c->slotcap, c->slotsize * (size_t)window) < 0)
        return encode_seq(jb, &c->w[0], 0, dst, pos, destsize, nzero); /* fine without */
    int64_t *slen = (int64_t *)(void *)c->slotinfo;

    par pp = {.jb = jb, .c = c, .slen = slen, .snz = slen + window,
              .done = (uint8_t *)(slen + 2 * window), .seq_from = -1, .dst = dst, .pos = pos,
              .destsize = destsize, .nzero = nzero};
    for (int32_t base = 0; base < jb->nblocks && pp.seq_from < 0 && pp.result >= 0; base += window) {
        pp.base = base;
        pp.next = base;
        pp.appended = base;
        pp.end = base + window < jb->nblocks ? base + window : jb->nblocks;
        memset(pp.done, 0, (size_t)window);
        if (b2_pool_run(c->pool, nt, drain, &pp) < 0)
            drain(&pp, 0);
        append_ready(&pp); /* what the other workers finished last */
    }

    if (pp.result < 0)
        return pp.result;
    if (pp.seq_from >= 0)
        return encode_seq(jb, &c->w[0], pp.seq_from, dst, pp.pos, destsize, nzero);
    return pp.pos;
}

/* ---- whole chunk ---- */

/* Delta reference for blocks >= 1: the block 0 a decoder will reconstruct. That
 * is the raw block 0 unless a lossy filter (trunc_prec, int_trunc, ndmean, maybe
 * a user filter) runs before delta; then it is block 0 after a forward and
 * backward pass through the pipeline. */
static int setup_delta_ref(job *jb, b2_cctx *c)
{
    int first_trunc = -1, last_delta = -1;
    for (int i = 0; i < B2_MAX_FILTERS; i++) {
        if (jb->pipe.filters[i] == B2_FILTER_DELTA)
            last_delta = i;
        /* a user filter may be lossy too: the round trip costs one block */
        if ((jb->pipe.filters[i] == B2_FILTER_TRUNC_PREC ||
             jb->pipe.filters[i] == B2_FILTER_INT_TRUNC ||
             jb->pipe.filters[i] == B2_FILTER_NDMEAN || b2_is_user_id(jb->pipe.filters[i])) &&
            first_trunc < 0)
            first_trunc = i;
    }
    int trunc_before = first_trunc >= 0 && first_trunc < last_delta;
    jb->delta_ref = jb->src;
    if (last_delta < 0 || jb->nblocks < 2)
        return B2_OK;
    int32_t n = jb->blocksize;
    int r;
    if (c->pre) {
        /* the prefilter's block 0, made once: the reference and block 0 itself */
        if ((r = reserve(&c->ref, &c->refcap, (size_t)n)) < 0 ||
            (r = prefilter_block(jb, &c->w[0], 0, c->ref)) < 0)
            return r;
        jb->delta_ref = jb->pre0 = c->ref;
    } else if (jb->gather) {
        /* the raw block 0, gathered once */
        int shuffled;
        if ((r = reserve(&c->ref, &c->refcap, (size_t)n)) < 0 ||
            (r = gather_block(jb, 0, c->ref, NULL, &shuffled)) < 0)
            return r;
        jb->delta_ref = c->ref;
    }
    if (!trunc_before)
        return B2_OK;
    if ((r = reserve(&c->ref, &c->refcap, (size_t)n)) < 0)
        return r;
    const uint8_t *f;
    worker *w = &c->w[0];
    if ((r = filter_block(jb, w, 0, &f)) < 0)
        return r;
    memcpy(c->ref, f, (size_t)n);
    if ((r = b2_pipeline_backward(&jb->pipe, c->ref, n, NULL, w->tmp_a, w->tmp_b)) < 0)
        return r;
    memcpy(c->ref, w->tmp_b, (size_t)n);
    jb->delta_ref = c->ref;
    jb->pre0 = NULL; /* c->ref is the round trip now: block 0 is asked for again */
    return B2_OK;
}

/* Train the dictionary and write it after bstarts. Returns its section size
 * (0: no dictionary), ENC_FAIL, or an error. */
static int64_t setup_dict(const job *jb, b2_cctx *c, uint8_t *dst, int64_t pos,
                          int64_t destsize)
{
    int r = reserve(&c->samples, &c->samplecap, (size_t)jb->nbytes);
    if (r < 0)
        return r;
    for (int32_t j = 0; j < jb->nblocks; j++) {
        const uint8_t *f;
        if ((r = filter_block(jb, &c->w[0], j, &f)) < 0)
            return r;
        memcpy(c->samples + (size_t)j * (size_t)jb->blocksize, f, (size_t)block_size(jb, j));
    }
    int dsize = b2_dict_build(c->p.codec, c->samples, jb->nbytes, jb->nblocks, jb->typesize,
                              jb->split, c->dict);
    if (dsize <= 0)
        return dsize;
    if (pos + 4 + dsize > destsize)
        return ENC_FAIL;
    b2_store_le32(dst + pos, (uint32_t)dsize);
    memcpy(dst + pos + 4, c->dict, (size_t)dsize);
    return 4 + (int64_t)dsize;
}

static void set_dicts(b2_cctx *c, int nw, const uint8_t *dict, int dsize)
{
    for (int i = 0; i < nw; i++)
        b2_codec_set_dict(&c->w[i].cs, c->p.codec, dict, dsize);
}

/* The header's 32 bytes but cbytes (and the flags the encoding adds later). */
static void write_header(const job *jb, const b2_cparams *p, int memcpyed, int has_delta,
                         uint8_t *h)
{
    memset(h, 0, B2_HEADER_LEN);
    h[0] = B2_VERSION_FORMAT;
    h[1] = 1;
    h[2] = 0x05;
    if (!memcpyed) {
        h[2] |= (uint8_t)((has_delta ? 0x08 : 0) | (jb->split ? 0 : 0x10) |
                          b2_codec_format_of(p->codec) << 5);
    }
    h[3] = (uint8_t)jb->typesize;
    b2_store_le32(h + 4, (uint32_t)jb->nbytes);
    b2_store_le32(h + 8, (uint32_t)jb->blocksize);
    memcpy(h + 16, p->filters, B2_MAX_FILTERS);
    h[22] = (uint8_t)p->codec;
    h[23] = p->codec_meta;
    memcpy(h + 24, p->filters_meta, B2_MAX_FILTERS);
}

/* A memcpy chunk's data after its header at out: the source bytes as the
 * prefilter makes them, as the caller's rows hold them, or as given. */
static int copy_raw(const job *jb, b2_cctx *c, uint8_t *out)
{
    if (c->pre) {
        int r = reserve_workers(c, 1, (size_t)jb->blocksize, jb->gather != NULL);
        for (int32_t j = 0; r >= 0 && j < jb->nblocks; j++) {
            uint8_t *o = out + (size_t)j * (size_t)jb->blocksize;
            if (j == 0 && jb->pre0)
                memcpy(o, jb->pre0, (size_t)block_size(jb, 0));
            else
                r = prefilter_block(jb, &c->w[0], j, o);
        }
        return r < 0 ? r : B2_OK;
    }
    if (jb->gather) {
        for (int32_t j = 0; j < jb->nblocks; j++) {
            int shuffled;
            int r = gather_block(jb, j, out + (size_t)j * (size_t)jb->blocksize, NULL, &shuffled);
            if (r < 0)
                return r;
        }
    } else if (jb->nbytes) {
        memcpy(out, jb->src, (size_t)jb->nbytes);
    }
    return B2_OK;
}

static int compress_impl(b2_cctx *c, const void *src, b2_block_rows_fn gather, void *gather_ud,
                         size_t nbytes, void *dstv, size_t dstcap)
{
    if (nbytes > B2_MAX_BUFFERSIZE)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    if (dstcap < B2_HEADER_LEN)
        return B2_FAIL_CODE(B2_ERR_DST_TOO_SMALL);
    const b2_cparams *p = &c->p;
    uint8_t *dst = dstv;
    /* Like the reference, the capacity takes part in the memcpy decision (doc/format/chunk.md §13.5). */
    int64_t destsize = dstcap > INT32_MAX ? INT32_MAX : (int64_t)dstcap;

    job jb = {.c = c, .src = src, .nbytes = (int32_t)nbytes, .gather = gather,
              .gather_ud = gather_ud};
    jb.typesize = b2_header_typesize(p->typesize);
    jb.blocksize = b2_tune_blocksize(p, jb.nbytes);
    jb.nblocks = nbytes ? (int32_t)((nbytes + (size_t)jb.blocksize - 1) / (size_t)jb.blocksize) : 0;
    jb.leftover = (int32_t)(nbytes % (size_t)jb.blocksize);
    /* Only blocks holding whole elements may be split (doc/format/chunk.md §4.1). */
    jb.split = b2_tune_split(p, jb.typesize, jb.blocksize) && jb.blocksize % jb.typesize == 0;
    b2_cparams_pipeline(p, &jb.pipe);
    jb.filtering = b2_pipeline_active(&jb.pipe);
    jb.shuffle_unit = b2_pipeline_single_shuffle(&jb.pipe, 1);
    jb.codec = (b2_codec_use){.compcode = p->codec, .fmt = b2_codec_format_of(p->codec),
                              .clevel = p->clevel, .meta = p->codec_meta,
                              .typesize = jb.typesize, .geom = jb.pipe.geom,
                              .user = b2_user_codec_find(p->registry, p->codec)};

    int has_delta = 0;
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        has_delta |= p->filters[i] == B2_FILTER_DELTA;
    int64_t bstarts_end = B2_HEADER_LEN + 4 * (int64_t)jb.nblocks;
    int memcpyed = p->clevel == 0 || nbytes < 32 || bstarts_end > destsize;

    uint8_t *h = dst;
    write_header(&jb, p, memcpyed, has_delta, h);

    int64_t pos = ENC_FAIL, nzero = 0;
    int nt = c->nthreads < jb.nblocks ? c->nthreads : jb.nblocks;
    if (nt < 1)
        nt = 1;
    int has_dict = 0;
    if (!memcpyed) {
        int r = reserve_workers(c, nt, (size_t)jb.blocksize, gather != NULL);
        if (r == B2_OK)
            r = setup_delta_ref(&jb, c);
        if (r < 0)
            return r;
        pos = bstarts_end;
        if (p->use_dict) {
            int64_t d = setup_dict(&jb, c, dst, pos, destsize);
            if (d < 0 && d != ENC_FAIL)
                return (int)d;
            if (d == ENC_FAIL) {
                pos = ENC_FAIL;
            } else if (d > 0) {
                has_dict = 1;
                h[31] |= 0x01;
                pos += d;
                set_dicts(c, nt, dst + bstarts_end + 4, (int)(d - 4));
            }
        }
        if (pos >= 0) {
            pos = nt > 1 ? encode_par(&jb, c, nt, dst, pos, destsize, &nzero)
                         : encode_seq(&jb, &c->w[0], 0, dst, pos, destsize, &nzero);
        }
        if (has_dict)
            set_dicts(c, nt, NULL, 0);
        if (pos < 0 && pos != ENC_FAIL)
            return (int)pos;
    }

    if (pos >= 0) {
        int64_t nstreams = (int64_t)(jb.nblocks - (jb.leftover ? 1 : 0)) *
                               (jb.split ? jb.typesize : 1) + (jb.leftover ? 1 : 0);
        if (!has_dict && nzero == nstreams) {
            /* every stream was a zero run: the header alone says "zeros" */
            h[31] |= B2_SPECIAL_ZEROS << 4;
            pos = B2_HEADER_LEN;
        }
        b2_store_le32(h + 12, (uint32_t)pos);
        return (int)pos;
    }

    /* memcpy chunk: header + raw data (no dictionary, whatever was tried) */
    if ((int64_t)nbytes + B2_HEADER_LEN > destsize)
        return B2_FAIL_CODE(B2_ERR_DST_TOO_SMALL);
    h[2] |= 0x02;
    h[31] &= (uint8_t)~0x01;
    b2_store_le32(h + 12, (uint32_t)(nbytes + B2_HEADER_LEN));
    int r = copy_raw(&jb, c, dst + B2_HEADER_LEN);
    return r < 0 ? r : (int)(nbytes + B2_HEADER_LEN);
}

int b2_chunk_compress(b2_cctx *c, const void *src, size_t nbytes, void *dst, size_t dstcap)
{
    /* with a prefilter, src is only its input and may be absent */
    if (!c || !dst || (!src && nbytes && !c->pre))
        return c ? B2_KEEP(&c->err, B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !dst ? "dst" : "src"))
                 : B2_FAIL(B2_ERR_INVALID_PARAM, "cctx is NULL");
    return B2_KEEP(&c->err, compress_impl(c, src, NULL, NULL, nbytes, dst, dstcap));
}

int b2_chunk_compress_rows(b2_cctx *c, size_t nbytes, b2_block_rows_fn fn, void *ud, void *dst,
                           size_t dstcap)
{
    if (!c || !dst || !fn)
        return c ? B2_KEEP(&c->err, B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !dst ? "dst" : "fn"))
                 : B2_FAIL(B2_ERR_INVALID_PARAM, "cctx is NULL");
    return B2_KEEP(&c->err, compress_impl(c, NULL, fn, ud, nbytes, dst, dstcap));
}
