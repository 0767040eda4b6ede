/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_h5_write_box: write a box of whole chunks of a Blosc2 (32026) dataset by
 * compressing the chunks on worker threads and storing each frame with
 * H5Dwrite_chunk on the calling thread, in C order of the chunk grid.
 *
 * Each chunk's frame is made by b2_h5_filter_encode from the dataset's own
 * cd_values, the function the filter's compress path calls, so the stored bytes
 * and filter mask are those H5Dwrite would store. HDF5 hands the filter
 * full-size chunks; for an edge chunk of a new chunk it fills the part beyond
 * the dataset's end with the fill value (zeros when the fill time is never or
 * the value undefined), and so does this writer.
 *
 * Threads: nthreads compress, the calling thread (pool worker 0) included; it
 * alone calls HDF5. It walks the chunks in order, writes a chunk part that is
 * not whole through H5Dwrite, and for a whole chunk stores its frame once done,
 * compressing the next unclaimed chunk meanwhile (the chunk itself when nobody
 * took it, so the write completes even when no helper thread could be started).
 * Everyone claims chunks in order, at most 2 x nthreads ahead of the last one
 * written; each slot of that ring keeps its input and output buffers. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_h5filter.h"
#include "h5api.h"
#include "h5context.h"
#include "h5dataset.h"
#include "h5params.h"
#include "h5read_int.h"
#include "b2_helpers_experimental.h"

#define MAXDIM B2_H5_READ_MAXRANK

/* One chunk in flight. */
typedef struct slot {
    uint8_t *in, *out;
    const uint8_t *src;  /* the chunk's elements: in, or the caller's buffer */
    size_t incap, outcap, outlen;
    int kind;      /* 1 frame, < 0 error (then H5Dwrite takes it) */
    int done;
    char err[200];
} slot;

typedef struct writer {
    const b2_h5_read_api *h;
    hid_t dset, mem_type, fspace;
    int rank;
    size_t ts;               /* element size (file type = memory type) */
    hsize_t dims[MAXDIM], cdims[MAXDIM];
    const hsize_t *start, *count;
    const uint8_t *buf;
    b2_h5_params p;          /* the dataset's cd_values, nthreads 1 */
    size_t nbytes;           /* full chunk bytes, what HDF5 hands the filter */
    uint8_t *fill;           /* one element of fill value, or NULL: zeros */
    hsize_t c0[MAXDIM], c1[MAXDIM]; /* chunk-grid range of the box */
    /* the jobs: whole chunks, by linear index in the box's chunk range */
    uint64_t *jobs;
    int64_t njobs;
    /* shared state, under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t next;            /* next job to claim */
    int64_t written;         /* jobs written so far */
    int stop;
    int window;
    slot *slots;
    b2_h5_ctx *ctxs;         /* one per worker */
    int nworkers;
    int strict;              /* the options' parameters: no chunk through H5Dwrite */
    int rc;                  /* the calling thread's result */
    b2_h5_write_report *rep;
} writer;

static void note(b2_h5_write_report *rep, const char *fmt, const char *arg)
{
    if (rep && !rep->reason[0])
        snprintf(rep->reason, sizeof rep->reason, fmt, arg);
}

/* Chunk-grid coordinates of linear index k in the box's chunk range. */
static void grid_coords(const writer *wr, uint64_t k, hsize_t *ci)
{
    for (int d = wr->rank - 1; d >= 0; d--) {
        hsize_t n = wr->c1[d] - wr->c0[d] + 1;
        ci[d] = wr->c0[d] + k % n;
        k /= n;
    }
}

/* Where chunk ci starts, in dataset coordinates, as the read errors say it:
 * "(20,10)". */
static const char *chunk_at(const writer *wr, const hsize_t *ci, char *buf, size_t cap)
{
    hsize_t off[MAXDIM];
    for (int d = 0; d < wr->rank; d++)
        off[d] = ci[d] * wr->cdims[d];
    return b2_h5_coords_text(buf, cap, wr->rank, off, NULL);
}

/* The part [lo, hi) of chunk ci inside the box; returns 1 when it is the whole
 * chunk (up to the dataset's end). */
