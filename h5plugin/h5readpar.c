/* SPDX-License-Identifier: BSD-3-Clause */
/* The parallel path of b2_h5_reader_read: a box touching several chunks.
 *
 * The calling thread (pool worker 0) alone calls HDF5: it looks up each chunk
 * (b2_h5_locate) in C order and queues it at once, so look-ups overlap
 * decoding. The queue holds at most 2 x nthreads chunks; when it is full the
 * calling thread decodes one itself (so a pool that could not start its helpers
 * still finishes). A chunk looked up by address is read by the worker that
 * decodes it (pread into its own buffer); one that is not (datasets of many
 * small chunks) is read by the calling thread with H5Dread_chunk into one of
 * 3 x nthreads buffers that queued and decoding chunks hold. Workers decode the
 * blocks the box needs straight into the caller's buffer (through a per-worker
 * buffer when the chunk's part is not contiguous there). Memory in flight: per
 * thread, four chunks' stored bytes and one chunk's decoded bytes at most, held
 * by the reader until it is freed.
 *
 * Chunks HDF5 must read itself (unallocated: fill value; filter mask set: stored
 * raw) are read with H5Dread by the calling thread right after their look-up,
 * while the workers decode the others.
 * Errors (stored bytes past the end of the file or over the memory limit, bytes
 * that are not a frame of the stored size, a frame that decodes to another size
 * than the chunk, a block that fails to decode): where H5Dread would
 * fail too or, for a frame of the wrong size, hand back bytes it never wrote.
 * The first one is kept, the look-ups stop, the queued chunks are dropped and
 * every worker returns before the error does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_frame.h"
#include "b2_nd.h"
#include "h5params.h"
#include "h5read_int.h"
#include "b2_helpers_experimental.h"
#include "b2_chunk_experimental.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"

struct b2_h5_par_worker {
    b2_dctx *dctx;
    uint8_t *sbuf; /* stored bytes */
    size_t scap;
    uint8_t *tmp;  /* a decoded part or chunk, when not decoded in place */
    size_t tcap;
    int32_t *list; /* the blocks a part needs */
    size_t lcap;
};

/* Stored bytes the calling thread read through HDF5. */
struct b2_h5_par_buf {
    uint8_t *p;
    size_t cap;
};

typedef struct task {
    hsize_t lo[MAXDIM], hi[MAXDIM]; /* the part, dataset coordinates */
    haddr_t addr;                   /* HADDR_UNDEF: the bytes are in rd->bufs[buf] */
    hsize_t size;
    int buf;                        /* -1: the worker preads them at addr */
} task;

typedef struct par {
    reader *r;
    b2_h5_reader *rd;
    int fd;
    int64_t fsize;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    task *q;         /* ring of qcap */
    int qcap, qhead, qlen;
    int inflight;    /* tasks being decoded */
    int producing;   /* look-ups still going on */
    int stop;        /* an error: drop everything */
    int err;
    char msg[512];
    int64_t direct, bytes, blocks; /* report counters of the workers */
    int *freeb, nfree;               /* rd->bufs not held by a task */
} par;

int b2_h5_par_wanted(const reader *r, int64_t nchunks, uint64_t nbytes)
{
    const b2_h5_reader *rd = r->ds;
    return nchunks >= 2 && nbytes >= rd->par_min && rd->userblock == 0;
}

void b2_h5_par_free(b2_h5_reader *rd)
{
    b2_pool_free(rd->pool);
    rd->pool = NULL;
    for (int i = 0; i < rd->nwk; i++) {
        b2_dctx_free(rd->wk[i].dctx);
        free(rd->wk[i].sbuf);
        free(rd->wk[i].tmp);
        free(rd->wk[i].list);
    }
    free(rd->wk);
    rd->wk = NULL;
    rd->nwk = 0;
    for (int i = 0; i < rd->nbufs; i++)
        free(rd->bufs[i].p);
    free(rd->bufs);
    rd->bufs = NULL;
    rd->nbufs = 0;
}

