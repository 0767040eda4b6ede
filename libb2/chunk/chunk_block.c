/* SPDX-License-Identifier: BSD-3-Clause */
/* Decoding one block (doc/format/chunk.md §5-§8, §11): its streams, the filters
 * undone, special chunks' values, the postfilter, and VL blocks. The per-block
 * hot path (b2_block_decode -> b2_block_decode_streams) stays in this file. */
#include "chunk_decode.h"

/* Decode block j's streams into out (stream s at out + s * bsize / nstreams).
 * With pl (room for B2_PLANES_MAX), a split block's raw streams are not copied:
 * pl[s] points at stream s wherever it is, in out or in the chunk. need: the
 * bytes of each stream the caller reads (from its start), or more than the
 * stream holds for all of it; codecs that can stop early then do. */
int b2_block_decode_streams(const chunk_view *v, b2_dworker *w, int32_t j, int32_t bsize,
                            uint8_t *out, const uint8_t **pl, int32_t need)
{
    const b2_chunk_info *in = &v->info;
    int leftover_block = (j == in->nblocks - 1 && in->leftover);
    int32_t nstreams = (in->split && !leftover_block) ? in->typesize : 1;
    /* would silently lose bytes */
    B2_FAIL_IF(bsize % nstreams, B2_ERR_INVALID_HEADER,
               "block %d of %d bytes does not split into %d streams", (int)j, (int)bsize,
               (int)nstreams);
    int32_t neblock = bsize / nstreams;
    int64_t pos = b2_load_le32s(v->src + in->header_len + 4 * (int64_t)j);
    B2_FAIL_IF(pos < v->data_start || pos >= v->bound, B2_ERR_CORRUPT,
               "block %d starts at byte %lld, outside %d..%d", (int)j, (long long)pos,
               (int)v->data_start, (int)v->bound - 1);
    for (int32_t s = 0; s < nstreams; s++, out += neblock) {
        if (pl)
            pl[s] = out;
        B2_FAIL_IF(pos + 4 > v->bound, B2_ERR_TRUNCATED,
                   "block %d stream %d: size at byte %lld is past cbytes %d", (int)j, (int)s,
                   (long long)pos, (int)v->bound);
        int32_t csize = b2_load_le32s(v->src + pos);
        pos += 4;
        if (csize == 0) {
            memset(out, 0, (size_t)neblock);
        } else if (csize < 0) {
            B2_FAIL_IF(pos + 1 > v->bound, B2_ERR_TRUNCATED,
                       "block %d stream %d: run byte is past cbytes %d", (int)j, (int)s,
                       (int)v->bound);
            B2_FAIL_IF(csize < -255 || !(v->src[pos] & 0x01), B2_ERR_CORRUPT,
                       "block %d stream %d: bad run size %d (token 0x%02x)", (int)j, (int)s,
                       (int)csize, v->src[pos]);
            memset(out, (-csize) & 0xFF, (size_t)neblock);
            pos += 1;
        } else {
            B2_FAIL_IF(csize > v->bound - pos, B2_ERR_TRUNCATED,
                       "block %d stream %d: %d bytes at byte %lld run past cbytes %d", (int)j,
                       (int)s, (int)csize, (long long)pos, (int)v->bound);
            if (csize == neblock) {
                if (pl)
                    pl[s] = v->src + pos;
                else
                    memcpy(out, v->src + pos, (size_t)neblock);
            } else {
                b2_codec_use u = v->codec;
                u.blocksize = bsize;
                int r = need < neblock
                    ? b2_codec_decompress_prefix(&w->cs, &u, v->src + pos, csize, out, neblock, need)
                    : b2_codec_decompress(&w->cs, &u, v->src + pos, csize, out, neblock);
                if (need < neblock && r >= need)
                    r = neblock; /* the prefix asked for is there */
                if (r != neblock)
                    return r < 0 ? B2_FAIL(r, "block %d stream %d (%d bytes at %lld): %s", (int)j,
                                           (int)s, (int)csize, (long long)pos, b2_err_detail())
                                 : B2_FAIL(B2_ERR_CORRUPT, "block %d stream %d decodes to %d bytes, not %d",
                                           (int)j, (int)s, r, (int)neblock);
            }
            pos += csize;
        }
    }
    return B2_OK;
}

