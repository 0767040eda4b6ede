/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing a range of items across chunks (b2_schunk_set_items).
 *
 * Each chunk the range touches is replaced by a chunk compressed with the
 * super-chunk's cparams, as the reference's set_slice_buffer does: a chunk the
 * range covers whole straight from the caller's bytes (nothing decoded), any
 * other one decoded, patched and compressed again. Compressing needs every byte
 * of the chunk, but the bytes the range covers come from the caller, so only the
 * blocks the range leaves (partly) unwritten are decoded. Untouched chunks are
 * not read at all. Every replacement is staged and the frame committed once, so
 * a file frame holds the old or the new contents of the whole range after a
 * crash, with one sync pair for the call (under b2_schunk_set_defer_commit, with
 * the deferred appends). A failure part way leaves a file or sparse frame as it
 * was (the handle turns read-only) and a memory frame with part of the write.
 * A range past the end is an error, as in the reference (which fails reading
 * the chunk that is not there): use append for that. */
#include <stdio.h>
#include <string.h>

#include "b2_chunk_experimental.h"
#include "frame_internal.h"

/* One block of the chunk being patched, in place in its decode buffer. */
typedef struct patch_rows {
    uint8_t *buf;
    int64_t bs, nb;
} patch_rows;

static int patch_rows_fn(void *ud, int32_t block, b2_block_rows *rows)
{
    const patch_rows *p = ud;
    int64_t off = (int64_t)block * p->bs;
    rows->nd = 1;
    rows->cnt[0] = 1;
    rows->run = p->nb - off < p->bs ? p->nb - off : p->bs;
    rows->user = p->buf + off;
    return B2_OK;
}

/* Decode chunk i (nb bytes) into buf, at least every byte outside [off, off+len). */
static int decode_rest(b2_schunk *s, frame_rd *r, int64_t i, int32_t nb, int64_t off,
                       int64_t len, uint8_t *buf)
{
    const uint8_t *p;
    int32_t cb;
    b2_chunk_info info;
    int rc = b2_schunk_chunk_view_rd(s, r, i, &p, &cb);
    if (rc >= 0)
        rc = b2_chunk_get_info(p, (size_t)cb, &info);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(info.nbytes != nb, B2_ERR_CORRUPT, "chunk %lld says %d bytes, the frame %d",
               (long long)i, (int)info.nbytes, (int)nb);
    if (!info.special && !info.vlblocks && !info.memcpyed && info.eff_blocksize > 0 &&
        info.nblocks > 1) {
        /* the blocks the range does not cover whole */
        int32_t *blocks = malloc((size_t)info.nblocks * sizeof *blocks), n = 0;
        if (!blocks)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        int64_t bs = info.eff_blocksize;
        for (int32_t b = 0; b < info.nblocks; b++) {
            int64_t lo = b * bs, hi = lo + bs < nb ? lo + bs : nb;
            if (lo < off || hi > off + len)
                blocks[n++] = b;
        }
        patch_rows pr = {buf, bs, nb};
        rc = b2_chunk_decompress_rows(r->dctx, p, (size_t)cb, blocks, n, patch_rows_fn, &pr);
        free(blocks);
        if (rc != B2_ERR_UNSUPPORTED)
            return rc < 0 ? rc : B2_OK;
    }
    /* special (materialised here), VL-block, one-block or memcpyed chunks;
     * uninit ones leave buf as it is, so give them defined bytes */
    if (info.special == B2_SPECIAL_UNINIT)
        memset(buf, 0, (size_t)nb);
    rc = b2_chunk_decompress(r->dctx, p, (size_t)cb, buf, (size_t)nb);
    return rc < 0 ? rc : B2_OK;
}

/* Compress nb bytes at src into s->codec.cbuf. */
static int compress_into_cbuf(b2_schunk *s, const uint8_t *src, int32_t nb)
{
    size_t cap = b2_chunk_compress_bound((size_t)nb);
    if (cap > s->codec.cbuf_cap) {
        uint8_t *c = realloc(s->codec.cbuf, cap);
        if (!c)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        s->codec.cbuf = c;
        s->codec.cbuf_cap = cap;
    }
    return b2_chunk_compress(s->codec.cctx, src, (size_t)nb, s->codec.cbuf, cap);
}

/* What a call collects: sparse chunk files to remove once committed. */
typedef struct old_files {
    int64_t *id;
    int64_t n, cap;
} old_files;

static int remember(old_files *o, int64_t id)
{
    if (id < 0)
        return B2_OK;
    if (o->n == o->cap) {
        int64_t cap = o->cap ? 2 * o->cap : 16;
        int64_t *p = realloc(o->id, (size_t)cap * sizeof *p);
        if (!p)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        o->id = p;
        o->cap = cap;
    }
    o->id[o->n++] = id;
    return B2_OK;
}