/* Record the first failure (with the chunk it concerns) and cancel the rest. */
static void fail_locked(par *P, const task *t, int rc, const char *fmt, const char *arg)
{
    if (!P->stop) {
        char where[128], what[256];
        b2_h5_coords_text(where, sizeof where, P->r->rank, t->lo, P->r->cdims);
        snprintf(what, sizeof what, fmt, arg);
        if (t->addr == HADDR_UNDEF)
            snprintf(P->msg, sizeof P->msg, "chunk at %.100s (%llu bytes): %.250s", where,
                     (unsigned long long)t->size, what);
        else
            snprintf(P->msg, sizeof P->msg, "chunk at %.100s (file offset %llu, %llu bytes): "
                     "%.250s", where, (unsigned long long)t->addr, (unsigned long long)t->size,
                     what);
        P->err = rc;
        P->stop = 1;
        for (; P->qlen > 0; P->qlen--) { /* queued chunks are dropped */
            int b = P->q[P->qhead].buf;
            if (b >= 0)
                P->freeb[P->nfree++] = b;
            P->qhead = (P->qhead + 1) % P->qcap;
        }
    }
    pthread_cond_broadcast(&P->cv);
}

static void fail(par *P, const task *t, int rc, const char *fmt, const char *arg)
{
    pthread_mutex_lock(&P->mu);
    fail_locked(P, t, rc, fmt, arg);
    pthread_mutex_unlock(&P->mu);
}

/* A b2nd chunk of one frame decoded block by block straight into the caller's
 * strided buffer (b2_chunk_decompress_rows): where block k's rows of the part go. */
typedef struct rows_ctx {
    int rank;
    int64_t ts;
    int64_t bs[MAXDIM], nb[MAXDIM], bstr[MAXDIM]; /* block shape, blocks per dimension, strides */
    const hsize_t *clo, *chi;                     /* the part, chunk coordinates */
    const int64_t *ustr;                          /* the caller's box strides (items) */
    uint8_t *dst;                                 /* the part's first element there */
} rows_ctx;

static int place_rows(void *ud, int32_t k, b2_block_rows *r)
{
    const rows_ctx *c = ud;
    int64_t rem = k, bo = 0, uo = 0, cnt[MAXDIM];
    for (int d = c->rank - 1; d >= 0; d--) {
        int64_t b0 = (rem % c->nb[d]) * c->bs[d];
        rem /= c->nb[d];
        int64_t from = (int64_t)c->clo[d] > b0 ? (int64_t)c->clo[d] : b0;
        int64_t to = (int64_t)c->chi[d] < b0 + c->bs[d] ? (int64_t)c->chi[d] : b0 + c->bs[d];
        if ((cnt[d] = to - from) <= 0)
            return B2_OK; /* not in the part: no rows */
        bo += (from - b0) * c->bstr[d];
        uo += (from - (int64_t)c->clo[d]) * c->ustr[d];
    }
    r->nd = c->rank - 1;
    for (int d = 0; d < r->nd; d++) {
        r->cnt[d] = cnt[d];
        r->sstr[d] = c->bstr[d] * c->ts;
        r->dstr[d] = c->ustr[d] * c->ts;
    }
    r->run = cnt[c->rank - 1] * c->ts;
    r->soff = bo * c->ts;
    r->user = c->dst + uo * c->ts;
    return B2_OK;
}

/* Decode the part [clo, chi) of the one-chunk b2nd array a straight into dst
 * (caller strides ustr). B2_ERR_UNSUPPORTED (nothing written): not such an
 * array, or a chunk the rows decoder does not take (then b2_nd slices it). */
