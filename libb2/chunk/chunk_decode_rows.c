/* SPDX-License-Identifier: BSD-3-Clause */
/* Blocks decoded straight into the caller's strided rows
 * (b2_chunk_decompress_rows), on the context's threads. */
#include "chunk_decode.h"

/* What to do with each row: copy it from a decoded block, unshuffle it from the
 * block's planes, or fill it with a special chunk's value. */
typedef struct row_op {
    const uint8_t *src;
    int32_t unit;
    const uint8_t *const *pl; /* the block's planes (row_unshuffle) */
    b2_planes_fn unshuffle;   /* resolved once per block */
    int32_t nelem;            /* row_bitunshuffle: elements in the block */
    uint8_t *tmp;             /* row_bitunshuffle: 2 x block size of scratch */
    const chunk_view *v;
    int64_t base; /* special: the block's offset in the chunk */
} row_op;

static void row_copy(const void *op, int64_t off, uint8_t *user, int64_t len)
{
    memcpy(user, ((const row_op *)op)->src + off, (size_t)len);
}

static void row_unshuffle(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const row_op *op = arg;
    op->unshuffle(op->unit, op->pl, (int32_t)(off / op->unit), (int32_t)(len / op->unit), user);
}

/* A row of a bit-shuffled block: the bit rows hold nelem / 8 bytes each, so
 * the rows' bytes for the 8-aligned elements around the row, taken from each
 * bit row, form a bit-shuffled block of their own; only that is unshuffled. */
static void row_bitunshuffle(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const row_op *op = arg;
    int32_t ts = op->unit, e0 = (int32_t)(off / ts), e1 = (int32_t)((off + len) / ts);
    int32_t a0 = e0 & ~7, a1 = (e1 + 7) & ~7, m = a1 - a0;
    uint8_t *mini = op->tmp, *out = op->tmp + (size_t)m * (size_t)ts;
    for (int32_t r = 0; r < 8 * ts; r++)
        memcpy(mini + (size_t)r * (size_t)(m / 8),
               op->src + (size_t)r * (size_t)(op->nelem / 8) + (size_t)(a0 / 8), (size_t)(m / 8));
    b2_bitunshuffle(ts, m * ts, mini, out, op->v->pipe.version == 2);
    memcpy(user, out + (size_t)(e0 - a0) * (size_t)ts, (size_t)len);
}

static void row_special(const void *arg, int64_t off, uint8_t *user, int64_t len)
{
    const row_op *op = arg;
    if (op->v->info.special == B2_SPECIAL_UNINIT)
        memset(user, 0, (size_t)len); /* defined output for what no block wrote */
    else
        b2_block_fill_special(op->v, op->base + off, user, len);
}