/* Stage the new contents of every chunk [first, first+want) touches. */
static int stage_range(b2_schunk *s, frame_rd *r, int64_t first, int64_t want,
                       const uint8_t *src, old_files *old, int *staged)
{
    uint8_t *buf = NULL;
    size_t buf_cap = 0;
    int rc = B2_OK;
    int64_t chunk_start = 0;
    for (int64_t i = 0; i < s->ix.nchunks && want > 0 && rc >= 0; i++) {
        if (s->head.h.chunksize > 0 && chunk_start + s->head.h.chunksize <= first) {
            i = first / s->head.h.chunksize; /* fixed chunk size: jump to the first chunk */
            chunk_start = i * s->head.h.chunksize;
            if (i >= s->ix.nchunks)
                break;
        }
        int nb = b2_schunk_chunk_nbytes_body(s, i);
        if (nb < 0) {
            rc = nb;
            break;
        }
        if (first >= chunk_start + nb) {
            chunk_start += nb;
            continue;
        }
        int64_t off = first - chunk_start, len = nb - off < want ? nb - off : want;
        if (off == 0 && len == nb) {
            rc = compress_into_cbuf(s, src, nb);
        } else {
            if ((size_t)nb > buf_cap) {
                rc = FRAME_MEM_CHECK(s, nb, "patching a chunk");
                uint8_t *b = rc >= 0 ? realloc(buf, (size_t)nb) : NULL;
                if (rc >= 0 && !b)
                    rc = B2_FAIL_CODE(B2_ERR_NOMEM);
                if (b) {
                    buf = b;
                    buf_cap = (size_t)nb;
                }
            }
            if (rc >= 0)
                rc = decode_rest(s, r, i, nb, off, len, buf);
            if (rc >= 0) {
                memcpy(buf + off, src, (size_t)len);
                rc = compress_into_cbuf(s, buf, nb);
            }
        }
        int64_t old_entry = -1;
        if (rc >= 0)
            rc = b2_frame_update_stage(s, i, s->codec.cbuf, rc, &old_entry);
        if (rc >= 0) {
            ++*staged;
            rc = remember(old, old_entry); /* for the placement's after_commit */
        }
        if (rc < 0) {
            char what[40];
            snprintf(what, sizeof what, "chunk %lld", (long long)i);
            rc = B2_PREFIX(rc, what);
        }
        src += len;
        first += len;
        want -= len;
        chunk_start += nb;
    }
    free(buf);
    if (rc >= 0 && want > 0)
        rc = B2_FAIL(B2_ERR_CORRUPT, "chunks hold %lld bytes less than nbytes %lld says",
                     (long long)want, (long long)s->head.h.nbytes);
    return rc;
}

int64_t b2_schunk_set_items_body(b2_schunk *s, int64_t start, int64_t n, const void *src,
                                 size_t len)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    int64_t ts = s->head.h.typesize, total = s->head.h.nbytes / ts;
    B2_FAIL_IF(start < 0 || n < 0 || start > total || n > total - start, B2_ERR_RANGE,
               "items %lld..+%lld of %lld (set_items does not append)", (long long)start,
               (long long)n, (long long)total);
    B2_FAIL_IF(n > 0 && (!src || (uint64_t)n * (uint64_t)ts > len), B2_ERR_INVALID_PARAM,
               "%lld items of %d bytes from a %zu-byte source", (long long)n, (int)ts,
               src ? len : 0);
    if (n == 0)
        return 0;
    B2_FAIL_IF(s->head.h.general_flags & 0x80, B2_ERR_UNSUPPORTED,
               "a frame of VL-block chunks: update its chunks whole");
    if (!s->codec.cctx && !(s->codec.cctx = b2_cctx_new(&s->codec.cparams))) {
        int rc = b2_cparams_check(&s->codec.cparams);
        return rc < 0 ? rc : B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    frame_rd *r = b2_frame_rd_get(s);
    if (!r)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    old_files old = {NULL, 0, 0};
    int staged = 0;
    int rc = stage_range(s, r, start * ts, n * ts, src, &old, &staged);
    b2_frame_rd_put(s, r);
    if (rc < 0 && staged && !s->io.place->in_place)
        s->io.writable = 0; /* the handle is ahead of its storage, which holds the old contents */
    if (rc >= 0 && s->io.defer_commit && frame_crash_safe(s))
        s->io.commit_pending = 1; /* committed with the deferred appends */
    else if (rc >= 0)
        rc = b2_frame_commit(s, 0);
    for (int64_t k = 0; rc >= 0 && k < old.n; k++)
        rc = s->io.place->after_commit(s, old.id[k]); /* only once the new index is committed */
    free(old.id);
    return rc < 0 ? rc : n * ts;
}