static int decode_rows(struct b2_h5_par_worker *w, b2_nd_array *a, int rank, int64_t ts,
                       const hsize_t *clo, const hsize_t *chi, const int64_t *ustr,
                       uint8_t *dst, int64_t *blocks)
{
    if (rank - 1 > B2_ROWS_MAXDIM || rank > B2_GEOM_MAX_DIM ||
        b2_schunk_nchunks(b2_nd_schunk(a)) != 1)
        return B2_ERR_UNSUPPORTED;
    rows_ctx c = {.rank = rank, .ts = ts, .clo = clo, .chi = chi, .ustr = ustr, .dst = dst};
    b2_block_geometry g = {.ndim = rank};
    int64_t need = 1, all = 1, s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (b2_nd_chunkshape(a)[d] != b2_nd_shape(a)[d] || b2_nd_blockshape(a)[d] <= 0)
            return B2_ERR_UNSUPPORTED;
        c.bs[d] = g.blockshape[d] = b2_nd_blockshape(a)[d];
        c.nb[d] = (b2_nd_shape(a)[d] + c.bs[d] - 1) / c.bs[d];
        c.bstr[d] = s;
        s *= c.bs[d];
        need *= (int64_t)((chi[d] - 1) / (hsize_t)c.bs[d] - clo[d] / (hsize_t)c.bs[d] + 1);
        all *= c.nb[d];
    }
    if (need > INT32_MAX || (size_t)need > SIZE_MAX / sizeof *w->list)
        return B2_ERR_UNSUPPORTED;
    const int32_t *list = NULL;
    if (need < all) { /* the blocks the part meets, in C order of the block grid */
        if (w->lcap < (size_t)need) {
            int32_t *l = realloc(w->list, (size_t)need * sizeof *l);
            if (!l)
                return B2_ERR_UNSUPPORTED;
            w->list = l;
            w->lcap = (size_t)need;
        }
        int64_t idx[MAXDIM], lo[MAXDIM], hi[MAXDIM];
        for (int d = 0; d < rank; d++) {
            idx[d] = lo[d] = (int64_t)clo[d] / c.bs[d];
            hi[d] = (int64_t)(chi[d] - 1) / c.bs[d];
        }
        for (int64_t i = 0; i < need; i++) {
            int64_t k = 0;
            for (int d = 0; d < rank; d++)
                k = k * c.nb[d] + idx[d];
            w->list[i] = (int32_t)k;
            for (int d = rank - 1; d >= 0 && ++idx[d] > hi[d]; d--)
                idx[d] = lo[d];
        }
        list = w->list;
    }
    const uint8_t *chunk;
    int32_t cbytes;
    int rc = b2_schunk_chunk_view(b2_nd_schunk(a), 0, &chunk, &cbytes);
    if (rc < 0)
        return rc;
    b2_dctx_set_geometry(w->dctx, &g);
    rc = b2_chunk_decompress_rows(w->dctx, chunk, (size_t)cbytes, list, (int32_t)need, place_rows, &c);
    *blocks = need;
    return rc;
}

/* Task t's stored bytes into *stored: the calling thread's buffer, or w->sbuf
 * read from the file at t->addr. 0 or a negative error already recorded in P. */