/* Decode block j into out. ref: decoded block 0 (delta reference) or NULL for block 0. */
int b2_block_decode(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                    uint8_t *out, const uint8_t *ref)
{
    const b2_chunk_info *in = &v->info;
    int32_t bsize = b2_view_block_size(v, j);
    __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
    if (in->memcpyed) {
        memcpy(out, v->src + in->header_len + (int64_t)j * in->eff_blocksize, (size_t)bsize);
        return B2_OK;
    }
    b2_dworker_use_dict(w, v);
    if (!v->filtered)
        return b2_block_decode_streams(v, w, j, bsize, out, NULL, INT32_MAX);
    uint8_t *tmp = b2_dworker_scratch(w, 2 * (size_t)in->eff_blocksize);
    if (!tmp)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int32_t unit = b2_view_split_unshuffle_unit(v, j, bsize);
    if (unit) { /* unshuffle straight from the streams, raw ones in place */
        const uint8_t *pl[B2_PLANES_MAX];
        int rc = b2_block_decode_streams(v, w, j, bsize, tmp, pl, INT32_MAX);
        if (rc < 0)
            return rc;
        b2_unshuffle_planes_kernel(unit)(unit, pl, 0, bsize / unit, out);
        return B2_OK;
    }
    int rc = b2_block_decode_streams(v, w, j, bsize, tmp, NULL, INT32_MAX);
    if (rc < 0)
        return rc;
    return b2_pipeline_backward(&v->pipe, tmp, bsize, j ? ref : NULL, tmp + in->eff_blocksize,
                                out);
}

/* A special chunk's bytes [offset, offset + n) into dst. */
void b2_block_fill_special(const chunk_view *v, int64_t offset, uint8_t *dst, int64_t n)
{
    const b2_chunk_info *in = &v->info;
    switch (in->special) {
    case B2_SPECIAL_ZEROS:
        memset(dst, 0, (size_t)n);
        break;
    case B2_SPECIAL_NAN: {
        uint8_t pat[8];
        b2_nan_bytes(in->typesize, pat);
        for (int64_t i = 0; i < n; i++)
            dst[i] = pat[(offset + i) % in->typesize];
        break;
    }
    case B2_SPECIAL_VALUE: {
        int32_t vs = in->cbytes - B2_HEADER_LEN;
        const uint8_t *val = v->src + B2_HEADER_LEN;
        int64_t i = 0, k = offset % vs;
        /* the rest of a value cut by offset, one whole value, then doubling
         * copies of the whole values written (from where they start, so rows
         * starting inside a value keep its phase) */
        for (; i < n && k != 0; i++, k = (k + 1) % vs)
            dst[i] = val[k];
        int64_t whole = i;
        for (; i < n && k < vs; i++, k++)
            dst[i] = val[k];
        while (i < n) {
            int64_t chunk = i - whole < n - i ? i - whole : n - i;
            memcpy(dst + i, dst + whole, (size_t)chunk);
            i += chunk;
        }
        break;
    }
    default: /* uninit: content unspecified, leave dst alone */
        break;
    }
}

/* ---- postfilters ---- */

/* Run the context's postfilter on block j (size bytes at blk, offset bytes into
 * the chunk), on worker w. */
int b2_block_postfilter(const chunk_view *v, b2_dctx *d, const b2_dworker *w, int32_t j,
                        int64_t offset, int32_t size, uint8_t *blk)
{
    if (!d->post)
        return B2_OK;
    b2_postfilter_params pp = {.user = d->post_user, .block = blk, .size = size,
                               .typesize = v->info.typesize, .offset = (int32_t)offset,
                               .nblock = j, .tid = (int)(w - d->workers), .nchunk = d->nchunk};
    int rc = d->post(&pp);
    if (rc != 0)
        return B2_FAIL(B2_ERR_CALLBACK, "postfilter returned %d for block %d (bytes %lld..+%d)", rc,
                       (int)j, (long long)offset, (int)size);
    return B2_OK;
}

/* Block j of a fixed-block chunk, special ones included (uninit: zeros), into
 * out and through the postfilter. ref: decoded block 0 of a delta chunk. */
int b2_block_out(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j, uint8_t *out,
                 const uint8_t *ref)
{
    const b2_chunk_info *in = &v->info;
    int32_t bsize = b2_view_block_size(v, j);
    int64_t off = (int64_t)j * in->eff_blocksize;
    int rc = B2_OK;
    if (in->special == B2_SPECIAL_UNINIT)
        memset(out, 0, (size_t)bsize);
    else if (in->special)
        b2_block_fill_special(v, off, out, bsize);
    else if (j == 0 && ref)
        memcpy(out, ref, (size_t)bsize); /* the reference stays unfiltered */
    else
        rc = b2_block_decode(v, d, w, j, out, ref);
    return rc < 0 ? rc : b2_block_postfilter(v, d, w, j, off, bsize, out);
}