static int chunk_part(const writer *wr, const hsize_t *ci, hsize_t *lo, hsize_t *hi)
{
    int whole = 1;
    for (int d = 0; d < wr->rank; d++) {
        hsize_t coff = ci[d] * wr->cdims[d], ce = coff + wr->cdims[d];
        hsize_t e = wr->start[d] + wr->count[d];
        if (ce > wr->dims[d])
            ce = wr->dims[d];
        lo[d] = wr->start[d] > coff ? wr->start[d] : coff;
        hi[d] = e < ce ? e : ce;
        whole &= lo[d] == coff && hi[d] == ce;
    }
    return whole;
}

/* H5Dwrite of the part [lo, hi) (dataset coordinates) of the box. */
static int h5dwrite_part(writer *wr, const hsize_t *lo, const hsize_t *hi)
{
    const b2_h5_read_api *h = wr->h;
    hsize_t moff[MAXDIM], cnt[MAXDIM];
    for (int d = 0; d < wr->rank; d++) {
        moff[d] = lo[d] - wr->start[d];
        cnt[d] = hi[d] - lo[d];
    }
    hid_t ms = h->Screate_simple(wr->rank, wr->count, NULL);
    int rc = ms < 0 ? -1 : 0;
    if (rc == 0)
        rc = h->Sselect_hyperslab(ms, H5S_SELECT_SET, moff, NULL, cnt, NULL) < 0 ? -1 : 0;
    if (rc == 0)
        rc = h->Sselect_hyperslab(wr->fspace, H5S_SELECT_SET, lo, NULL, cnt, NULL) < 0 ? -1 : 0;
    hid_t mt = wr->mem_type != H5P_DEFAULT ? wr->mem_type : h->Dget_type(wr->dset);
    if (rc == 0)
        rc = mt < 0 || wr->h->Dwrite(wr->dset, mt, ms, wr->fspace, H5P_DEFAULT, wr->buf) < 0
                 ? -1 : 0;
    if (mt >= 0 && mt != wr->mem_type)
        b2_h5_api_get(NULL)->Tclose(mt);
    if (ms >= 0)
        h->Sclose(ms);
    if (wr->rep && rc == 0)
        wr->rep->chunks_h5dwrite++;
    return rc < 0 ? B2_FAIL(B2_ERR_IO, "H5Dwrite failed") : B2_OK;
}

static void *slot_alloc(size_t n, void *ud)
{
    slot *s = ud;
    if (s->outcap < n) {
        free(s->out);
        s->outcap = 0;
        if (!(s->out = malloc(n ? n : 1)))
            return NULL;
        s->outcap = n;
    }
    return s->out;
}

static void slot_release(void *p, void *ud) { (void)p, (void)ud; }

/* Gather chunk ci from the box into s->in (full chunk, C order; fill beyond the
 * dataset's end) and encode it as the filter would. Touches no HDF5. */