static int task_bytes(par *P, struct b2_h5_par_worker *w, const task *t, const uint8_t **stored)
{
    int64_t limit = P->rd->mem_limit > 0 ? P->rd->mem_limit : B2_DEFAULT_MEMORY_LIMIT;
    if (t->size > (hsize_t)limit || t->size > (hsize_t)SIZE_MAX) {
        fail(P, t, B2_ERR_LIMIT, "%s", "the stored size is over the memory limit "
             "(B2_H5_MEMORY_LIMIT raises it)");
        return B2_ERR_LIMIT;
    }
    size_t size = (size_t)t->size;
    if (t->buf >= 0) {
        *stored = P->rd->bufs[t->buf].p;
        return B2_OK;
    }
    if (t->addr > (haddr_t)P->fsize || t->size > (hsize_t)P->fsize - t->addr) {
        fail(P, t, B2_ERR_CORRUPT, "%s", "the stored bytes pass the end of the file");
        return B2_ERR_CORRUPT;
    }
    if (b2_h5_grow(&w->sbuf, &w->scap, size ? size : 1) < 0) {
        fail(P, t, B2_ERR_NOMEM, "%s", "no memory for the stored bytes");
        return B2_ERR_NOMEM;
    }
    for (size_t got = 0; got < size;) {
        ssize_t n = pread(P->fd, w->sbuf + got, size - got, (off_t)(t->addr + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fail(P, t, B2_ERR_IO, "pread: %s", n < 0 ? strerror(errno) : "end of file");
            return B2_ERR_IO;
        }
        got += (size_t)n;
    }
    *stored = w->sbuf;
    return B2_OK;
}

/* A task's part in its chunk and in the caller's box. */
typedef struct part {
    hsize_t clo[MAXDIM], chi[MAXDIM], cnt[MAXDIM]; /* [clo, chi) in the chunk, its extent */
    int64_t ustr[MAXDIM], pstr[MAXDIM];            /* strides of the caller's box, of the part */
    int64_t nitems;                                /* elements of a whole chunk */
    size_t n;                                      /* the part's bytes */
    int whole;                                     /* the part is the whole chunk */
    int contiguous;                                /* the part is one run of the caller's buffer */
    uint8_t *dst;                                  /* the part's first element there */
} part;

/* The geometry of task t's part (read r). */
static void part_of(const reader *r, const task *t, part *p)
{
    int64_t uoff = 0;
    p->nitems = 1;
    p->whole = 1;
    p->n = r->ts;
    b2_h5_strides_of(r->rank, r->count, p->ustr);
    for (int d = 0; d < r->rank; d++) {
        hsize_t coff = t->lo[d] / r->cdims[d] * r->cdims[d];
        p->clo[d] = t->lo[d] - coff;
        p->chi[d] = t->hi[d] - coff;
        p->cnt[d] = t->hi[d] - t->lo[d];
        p->n *= p->cnt[d];
        p->nitems *= (int64_t)r->cdims[d];
        p->whole &= p->cnt[d] == r->cdims[d];
        uoff += (int64_t)(t->lo[d] - r->start[d]) * p->ustr[d];
    }
    /* the part is one run of the caller's buffer when every dimension after
     * the first one it spans partially is spanned whole by the box */
    p->contiguous = b2_h5_part_is_run(r->rank, p->cnt, r->count);
    b2_h5_strides_of(r->rank, p->cnt, p->pstr);
    p->dst = r->buf + uoff * (int64_t)r->ts;
}

/* Open task t's stored bytes as the filter does: a frame (*s), or a b2nd array
 * (*a, which owns the frame; *s NULL), of the chunk's cn bytes. 0 or a negative
 * error already recorded in P (nothing left open). */
static int open_task_frame(par *P, struct b2_h5_par_worker *w, const task *t,
                           const uint8_t *stored, int64_t cn, b2_schunk **s, b2_nd_array **a)
{
    *s = NULL;
    *a = NULL;
    int rc = b2_h5_frame_open(stored, (size_t)t->size, P->rd->mem_limit, s);
    if (rc < 0) { /* as the filter opens it: H5Dread would fail too */
        fail(P, t, rc, "the stored bytes are not a Blosc2 frame of that size: %s", b2_err_detail());
        return rc;
    }
    char why[300];
    if ((rc = b2_h5_frame_verify(*s, why, sizeof why)) < 0) { /* frames holding checksums */
        b2_schunk_free(*s);
        fail(P, t, rc, "%s", why);
        return rc;
    }
    b2_dctx_set_memory_limit(w->dctx, P->rd->mem_limit);
    uint8_t *meta = NULL;
    int32_t mlen = 0;
    int is_nd = b2_schunk_meta_get(*s, B2_ND_META_NAME, &meta, &mlen) >= 0 ||
                b2_schunk_meta_get(*s, B2_ND_META_LEGACY_NAME, &meta, &mlen) >= 0;
    free(meta);
    /* The chunk's bytes are what the filter decodes: a b2nd array in C order, or
     * the frame's first chunk. They must be the chunk's size: a frame decoding to
     * fewer bytes would make H5Dread hand back bytes nobody wrote. */
    int64_t got = -1;
    if (is_nd) {
        if ((rc = b2_nd_from_schunk(*s, a)) < 0) {
            b2_schunk_free(*s);
            fail(P, t, rc, "the frame's b2nd metalayer is invalid: %s", b2_err_detail());
            return rc;
        }
        *s = NULL; /* the array owns it */
        got = b2_nd_nitems(*a) * b2_nd_typesize(*a);
    } else if (b2_schunk_nchunks(*s) >= 1) {
        got = b2_schunk_chunk_nbytes(*s, 0);
    }
    if (got != cn) {
        b2_nd_free(*a);
        b2_schunk_free(*s);
        char what[96];
        snprintf(what, sizeof what, "%lld bytes, the chunk holds %lld", (long long)got, (long long)cn);
        fail(P, t, B2_ERR_CORRUPT, "the frame decodes to the wrong size (%s)", what);
        return B2_ERR_CORRUPT;
    }
    return B2_OK;
}

/* The part p of the b2nd array a (the chunk's shape and item size) through
 * b2_nd_get_slice_cbuffer, where the rows decoder does not take it: into the
 * caller's buffer, or through w->tmp when the part is not one run there. */
static int decode_slice(struct b2_h5_par_worker *w, b2_nd_array *a, int rank, size_t ts,
                        const part *p, int64_t *blocks)
{
    int rc = B2_OK;
    uint8_t *out = p->dst;
    if (!p->contiguous && b2_h5_grow(&w->tmp, &w->tcap, p->n) < 0)
        rc = B2_ERR_NOMEM;
    else if (!p->contiguous)
        out = w->tmp;
    int64_t b0 = b2_nd_blocks_decoded(a);
    int64_t st[MAXDIM], sp[MAXDIM];
    for (int d = 0; d < rank; d++) {
        st[d] = (int64_t)p->clo[d];
        sp[d] = (int64_t)p->chi[d];
    }
    if (rc >= 0)
        rc = b2_nd_get_slice_cbuffer(a, st, sp, out, p->n);
    *blocks = b2_nd_blocks_decoded(a) - b0;
    if (rc >= 0 && out != p->dst)
        b2_h5_copy_box(rank, p->cnt, ts, p->dst, p->ustr, out, p->pstr);
    return rc;
}

/* The part p of a chunk that is no b2nd array of the chunk's shape and item size
 * (a plain frame, or an array with other items, as for array types): its first
 * chunk decoded whole, or only the items wanted (rank 1), as the filter would
 * decode it. *wrong_size: the frame's chunk decoded to another size. */
static int decode_whole(struct b2_h5_par_worker *w, b2_schunk *s, b2_nd_array *a, const reader *r,
                        const part *p, int64_t cn, int *wrong_size)
{
    const int rank = r->rank;
    const size_t ts = r->ts, n = p->n;
    int64_t cstr[MAXDIM], coff = 0;
    b2_h5_strides_of(rank, r->cdims, cstr);
    for (int d = 0; d < rank; d++)
        coff += (int64_t)p->clo[d] * cstr[d];
    const uint8_t *chunk = NULL;
    int32_t cbytes = 0;
    int uninit = 0, rc = B2_OK;
    if (!a) {
        b2_dctx_set_geometry(w->dctx, NULL);
        rc = b2_schunk_chunk_view(s, 0, &chunk, &cbytes);
        uninit = rc >= 0 && b2_schunk_chunk_special(s, 0) == B2_SPECIAL_UNINIT;
    }
    if (rc >= 0 && !a && !uninit && p->whole && p->contiguous) {
        rc = b2_chunk_decompress(w->dctx, chunk, (size_t)cbytes, p->dst, n);
        *wrong_size = rc >= 0 && rc != (int)n;
    } else if (rc >= 0 && !a && !uninit && rank == 1 && b2_schunk_typesize(s) == (int32_t)ts) {
        rc = b2_chunk_getitem(w->dctx, chunk, (size_t)cbytes, (int64_t)p->clo[0],
                              (int64_t)p->cnt[0], p->dst, n);
        *wrong_size = rc >= 0 && rc != (int)n;
    } else if (rc >= 0) { /* the whole chunk, then its part */
        if (b2_h5_grow(&w->tmp, &w->tcap, (size_t)cn) < 0) {
            rc = B2_ERR_NOMEM;
        } else if (a) {
            rc = b2_nd_to_cbuffer(a, w->tmp, (size_t)cn);
        } else if (uninit) {
            memset(w->tmp, 0, (size_t)cn); /* as the filter does */
        } else {
            rc = b2_chunk_decompress(w->dctx, chunk, (size_t)cbytes, w->tmp, (size_t)cn);
            *wrong_size = rc >= 0 && rc != (int)cn;
        }
        if (rc >= 0 && !*wrong_size)
            b2_h5_copy_box(rank, p->cnt, ts, p->dst, p->ustr, w->tmp + coff * (int64_t)ts, cstr);
    }
    return *wrong_size ? B2_ERR_CORRUPT : rc;
}

/* Decode task t on worker w. Returns 0 or a negative error already recorded in P. */
static int decode_task(par *P, struct b2_h5_par_worker *w, task *t)
{
    reader *r = P->r;
    const int rank = r->rank;
    const size_t ts = r->ts;
    const uint8_t *stored;
    int rc = task_bytes(P, w, t, &stored);
    if (rc < 0)
        return rc;
    part p;
    part_of(r, t, &p);
    const int64_t cn = p.nitems * (int64_t)ts;
    b2_schunk *s;
    b2_nd_array *a;
    if ((rc = open_task_frame(P, w, t, stored, cn, &s, &a)) < 0)
        return rc;
    /* The part's elements go straight into buf when they are contiguous there,
     * else through w->tmp (the part, or the whole chunk). A b2nd array of the
     * chunk's shape and item size decodes only the blocks holding the part; any
     * other frame (an item size other than the element's, as for array types)
     * decodes whole, as the filter would. */
    int wrong_size = 0;
    int64_t blocks = 0;
    int sliceable = a && b2_nd_ndim(a) == rank && b2_nd_typesize(a) == (int32_t)ts;
    for (int d = 0; sliceable && d < rank; d++)
        sliceable = b2_nd_shape(a)[d] == (int64_t)r->cdims[d];
    if (a) {
        b2_nd_set_memory_limit(a, P->rd->mem_limit);
        b2_nd_set_dctx(a, w->dctx);
    }
    if (sliceable)
        rc = decode_rows(w, a, rank, (int64_t)ts, p.clo, p.chi, p.ustr, p.dst, &blocks);
    if (sliceable && rc == B2_ERR_UNSUPPORTED)
        rc = decode_slice(w, a, rank, ts, &p, &blocks);
    else if (!sliceable)
        rc = decode_whole(w, s, a, r, &p, cn, &wrong_size);
    b2_nd_free(a);
    b2_schunk_free(s);
    if (rc < 0) {
        fail(P, t, rc, "%s", wrong_size ? "the frame decodes to the wrong size"
             : rc == B2_ERR_NOMEM ? "no memory for the chunk"
             : *b2_err_detail() ? b2_err_detail() : "the frame's chunk does not decode");
        return rc;
    }
    int64_t nread = (int64_t)t->size;
    pthread_mutex_lock(&P->mu);
    P->direct++;
    P->bytes += nread;
    P->blocks += blocks;
    pthread_mutex_unlock(&P->mu);
    return B2_OK;
}

/* Decode t (taken off the queue, inflight counted; P->mu not held). */
static void run_task(par *P, struct b2_h5_par_worker *w, task *t)
{
    decode_task(P, w, t);
    pthread_mutex_lock(&P->mu);
    if (t->buf >= 0)
        P->freeb[P->nfree++] = t->buf;
    P->inflight--;
    pthread_cond_broadcast(&P->cv);
    pthread_mutex_unlock(&P->mu);
}

/* With P->mu held: take the oldest queued chunk into *t. */
static int pop_locked(par *P, task *t)
{
    if (P->qlen == 0)
        return 0;
    *t = P->q[P->qhead];
    P->qhead = (P->qhead + 1) % P->qcap;
    P->qlen--;
    P->inflight++;
    return 1;
}

/* With P->mu held: while the queue is full, decode its oldest chunk on this
 * thread (the lock is let go meanwhile). */
static void drain_full_locked(par *P, struct b2_h5_par_worker *w)
{
    while (P->qlen == P->qcap && !P->stop) {
        task o;
        pop_locked(P, &o);
        pthread_mutex_unlock(&P->mu);
        run_task(P, w, &o);
        pthread_mutex_lock(&P->mu);
    }
}

/* The calling thread, before reading a chunk's stored bytes through HDF5: a
 * free buffer, decoding queued chunks while the queue is full. With 2 x
 * nthreads queued and nthreads - 1 decoding elsewhere at most, one of the
 * 3 x nthreads buffers is then free. -1 once stopped. */
static int take_buffer(par *P, struct b2_h5_par_worker *w)
{
    pthread_mutex_lock(&P->mu);
    drain_full_locked(P, w);
    int b = !P->stop && P->nfree > 0 ? P->freeb[--P->nfree] : -1;
    pthread_mutex_unlock(&P->mu);
    return b;
}

static void give_buffer(par *P, int b)
{
    pthread_mutex_lock(&P->mu);
    P->freeb[P->nfree++] = b;
    pthread_mutex_unlock(&P->mu);
}

/* The calling thread: look-ups, reads through HDF5 (H5Dread_chunk of chunks not
 * looked up by address, H5Dread of those HDF5 must decode itself), and decoding
 * when the queue is full and after the look-ups. */
static void produce(par *P, const hsize_t *c0, const hsize_t *c1)
{
    reader *r = P->r;
    b2_h5_reader *rd = P->rd;
    struct b2_h5_par_worker *w = &P->rd->wk[0];
    hsize_t ci[MAXDIM];
    memcpy(ci, c0, (size_t)r->rank * sizeof *ci);
    for (;;) {
        task t;
        memset(&t, 0, sizeof t);
        t.buf = -1;
        hsize_t coff[MAXDIM];
        for (int d = 0; d < r->rank; d++) {
            coff[d] = ci[d] * r->cdims[d];
            t.lo[d] = r->start[d] > coff[d] ? r->start[d] : coff[d];
            hsize_t e = r->start[d] + r->count[d], ce = coff[d] + r->cdims[d];
            t.hi[d] = e < ce ? e : ce;
        }
        b2_h5_chunk_loc loc;
        b2_h5_locate(r, coff, &loc);
        if (rd->hook)
            rd->hook(rd->hook_ud, coff, &loc.mask, &loc.addr, &loc.size);
        t.addr = loc.addr;
        t.size = loc.size;
        const char *why = !loc.ok ? "a chunk's place in the file is unknown"
                        : loc.via_hdf5 ? NULL /* HDF5 said it holds bytes */
                        : t.size == 0 || t.addr == HADDR_UNDEF
                            ? "a chunk is not allocated (fill value)" : NULL;
        if (!why && loc.via_hdf5) {
            if ((t.buf = take_buffer(P, w)) < 0)
                break; /* stopped */
            struct b2_h5_par_buf *b = &rd->bufs[t.buf];
            int rc = b2_h5_read_stored(r, coff, &loc, &b->p, &b->cap);
            if (rc < 0 || loc.mask) {
                give_buffer(P, t.buf);
                t.buf = -1;
            }
            if (rc < 0) {
                fail(P, &t, rc, "%s", b2_err_detail());
                break;
            }
        }
        if (!why && loc.mask)
            why = "a chunk is stored unfiltered (filter mask set)";
        /* what HDF5 stores, not what a test hook says: H5Dread reads that many */
        if (why && loc.mask && loc.stored != b2_h5_chunk_bytes(r)) {
            int rc = b2_h5_raw_size_error(r, coff, loc.stored);
            fail(P, &t, rc, "%s", b2_err_detail());
        } else if (why) {
            b2_h5_note(r->rep, "%s", why);
            if (r->rep)
                r->rep->chunks_h5dread++;
            int rc = b2_h5_dread_part(r, t.lo, t.hi);
            if (rc < 0)
                fail(P, &t, rc, "%s", "H5Dread failed");
        }
        pthread_mutex_lock(&P->mu);
        if (!why)
            drain_full_locked(P, w); /* full: decode the oldest here */
        if (!why && !P->stop) {
            P->q[(P->qhead + P->qlen) % P->qcap] = t;
            P->qlen++;
            pthread_cond_signal(&P->cv);
        } else if (t.buf >= 0) {
            P->freeb[P->nfree++] = t.buf;
        }
        int stop = P->stop;
        pthread_mutex_unlock(&P->mu);
        if (stop)
            break;
        if (!b2_h5_next_chunk(r->rank, ci, c0, c1))
            break;
    }
    /* look-ups done: decode what is queued, then wait for the workers */
    pthread_mutex_lock(&P->mu);
    P->producing = 0;
    pthread_cond_broadcast(&P->cv);
    for (;;) {
        task o;
        if (!P->stop && pop_locked(P, &o)) {
            pthread_mutex_unlock(&P->mu);
            run_task(P, w, &o);
            pthread_mutex_lock(&P->mu);
            continue;
        }
        if (P->inflight == 0)
            break;
        pthread_cond_wait(&P->cv, &P->mu);
    }
    pthread_mutex_unlock(&P->mu);
}

typedef struct run_arg {
    par *P;
    const hsize_t *c0, *c1;
} run_arg;

static void worker_fn(void *arg, int worker)
{
    run_arg *a = arg;
    par *P = a->P;
    if (worker == 0) {
        produce(P, a->c0, a->c1);
        return;
    }
    struct b2_h5_par_worker *w = &P->rd->wk[worker];
    pthread_mutex_lock(&P->mu);
    for (;;) {
        task t;
        if (!P->stop && pop_locked(P, &t)) {
            pthread_mutex_unlock(&P->mu);
            run_task(P, w, &t);
            pthread_mutex_lock(&P->mu);
            continue;
        }
        if (!P->producing || P->stop)
            break;
        pthread_cond_wait(&P->cv, &P->mu);
    }
    pthread_mutex_unlock(&P->mu);
}

int b2_h5_par_read(reader *r, b2_h5_reader *rd, const hsize_t *c0, const hsize_t *c1,
                   int64_t nchunks)
{
    int nthreads = rd->nthreads;
    if (!rd->pool) {
        rd->wk = calloc((size_t)nthreads, sizeof *rd->wk);
        if (!rd->wk || !(rd->pool = b2_pool_new(nthreads))) {
            b2_h5_par_free(rd);
            return B2_FAIL(B2_ERR_NOMEM, "a pool of %d readers", nthreads);
        }
        rd->nwk = nthreads;
    }
    if (!rd->bufs) {
        if (!(rd->bufs = calloc((size_t)(3 * nthreads), sizeof *rd->bufs)))
            return B2_FAIL(B2_ERR_NOMEM, "the stored-bytes buffers");
        rd->nbufs = 3 * nthreads;
    }
    /* fewer chunks than threads: the spare threads decode blocks inside chunks */
    int nworkers = nchunks < nthreads ? (int)nchunks : nthreads;
    int bthreads = nthreads / nworkers;
    for (int i = 0; i < nworkers; i++) {
        if (!rd->wk[i].dctx && !(rd->wk[i].dctx = b2_dctx_new(bthreads)))
            return B2_FAIL(B2_ERR_NOMEM, "a decoding context");
        if (b2_dctx_nthreads(rd->wk[i].dctx) != bthreads)
            b2_dctx_set_nthreads(rd->wk[i].dctx, bthreads);
    }
    par P;
    memset(&P, 0, sizeof P);
    P.r = r;
    P.rd = rd;
    P.producing = 1;
    P.qcap = 2 * nthreads;
    P.q = malloc((size_t)P.qcap * sizeof *P.q);
    P.freeb = malloc((size_t)rd->nbufs * sizeof *P.freeb);
    if (!P.q || !P.freeb) {
        free(P.q);
        free(P.freeb);
        return B2_FAIL(B2_ERR_NOMEM, "the chunk queue");
    }
    for (int i = 0; i < rd->nbufs; i++)
        P.freeb[P.nfree++] = i;
    P.fd = open(r->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (P.fd < 0 || fstat(P.fd, &st) < 0) {
        int e = errno;
        if (P.fd >= 0)
            close(P.fd);
        free(P.q);
        free(P.freeb);
        return B2_FAIL(B2_ERR_IO, "%s: %s", r->path, strerror(e));
    }
    P.fsize = st.st_size;
    pthread_mutex_init(&P.mu, NULL);
    pthread_cond_init(&P.cv, NULL);
    run_arg a = {&P, c0, c1};
    int ran = b2_pool_run(rd->pool, nworkers, worker_fn, &a);
    if (ran < 0) /* the pool is busy: the calling thread does everything */
        worker_fn(&a, 0);
    pthread_cond_destroy(&P.cv);
    pthread_mutex_destroy(&P.mu);
    close(P.fd);
    free(P.q);
    free(P.freeb);
    if (r->rep) {
        r->rep->chunks_direct += P.direct;
        r->rep->bytes_read += P.bytes;
        r->rep->blocks_decoded += P.blocks;
    }
    if (P.err < 0)
        return B2_FAIL(P.err, "%s", P.msg);
    return B2_OK;
}
