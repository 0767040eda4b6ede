/* SPDX-License-Identifier: BSD-3-Clause */
/* Item ranges of a chunk (b2_chunk_getitem): only the blocks holding them are
 * decoded (doc/format/chunk.md §10). */
#include <stdlib.h>
#include "chunk_decode.h"

/* b2_chunk_getitem on the view v (closed by the caller whatever happens). */
static int getitem_impl(chunk_view *v, b2_dctx *d, const void *src, size_t srcsize,
                        int64_t start, int64_t nitems, void *dst, size_t dstcap)
{
    if (!d || !src || (!dst && dstcap))
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int rc = b2_view_open_fixed(src, srcsize, d, v);
    if (rc < 0)
        return rc;
    const b2_chunk_info *in = &v->info;
    int64_t ts = in->typesize;
    B2_FAIL_IF(start < 0 || nitems < 0 || start > in->nbytes / ts || nitems > in->nbytes / ts ||
                   (start + nitems) * ts > in->nbytes,
               B2_ERR_RANGE, "items %lld..+%lld outside the chunk's %lld items of %d bytes",
               (long long)start, (long long)nitems, (long long)(in->nbytes / ts), (int)ts);
    int64_t first = start * ts, stop = (start + nitems) * ts;
    B2_FAIL_IF((uint64_t)(stop - first) > dstcap, B2_ERR_DST_TOO_SMALL,
               "%lld bytes wanted, dst has room for %zu", (long long)(stop - first), dstcap);
    uint8_t *out = dst;
    if (stop == first)
        return 0;
    if (in->special && !d->post) {
        b2_block_fill_special(v, first, out, stop - first);
        return (int)(stop - first);
    }
    if (in->memcpyed && !d->post) {
        memcpy(out, v->src + in->header_len + first, (size_t)(stop - first));
        return (int)(stop - first);
    }
    b2_dworker *w = &d->workers[0];
    int64_t bs = in->eff_blocksize;
    int32_t jfirst = (int32_t)(first / bs), jlast = (int32_t)((stop - 1) / bs);
    /* A block buffer of our own (b2_block_decode's scratch is the worker's), kept in
     * the context so repeated calls allocate nothing. */
    if ((size_t)bs > d->itemcap) {
        uint8_t *p = realloc(d->item, (size_t)bs);
        if (!p)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        d->item = p;
        d->itemcap = (size_t)bs;
    }
    uint8_t *blockbuf = d->item;
    const uint8_t *ref = NULL;
    /* getitem must decode the delta reference too (the reference forgets: doc/format/chunk.md §10). */
    if (v->has_delta && jlast > 0 && !in->special && !in->memcpyed &&
        (rc = b2_block_decode_ref(v, d, &ref)) < 0)
        goto done;
    for (int32_t j = jfirst; j <= jlast; j++) {
        int64_t b0 = j * bs, bsize = b2_view_block_size(v, j);
        int64_t lo = first > b0 ? first : b0, hi = stop < b0 + bsize ? stop : b0 + bsize;
        const uint8_t *blk;
        if (d->post) {
            /* the postfilter sees the whole block, then the wanted bytes are copied */
            int whole = lo == b0 && hi == b0 + bsize;
            uint8_t *o = whole ? out + (b0 - first) : blockbuf;
            if ((rc = b2_block_out(v, d, w, j, o, ref)) < 0)
                goto done;
            if (!whole)
                memcpy(out + (lo - first), blockbuf + (lo - b0), (size_t)(hi - lo));
            continue;
        }
        if (j == 0 && ref) {
            blk = ref;
        } else if (lo == b0 && hi == b0 + bsize) {
            /* whole block wanted: decode straight into the output */
            if ((rc = b2_block_decode(v, d, w, j, out + (b0 - first), ref)) < 0)
                goto done;
            continue;
        } else {
            if ((rc = b2_block_decode(v, d, w, j, blockbuf, ref)) < 0)
                goto done;
            blk = blockbuf;
        }
        memcpy(out + (lo - first), blk + (lo - b0), (size_t)(hi - lo));
    }
    rc = (int)(stop - first);
done:
    return rc;
}

int b2_chunk_getitem(b2_dctx *d, const void *src, size_t srcsize, int64_t start, int64_t nitems,
                     void *dst, size_t dstcap)
{
    chunk_view v = {0}; /* b2_view_close is safe even if b2_view_open never ran */
    int rc = getitem_impl(&v, d, src, srcsize, start, nitems, dst, dstcap);
    b2_view_close(&v);
    return d ? B2_KEEP(&d->err, rc) : rc;
}
