/* SPDX-License-Identifier: BSD-3-Clause */
/* Whole chunks (b2_chunk_decompress) and single VL blocks (b2_chunk_vl_get_block):
 * the blocks decoded in parallel into the caller's buffer (doc/format/chunk.md
 * §4-§11). */
#include <stdlib.h>
#include "chunk_decode.h"

/* ---- parallel block loop ---- */

typedef struct block_job {
    const chunk_view *v;
    b2_dctx *d;
    uint8_t *dst;
    const int64_t *vl_offs; /* VL chunks: output offset of each block */
    const uint8_t *ref;     /* with a postfilter: block 0 of a delta chunk, decoded apart */
    int post;               /* blocks go through b2_block_out (a postfilter is set) */
    int32_t next;           /* next block to take (atomic) */
    int error;              /* first error seen (atomic) */
} block_job;

/* Take blocks from the job's counter and decode each into its place until none
 * is left or one failed (every thread of the job runs this). */
static void run_blocks(block_job *job, b2_dworker *w)
{
    const b2_chunk_info *in = &job->v->info;
    for (;;) {
        if (__atomic_load_n(&job->error, __ATOMIC_RELAXED))
            return;
        int32_t j = __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
        if (j >= in->nblocks)
            return;
        int rc;
        if (job->vl_offs) {
            uint8_t *out = job->dst + job->vl_offs[j];
            int64_t size = job->vl_offs[j + 1] - job->vl_offs[j];
            rc = b2_vl_block_decode(job->v, job->d, w, j, out);
            if (rc >= 0 && job->d->post) /* checked here: no call per block without one */
                rc = b2_block_postfilter(job->v, job->d, w, j, job->vl_offs[j], (int32_t)size, out);
        } else if (job->post) {
            rc = b2_block_out(job->v, job->d, w, j, job->dst + (int64_t)j * in->eff_blocksize,
                           job->ref);
        } else {
            rc = b2_block_decode(job->v, job->d, w, j, job->dst + (int64_t)j * in->eff_blocksize,
                              job->dst);
        }
        if (rc < 0) {
            int zero = 0;
            __atomic_compare_exchange_n(&job->error, &zero, rc, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
            return;
        }
    }
}

static void run_blocks_fn(void *job, b2_dworker *w) { run_blocks(job, w); }

/* Decode blocks job->next .. nblocks-1 on up to d->nthreads threads. */
static int run_parallel(block_job *job)
{
    int nt = job->d->nthreads;
    int remaining = job->v->info.nblocks - job->next;
    b2_dctx_run(job->d, nt > remaining ? remaining : nt, run_blocks_fn, job);
    return job->error;
}

/* b2_chunk_decompress on the view v (closed by the caller whatever happens). */
static int decompress_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                           void *dst, size_t dstcap)
{
    if (!d || !src || (!dst && dstcap))
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !d ? "dctx" : !src ? "src" : "dst");
    int rc = b2_view_open(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    B2_FAIL_IF((size_t)in->nbytes > dstcap, B2_ERR_DST_TOO_SMALL,
               "chunk holds %d bytes, dst has room for %zu", (int)in->nbytes, dstcap);
    if (in->nbytes == 0)
        return 0;
    block_job job = {.v = v, .d = d, .dst = dst, .post = d->post && !in->vlblocks};
    if (job.post) {
        /* Every block, special and memcpy chunks too, through b2_block_out; a delta
         * chunk's block 0 is decoded apart, as the reference must not be
         * postfiltered. */
        if (v->has_delta && in->nblocks > 1 && !in->special && !in->memcpyed &&
            (rc = b2_block_decode_ref(v, d, &job.ref)) < 0)
            return rc;
        rc = d->nthreads > 1 && in->nblocks > 1 ? run_parallel(&job)
                                                : (run_blocks(&job, &d->workers[0]), job.error);
        return rc < 0 ? rc : in->nbytes;
    }
    if (in->special) {
        b2_block_fill_special(v, 0, dst, in->nbytes);
        return in->nbytes;
    }
    if (in->memcpyed) {
        memcpy(dst, v->src + in->header_len, (size_t)in->nbytes);
        __atomic_fetch_add(&d->blocks_decoded, in->nblocks, __ATOMIC_RELAXED);
        return in->nbytes;
    }
    int64_t *offs = NULL;
    if (in->vlblocks) {
        if ((int64_t)B2_HEADER_LEN + 4 * (int64_t)in->nblocks > v->bound)
            return B2_FAIL_CODE(B2_ERR_TRUNCATED);
        if (!(offs = malloc(((size_t)in->nblocks + 1) * sizeof *offs)))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        if ((rc = b2_vl_layout(v, offs)) < 0) {
            free(offs);
            return rc;
        }
        job.vl_offs = offs;
    } else if (v->has_delta && in->nblocks > 1) {
        /* Block 0 is the delta reference of every other block: decode it first. */
        if ((rc = b2_block_decode(v, d, &d->workers[0], 0, dst, NULL)) < 0)
            return rc;
        job.next = 1;
    }
    rc = d->nthreads > 1 && in->nblocks - job.next > 1 ? run_parallel(&job)
                                                        : (run_blocks(&job, &d->workers[0]), job.error);
    free(offs);
    return rc < 0 ? rc : in->nbytes;
}

int b2_chunk_decompress(b2_dctx *d, const void *src, size_t srcsize, void *dst, size_t dstcap)
{
    chunk_view v = {0}; /* b2_view_close is safe even if b2_view_open never ran */
    int rc = decompress_impl(&v, d, src, srcsize, dst, dstcap);
    b2_view_close(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}

/* b2_chunk_vl_get_block on the view v (closed by the caller). */
static int vl_get_block_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                             int32_t nblock, void *dst, size_t dstcap)
{
    if (!d || !src)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = b2_view_open(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(!v->info.vlblocks, B2_ERR_INVALID_PARAM, "not a VL-block chunk");
    B2_FAIL_IF(nblock < 0 || nblock >= v->info.nblocks, B2_ERR_RANGE,
               "block %d of a chunk of %d blocks", (int)nblock, (int)v->info.nblocks);
    if ((int64_t)B2_HEADER_LEN + 4 * (int64_t)v->info.nblocks > v->bound)
        return B2_FAIL_CODE(B2_ERR_TRUNCATED);
    int64_t *offs = malloc(((size_t)v->info.nblocks + 1) * sizeof *offs);
    if (!offs)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = b2_vl_layout(v, offs);
    int64_t size = offs[nblock + 1] - offs[nblock], off = offs[nblock];
    free(offs);
    if (rc < 0)
        return rc;
    B2_FAIL_IF((size_t)size > dstcap, B2_ERR_DST_TOO_SMALL,
               "VL block %d holds %lld bytes, dst has room for %zu", (int)nblock, (long long)size,
               dstcap);
    rc = b2_vl_block_decode(v, d, &d->workers[0], nblock, dst);
    if (rc >= 0)
        rc = b2_block_postfilter(v, d, &d->workers[0], nblock, off, (int32_t)size, dst);
    return rc < 0 ? rc : (int)size;
}

int b2_chunk_vl_get_block(b2_dctx *d, const void *src, size_t srcsize, int32_t nblock,
                          void *dst, size_t dstcap)
{
    chunk_view v = {0}; /* b2_view_close is safe even if b2_view_open never ran */
    int rc = vl_get_block_impl(&v, d, src, srcsize, nblock, dst, dstcap);
    b2_view_close(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}