/* ---- VL-block chunks (doc/format/chunk.md §11) ---- */

/* Check the block table and compute each block's output offset (offs[nblocks+1]). */
int b2_vl_layout(const chunk_view *v, int64_t *offs)
{
    const b2_chunk_info *in = &v->info;
    const uint8_t *bst = v->src + B2_HEADER_LEN;
    int64_t total = 0, prev = -1;
    for (int32_t j = 0; j < in->nblocks; j++) {
        int64_t pos = b2_load_le32s(bst + 4 * (int64_t)j);
        int64_t next = j + 1 < in->nblocks ? b2_load_le32s(bst + 4 * (int64_t)j + 4) : v->bound;
        B2_FAIL_IF(pos < v->data_start || pos <= prev || pos > v->bound - 4 ||
                       next - pos - 4 <= 0 || next > v->bound,
                   B2_ERR_CORRUPT, "VL block %d spans bytes %lld..%lld of a %d-byte chunk", (int)j,
                   (long long)pos, (long long)next, (int)v->bound);
        int32_t neblock = b2_load_le32s(v->src + pos);
        B2_FAIL_IF(neblock <= 0, B2_ERR_CORRUPT, "VL block %d has size %d", (int)j, (int)neblock);
        offs[j] = total;
        total += neblock;
        B2_FAIL_IF(total > in->nbytes, B2_ERR_CORRUPT,
                   "VL blocks 0..%d hold %lld bytes, more than nbytes %d", (int)j,
                   (long long)total, (int)in->nbytes);
        prev = pos;
    }
    offs[in->nblocks] = total;
    B2_FAIL_IF(total != in->nbytes, B2_ERR_CORRUPT, "VL blocks hold %lld bytes, not nbytes %d",
               (long long)total, (int)in->nbytes);
    return B2_OK;
}

/* VL block j (checked by b2_vl_layout) decoded into out. */
int b2_vl_block_decode(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                       uint8_t *out)
{
    const b2_chunk_info *in = &v->info;
    const uint8_t *bst = v->src + B2_HEADER_LEN;
    int64_t pos = b2_load_le32s(bst + 4 * (int64_t)j);
    int64_t next = j + 1 < in->nblocks ? b2_load_le32s(bst + 4 * (int64_t)j + 4) : v->bound;
    int32_t neblock = b2_load_le32s(v->src + pos);
    int32_t span = (int32_t)(next - pos - 4);
    __atomic_fetch_add(&d->blocks_decoded, 1, __ATOMIC_RELAXED);
    uint8_t *tmp = out;
    if (v->filtered) {
        if (!(tmp = b2_dworker_scratch(w, 2 * (size_t)neblock)))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    if (span == neblock) {
        memcpy(tmp, v->src + pos + 4, (size_t)neblock);
    } else {
        b2_dworker_use_dict(w, v);
        b2_codec_use u = v->codec;
        u.blocksize = neblock;
        int r = b2_codec_decompress(&w->cs, &u, v->src + pos + 4, span, tmp, neblock);
        if (r != neblock)
            return r < 0 ? B2_FAIL(r, "VL block %d (%d bytes): %s", (int)j, (int)span, b2_err_detail())
                         : B2_FAIL(B2_ERR_CORRUPT, "VL block %d decodes to %d bytes, not %d",
                                   (int)j, r, (int)neblock);
    }
    /* Every VL block is its own delta reference (doc/format/filters.md §4). */
    return v->filtered ? b2_pipeline_backward(&v->pipe, tmp, neblock, NULL, tmp + neblock, out)
                       : B2_OK;
}

/* Block 0 of a delta chunk, every other block's reference, decoded once into the
 * context's buffer. */
int b2_block_decode_ref(const chunk_view *v, b2_dctx *d, const uint8_t **ref)
{
    size_t eb = (size_t)v->info.eff_blocksize;
    if (d->refcap < eb) {
        uint8_t *p = realloc(d->ref, eb);
        if (!p)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        d->ref = p;
        d->refcap = eb;
    }
    *ref = d->ref;
    return b2_block_decode(v, d, &d->workers[0], 0, d->ref, NULL);
}