/* Decode block j straight into the rows r. ref: decoded block 0 of a delta chunk. */
static int decode_block_rows(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                             b2_block_rows *r, const uint8_t *ref)
{
    const b2_chunk_info *in = &v->info;
    int32_t bsize = b2_view_block_size(v, j);
    int rc = b2_rows_normalize(r, bsize);
    if (rc < 0 || r->run == 0)
        return rc;
    row_op op = {.v = v};
    if (d->post) {
        /* The postfilter sees the whole block: decode it (into the one
         * contiguous run when that is the block), then copy the rows. */
        if (r->nd == 0 && r->soff == 0 && r->run == bsize)
            return b2_block_out(v, d, w, j, r->user, ref);
        uint8_t *scr = b2_dworker_scratch(w, 3 * (size_t)in->eff_blocksize);
        if (!scr)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        op.src = scr + 2 * (size_t)in->eff_blocksize;
        if ((rc = b2_block_out(v, d, w, j, (uint8_t *)op.src, ref)) < 0)
            return rc;
        b2_rows_walk(r, row_copy, &op);
        return B2_OK;
    }
    if (in->special) {
        op.base = (int64_t)j * in->eff_blocksize;
        b2_rows_walk(r, row_special, &op);
        return B2_OK;
    }
    if (j == 0 && ref) { /* block 0 of a delta chunk is already decoded */
        op.src = ref;
        b2_rows_walk(r, row_copy, &op);
        return B2_OK;
    }
    if (r->nd == 0 && r->soff == 0 && r->run == bsize)
        return b2_block_decode(v, d, w, j, r->user, ref); /* one contiguous run */
    if (in->memcpyed) {
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        op.src = v->src + in->header_len + (int64_t)j * in->eff_blocksize;
        b2_rows_walk(r, row_copy, &op);
        return B2_OK;
    }
    size_t eb = (size_t)in->eff_blocksize;
    uint8_t *scr = b2_dworker_scratch(w, 3 * eb);
    if (!scr)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int32_t unit = v->unshuffle_unit;
    row_fn fn = row_copy;
    const uint8_t *pl[B2_PLANES_MAX];
    if (unit && unit <= B2_PLANES_MAX && bsize % unit == 0 && b2_rows_aligned(r, unit)) {
        /* The unshuffle is the last pass: it writes each row in place, reading a
         * split block's raw streams where they are in the chunk. */
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        b2_dworker_use_dict(w, v);
        int split = b2_view_split_unshuffle_unit(v, j, bsize) != 0;
        /* Rows ending early in the block need only the start of each plane:
         * element e's bytes sit at e in every plane. Unsplit, the last plane
         * begins at (unit - 1) * nelem. */
        int64_t nelem = bsize / unit, upto = (b2_rows_end(r) + unit - 1) / unit;
        int32_t need = (int32_t)(split ? upto : (unit - 1) * nelem + upto);
        if ((rc = b2_block_decode_streams(v, w, j, bsize, scr, split ? pl : NULL, need)) < 0)
            return rc;
        if (!split)
            for (int32_t s = 0; s < unit; s++)
                pl[s] = scr + (size_t)s * (size_t)(bsize / unit);
        fn = row_unshuffle;
        op.unit = unit;
        op.pl = pl;
        op.unshuffle = b2_unshuffle_planes_kernel(unit);
    } else if (v->bitunshuffle_only && bsize == in->eff_blocksize && bsize % (8 * in->typesize) == 0 &&
               b2_rows_aligned(r, in->typesize) && b2_rows_bytes(r) * 8 <= bsize) {
        /* A few rows of a bit-shuffled block: the codec decodes the block, and only
         * the rows' elements are bit-unshuffled (row_bitunshuffle). */
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        b2_dworker_use_dict(w, v);
        if ((rc = b2_block_decode_streams(v, w, j, bsize, scr + 2 * eb, NULL, INT32_MAX)) < 0)
            return rc;
        fn = row_bitunshuffle;
        op.src = scr + 2 * eb;
        op.unit = in->typesize;
        op.nelem = bsize / in->typesize;
        op.tmp = scr;
    } else if (!v->filtered && !in->split) {
        /* Codec only: the rows need the stream up to their last byte. */
        __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
        b2_dworker_use_dict(w, v);
        if ((rc = b2_block_decode_streams(v, w, j, bsize, scr + 2 * eb, NULL,
                                          (int32_t)b2_rows_end(r))) < 0)
            return rc;
        op.src = scr + 2 * eb;
    } else {
        /* Other pipelines: decode into scratch (cache-resident), then copy. */
        if ((rc = b2_block_decode(v, d, w, j, scr + 2 * eb, ref)) < 0)
            return rc;
        op.src = scr + 2 * eb;
    }
    b2_rows_walk(r, fn, &op);
    return B2_OK;
}

typedef struct rows_job {
    const chunk_view *v;
    b2_dctx *d;
    const int32_t *list; /* blocks to decode, or NULL: all */
    int32_t count;
    b2_block_rows_fn fn;
    void *ud;
    const uint8_t *ref;
    int32_t next;        /* next list position to take (atomic) */
    int error;           /* first error seen (atomic) */
} rows_job;

static void set_error(int *slot, int rc)
{
    int zero = 0;
    __atomic_compare_exchange_n(slot, &zero, rc, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static void run_rows(void *arg, b2_dworker *w)
{
    rows_job *job = arg;
    for (;;) {
        if (__atomic_load_n(&job->error, __ATOMIC_RELAXED))
            return;
        int32_t k = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (k >= job->count)
            return;
        int32_t j = job->list ? job->list[k] : k;
        int rc = B2_ERR_RANGE;
        if (j >= 0 && j < job->v->info.nblocks) {
            b2_block_rows r;
            memset(&r, 0, sizeof r);
            rc = job->fn(job->ud, j, &r);
            if (rc >= 0)
                rc = decode_block_rows(job->v, job->d, w, j, &r, job->ref);
        }
        if (rc < 0) {
            set_error(&job->error, rc);
            return;
        }
    }
}

/* b2_chunk_decompress_rows on the view v (closed by the caller). */
static int rows_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                     const int32_t *blocks, int32_t nblocks, b2_block_rows_fn fn, void *ud)
{
    if (!d || !src || !fn || (blocks && nblocks < 0))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = b2_view_open_fixed(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    rows_job job = {.v = v, .d = d, .list = blocks, .count = blocks ? nblocks : in->nblocks,
                    .fn = fn, .ud = ud};
    if (job.count == 0)
        return B2_OK;
    if (v->has_delta && !in->special && !in->memcpyed &&
        (rc = b2_block_decode_ref(v, d, &job.ref)) < 0)
        return rc;
    int nt = d->nthreads < job.count ? d->nthreads : job.count;
    if (nt > 1)
        b2_dctx_run(d, nt, run_rows, &job);
    else
        run_rows(&job, &d->workers[0]);
    return job.error;
}

int b2_chunk_decompress_rows(b2_dctx *d, const void *src, size_t srcsize, const int32_t *blocks,
                             int32_t nblocks, b2_block_rows_fn fn, void *ud)
{
    chunk_view v = {0}; /* b2_view_close is safe even if b2_view_open never ran */
    int rc = rows_impl(&v, d, src, srcsize, blocks, nblocks, fn, ud);
    b2_view_close(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}