static void compress_job(writer *wr, int64_t j, slot *s, b2_h5_ctx *ctx)
{
    hsize_t ci[MAXDIM], lo[MAXDIM], hi[MAXDIM], cnt[MAXDIM];
    grid_coords(wr, wr->jobs[j], ci);
    chunk_part(wr, ci, lo, hi);
    int edge = 0;
    for (int d = 0; d < wr->rank; d++) {
        cnt[d] = hi[d] - lo[d];
        edge |= cnt[d] != wr->cdims[d];
    }
    /* strides in the box and in the chunk */
    int64_t bstr[MAXDIM], cstr[MAXDIM], sb = 1, sc = 1;
    for (int d = wr->rank - 1; d >= 0; d--) {
        bstr[d] = sb;
        cstr[d] = sc;
        sb *= (int64_t)wr->count[d];
        sc *= (int64_t)wr->cdims[d];
    }
    size_t ts = wr->ts;
    b2_h5_alloc al = {slot_alloc, slot_release, s};
    void *out = NULL;
    size_t outsize = 0;
    if (!edge && b2_h5_part_is_run(wr->rank, cnt, wr->count)) {
        /* the chunk is one run of the caller's buffer: encoded from there */
        int64_t boff = 0;
        for (int d = 0; d < wr->rank; d++)
            boff += (int64_t)(lo[d] - wr->start[d]) * bstr[d];
        s->src = wr->buf + boff * (int64_t)ts;
        s->err[0] = '\0';
        s->kind = b2_h5_filter_encode(&wr->p, ctx, s->src, wr->nbytes, &al, &out,
                                      &outsize, &s->outlen, s->err, sizeof s->err);
        return;
    }
    s->kind = B2_ERR_NOMEM;
    snprintf(s->err, sizeof s->err, "no memory for a chunk");
    if (s->incap < wr->nbytes) {
        free(s->in);
        s->incap = 0;
        if (!(s->in = malloc(wr->nbytes)))
            return;
        s->incap = wr->nbytes;
    }
    s->src = s->in;
    if (edge) {
        if (!wr->fill) {
            memset(s->in, 0, wr->nbytes);
        } else {
            for (size_t o = 0; o < wr->nbytes; o += ts)
                memcpy(s->in + o, wr->fill, ts);
        }
    }
    /* copy the rows of the part */
    size_t run = (size_t)cnt[wr->rank - 1] * ts;
    hsize_t idx[MAXDIM] = {0};
    for (;;) {
        int64_t boff = 0, coff = 0;
        for (int d = 0; d < wr->rank; d++) {
            hsize_t i = d < wr->rank - 1 ? idx[d] : 0;
            boff += (int64_t)(lo[d] + i - wr->start[d]) * bstr[d];
            coff += (int64_t)(lo[d] + i - ci[d] * wr->cdims[d]) * cstr[d];
        }
        memcpy(s->in + coff * (int64_t)ts, wr->buf + boff * (int64_t)ts, run);
        int d = wr->rank - 2;
        while (d >= 0 && ++idx[d] == cnt[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
    s->err[0] = '\0';
    s->kind = b2_h5_filter_encode(&wr->p, ctx, s->in, wr->nbytes, &al, &out,
                                  &outsize, &s->outlen, s->err, sizeof s->err);
}

/* Helpers: claim jobs in order, at most window ahead of the writes. */
static void helper_loop(writer *wr, int worker)
{
    pthread_mutex_lock(&wr->mu);
    for (;;) {
        if (wr->stop || wr->next >= wr->njobs)
            break;
        if (wr->next >= wr->written + wr->window) {
            pthread_cond_wait(&wr->cv, &wr->mu);
            continue;
        }
        int64_t j = wr->next++;
        slot *s = &wr->slots[j % wr->window];
        pthread_mutex_unlock(&wr->mu);
        compress_job(wr, j, s, &wr->ctxs[worker]);
        pthread_mutex_lock(&wr->mu);
        s->done = 1;
        pthread_cond_broadcast(&wr->cv);
    }
    pthread_mutex_unlock(&wr->mu);
}

/* Store job j's result (calling thread). */
static int store_job(writer *wr, int64_t j, slot *s)
{
    hsize_t ci[MAXDIM], lo[MAXDIM], hi[MAXDIM], off[MAXDIM];
    char at[MAXDIM * 22 + 4];
    grid_coords(wr, wr->jobs[j], ci);
    if (s->kind < 0 && wr->strict)
        return B2_FAIL(s->kind, "chunk at %s: cannot compress it with the options' parameters: %s",
                       chunk_at(wr, ci, at, sizeof at), s->err);
    if (s->kind < 0) {
        /* the filter would fail here too: H5Dwrite stores what HDF5 makes of that */
        if (wr->rep && !wr->rep->reason[0])
            snprintf(wr->rep->reason, sizeof wr->rep->reason,
                     "the filter cannot compress a chunk: %.80s", s->err);
        chunk_part(wr, ci, lo, hi);
        return h5dwrite_part(wr, lo, hi);
    }
    for (int d = 0; d < wr->rank; d++)
        off[d] = ci[d] * wr->cdims[d];
    /* always a frame, filter mask 0, as the filter itself stores every chunk */
    if (wr->h->Dwrite_chunk(wr->dset, H5P_DEFAULT, 0, off, s->outlen, s->out) < 0)
        return B2_FAIL(B2_ERR_IO, "chunk at %s: H5Dwrite_chunk failed",
                       chunk_at(wr, ci, at, sizeof at));
    if (wr->rep) {
        wr->rep->chunks_direct++;
        wr->rep->bytes_stored += (int64_t)s->outlen;
    }
    return B2_OK;
}

/* The calling thread: every chunk of the box in order. */
static int writer_loop(writer *wr)
{
    uint64_t total = 1;
    for (int d = 0; d < wr->rank; d++)
        total *= wr->c1[d] - wr->c0[d] + 1;
    int64_t j = 0;
    int rc = B2_OK;
    for (uint64_t k = 0; k < total && rc >= 0; k++) {
        hsize_t ci[MAXDIM], lo[MAXDIM], hi[MAXDIM];
        char at[MAXDIM * 22 + 4];
        if (j >= wr->njobs || wr->jobs[j] != k) {
            grid_coords(wr, k, ci);
            chunk_part(wr, ci, lo, hi);
            note(wr->rep, "%s", "a chunk is only partly in the box (its part goes through "
                                "H5Dwrite)");
            rc = wr->strict ? B2_FAIL(B2_ERR_UNSUPPORTED, "chunk at %s is only partly in the box: "
                                      "H5Dwrite would not apply the options' parameters",
                                      chunk_at(wr, ci, at, sizeof at))
                            : h5dwrite_part(wr, lo, hi);
            continue;
        }
        /* until job j is compressed, compress the next unclaimed job (j itself
         * when nobody took it, so the write completes without helpers) */
        slot *s = &wr->slots[j % wr->window];
        pthread_mutex_lock(&wr->mu);
        while (!s->done) {
            if (wr->next < wr->njobs && wr->next < wr->written + wr->window) {
                int64_t k = wr->next++;
                slot *t = &wr->slots[k % wr->window];
                pthread_mutex_unlock(&wr->mu);
                compress_job(wr, k, t, &wr->ctxs[0]);
                pthread_mutex_lock(&wr->mu);
                t->done = 1;
                pthread_cond_broadcast(&wr->cv);
            } else {
                pthread_cond_wait(&wr->cv, &wr->mu);
            }
        }
        pthread_mutex_unlock(&wr->mu);
        rc = store_job(wr, j, s);
        pthread_mutex_lock(&wr->mu);
        s->done = 0;
        wr->written = ++j;
        pthread_cond_broadcast(&wr->cv);
        pthread_mutex_unlock(&wr->mu);
    }
    pthread_mutex_lock(&wr->mu);
    wr->stop = 1;
    pthread_cond_broadcast(&wr->cv);
    pthread_mutex_unlock(&wr->mu);
    return rc;
}

static void pool_fn(void *arg, int worker)
{
    writer *wr = arg;
    if (worker == 0)
        wr->rc = writer_loop(wr);
    else
        helper_loop(wr, worker);
}

/* The options' filters, use_dict, checksums and block shape into wr->p. */
static int apply_options(writer *wr, const b2_h5_write_options *o)
{
    b2_h5_params *p = &wr->p;
    p->ext = 1;
    memcpy(p->filters, o->filters, sizeof p->filters);
    memcpy(p->filters_meta, o->filters_meta, sizeof p->filters_meta);
    p->use_dict = o->use_dict != 0;
    p->checksums = o->checksums != 0;
    memset(p->blockshape, 0, sizeof p->blockshape);
    int given = 0;
    for (int d = 0; d < wr->rank; d++)
        given |= o->blockshape[d] != 0;
    if (!given)
        return B2_OK;
    for (int d = 0; d < wr->rank; d++)
        if (o->blockshape[d] < 1 || (hsize_t)o->blockshape[d] > wr->cdims[d])
            return B2_FAIL(B2_ERR_INVALID_PARAM, "block dimension %d is %d, outside 1..%llu "
                           "(the chunk's)", d, (int)o->blockshape[d],
                           (unsigned long long)wr->cdims[d]);
    /* the filter's b2nd path: cd_values carry the chunk shape and the chunk is
     * whole elements of the base type (not an array type) */
    uint64_t want = p->typesize;
    for (int d = 0; d < p->rank; d++)
        want *= p->dims[d];
    if (p->rank >= 1 && want == wr->nbytes) { /* rank 1: the one-dimensional layout */
        for (int d = 0; d < wr->rank; d++)
            p->blockshape[d] = o->blockshape[d];
        return B2_OK;
    }
    if (wr->rank == 1) { /* a plain frame: the block size */
        uint64_t bs = (uint64_t)o->blockshape[0] * wr->ts;
        if (bs > INT32_MAX)
            return B2_FAIL(B2_ERR_INVALID_PARAM, "a block of %llu bytes", (unsigned long long)bs);
        p->blocksize = (uint32_t)bs;
        return B2_OK;
    }
    return B2_FAIL(B2_ERR_UNSUPPORTED, "a block shape needs chunks stored as b2nd (chunk rank "
                   "1..%d in cd_values, no array type) or rank 1", B2_H5_WRITE_MAXDIM);
}

static int resolve_nthreads(const b2_h5_write_options *opts)
{
    int n = opts && opts->nthreads > 0 ? opts->nthreads : b2_h5_nthreads_from_env();
    return n > 256 ? 256 : n < 1 ? 1 : n;
}

static int write_direct(writer *wr, int nthreads)
{
    /* the whole chunks, in order */
    uint64_t total = 1;
    for (int d = 0; d < wr->rank; d++)
        total *= wr->c1[d] - wr->c0[d] + 1;
    if (total > (uint64_t)(SIZE_MAX / sizeof(uint64_t)))
        return B2_FAIL(B2_ERR_NOMEM, "%llu chunks", (unsigned long long)total);
    wr->jobs = malloc((size_t)total * sizeof *wr->jobs);
    if (!wr->jobs)
        return B2_FAIL(B2_ERR_NOMEM, "the chunk list (%llu chunks)", (unsigned long long)total);
    for (uint64_t k = 0; k < total; k++) {
        hsize_t ci[MAXDIM], lo[MAXDIM], hi[MAXDIM];
        grid_coords(wr, k, ci);
        if (chunk_part(wr, ci, lo, hi))
            wr->jobs[wr->njobs++] = k;
    }
    /* nthreads compress: the calling thread (which alone calls HDF5) and
     * nthreads - 1 helpers; never more threads than chunks */
    int nworkers = nthreads;
    if (wr->njobs > 0 && nworkers > wr->njobs)
        nworkers = (int)wr->njobs;
    if (nworkers < 1)
        nworkers = 1;
    wr->window = 2 * nworkers;
    wr->slots = calloc((size_t)wr->window, sizeof *wr->slots);
    wr->ctxs = calloc((size_t)nworkers, sizeof *wr->ctxs);
    if (wr->rep)
        wr->rep->nthreads = nworkers;
    int rc = B2_OK;
    if (!wr->slots || !wr->ctxs) {
        rc = B2_FAIL(B2_ERR_NOMEM, "the writer's slots");
    } else if (nworkers == 1) {
        wr->rc = writer_loop(wr);
        rc = wr->rc;
    } else {
        b2_pool *pool = b2_pool_new(nworkers);
        if (!pool) {
            rc = B2_FAIL(B2_ERR_NOMEM, "a worker pool");
        } else {
            int ran = b2_pool_run(pool, nworkers, pool_fn, wr);
            rc = ran < 0 ? ran : wr->rc;
            b2_pool_free(pool);
        }
    }
    for (int i = 0; wr->slots && i < wr->window; i++) {
        free(wr->slots[i].in);
        free(wr->slots[i].out);
    }
    for (int i = 0; wr->ctxs && i < nworkers; i++) {
        b2_cctx_free(wr->ctxs[i].cctx);
        b2_dctx_free(wr->ctxs[i].dctx);
        free(wr->ctxs[i].buf[0]);
        free(wr->ctxs[i].buf[1]);
    }
    free(wr->slots);
    free(wr->ctxs);
    free(wr->jobs);
    return rc;
}

int b2_h5_write_box(hid_t dset, hid_t mem_type, const hsize_t *start, const hsize_t *count,
                    const void *buf, size_t bufsize, const b2_h5_write_options *opts,
                    b2_h5_write_report *report)
{
    if (report)
        memset(report, 0, sizeof *report);
    if (!start || !count || (!buf && bufsize))
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL",
                       !start ? "start" : !count ? "count" : "buf");
    const b2_h5_read_api *h = b2_h5_read_api_get();
    if (!h)
        return B2_FAIL(B2_ERR_UNSUPPORTED, "no HDF5 library found in this process");
    writer wr;
    memset(&wr, 0, sizeof wr);
    wr.h = h;
    wr.dset = dset;
    wr.mem_type = mem_type;
    wr.start = start;
    wr.count = count;
    wr.buf = buf;
    wr.rep = report;
    wr.fspace = h->Dget_space(dset);
    if (wr.fspace < 0)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "not a dataset (no dataspace)");
    int rc = B2_OK;
    uint64_t nelem = 1;
    if (h->Sget_simple_extent_type(wr.fspace) != H5S_SIMPLE) {
        rc = B2_FAIL(B2_ERR_UNSUPPORTED, "the dataspace is not simple");
        goto out;
    }
    wr.rank = h->Sget_simple_extent_ndims(wr.fspace);
    if (wr.rank < 1 || wr.rank > MAXDIM) {
        rc = B2_FAIL(B2_ERR_UNSUPPORTED, "dataspace rank %d (1..%d supported)", wr.rank, MAXDIM);
        goto out;
    }
    h->Sget_simple_extent_dims(wr.fspace, wr.dims, NULL);
    for (int d = 0; d < wr.rank; d++) {
        if (count[d] > wr.dims[d] || start[d] > wr.dims[d] - count[d]) {
            rc = B2_FAIL(B2_ERR_RANGE, "box [%llu, %llu) outside dimension %d of size %llu",
                         (unsigned long long)start[d], (unsigned long long)(start[d] + count[d]),
                         d, (unsigned long long)wr.dims[d]);
            goto out;
        }
        nelem *= count[d];
    }
    hid_t et = mem_type != H5P_DEFAULT ? mem_type : h->Dget_type(dset);
    wr.ts = et < 0 ? 0 : b2_h5_api_get(NULL)->Tget_size(et);
    if (et >= 0 && et != mem_type)
        b2_h5_api_get(NULL)->Tclose(et);
    if (wr.ts == 0 || nelem > SIZE_MAX / wr.ts || bufsize < nelem * wr.ts) {
        rc = B2_FAIL(B2_ERR_DST_TOO_SMALL, "the box needs %llu elements of %zu bytes, buf has %zu",
                     (unsigned long long)nelem, wr.ts, bufsize);
        goto out;
    }
    if (nelem == 0) {
        if (report)
            report->path = B2_H5_WRITE_DIRECT;
        goto out;
    }
    char why_buf[128];
    b2_h5_dset_check c = {.write = 1, .mem_type = mem_type, .rank = wr.rank, .ts = wr.ts};
    const char *why = b2_h5_dataset_refusal(h, dset, &c, why_buf, sizeof why_buf);
    memcpy(wr.cdims, c.cdims, sizeof wr.cdims);
    wr.p = c.p;
    wr.nbytes = c.nbytes;
    wr.fill = c.fill;
    wr.strict = opts && opts->set_params;
    if (*why && wr.strict) {
        note(report, "%s", why);
        if (report)
            report->path = B2_H5_WRITE_H5DWRITE;
        rc = B2_FAIL(B2_ERR_UNSUPPORTED, "%s: H5Dwrite would not apply the options' "
                     "parameters", why);
        goto out;
    }
    if (!*why && wr.strict && (rc = apply_options(&wr, opts)) < 0)
        goto out;
    if (*why) {
        hsize_t hi[MAXDIM];
        for (int d = 0; d < wr.rank; d++)
            hi[d] = start[d] + count[d];
        note(report, "%s", why);
        rc = h5dwrite_part(&wr, start, hi);
        if (report)
            report->path = B2_H5_WRITE_H5DWRITE;
        goto out;
    }
    for (int d = 0; d < wr.rank; d++) {
        wr.c0[d] = start[d] / wr.cdims[d];
        wr.c1[d] = (start[d] + count[d] - 1) / wr.cdims[d];
    }
    pthread_mutex_init(&wr.mu, NULL);
    pthread_cond_init(&wr.cv, NULL);
    rc = write_direct(&wr, resolve_nthreads(opts));
    pthread_cond_destroy(&wr.cv);
    pthread_mutex_destroy(&wr.mu);
    if (report)
        report->path = report->chunks_h5dwrite == 0 ? B2_H5_WRITE_DIRECT
                     : report->chunks_direct == 0   ? B2_H5_WRITE_H5DWRITE
                                                    : B2_H5_WRITE_MIXED;
out:
    free(wr.fill);
    h->Sclose(wr.fspace);
    return rc;
}
