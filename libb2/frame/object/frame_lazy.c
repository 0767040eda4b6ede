/* SPDX-License-Identifier: BSD-3-Clause */
/* Partial reads of chunks that live on disk (doc/format/frame.md §9.2): to decode a range of
 * items only the chunk header, bstarts, dictionary and the blocks holding the range
 * are read. The bytes are placed at their own offsets in a chunk-sized buffer, so
 * the ordinary chunk decoder runs unchanged and touches nothing else. */
#include <string.h>

#include "frame_internal.h"

/* Where chunk i's bytes are: a store, a base position and a size bound. */
typedef struct chunk_src {
    b2_schunk *s;
    frame_store *chunk; /* sparse: the chunk file; contiguous: NULL (use b2_fio_read) */
    int64_t base; /* frame-relative position (contiguous) */
    int64_t room; /* bytes available */
} chunk_src;

static int src_read(chunk_src *c, int64_t off, void *dst, int64_t n)
{
    if (off < 0 || n < 0 || off > c->room || n > c->room - off)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    if (!c->chunk)
        return b2_fio_read(c->s, c->base + off, dst, (size_t)n); /* counts the bytes */
    int rc = c->chunk->ops->read(c->chunk, off, dst, (size_t)n);
    if (rc >= 0)
        b2_fio_count(c->s, n);
    return rc;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Read the bytes of block j of a regular (not memcpyed) chunk into buf: from its
 * bstart to the next larger one, then, walking its streams' size fields, any
 * bytes they really span beyond that (damaged bstarts may overlap), so the
 * decoder never reads a byte of buf that was not read from the chunk. */
static int read_block(chunk_src *c, const b2_chunk_info *info, const int32_t *bstarts,
                      const int32_t *sorted, int32_t j, uint8_t *buf)
{
    int32_t nblocks = info->nblocks, cbytes = info->cbytes;
    int32_t start = bstarts[j], end = cbytes;
    /* next larger start in the sorted copy (bstarts need not be monotonic) */
    int32_t lo = 0, hi = nblocks;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < nblocks)
        end = sorted[lo];
    if (start < B2_HEADER_LEN || start > cbytes || end > cbytes)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    int rc = src_read(c, start, buf + start, end - start);
    int leftover = j == nblocks - 1 && info->leftover;
    int32_t ns = info->split && !leftover ? info->typesize : 1;
    int64_t pos = start, have = end;
    for (int32_t k = 0; k < ns && rc >= 0; k++) {
        if (pos + 4 > cbytes)
            break; /* the decoder reports the truncation before reading there */
        if (pos + 4 > have) {
            rc = src_read(c, have, buf + have, pos + 4 - have);
            have = pos + 4;
        }
        int32_t cs = rc >= 0 ? b2_load_le32s(buf + pos) : 0;
        pos += 4;
        int64_t need = cs > 0 ? cs : cs < 0 ? 1 : 0;
        if (need > cbytes - pos)
            break;
        if (rc >= 0 && pos + need > have) {
            rc = src_read(c, have, buf + have, pos + need - have);
            have = pos + need;
        }
        pos += need;
    }
    return rc;
}

/* Open where chunk i's bytes are (file or sparse storage). */
static int chunk_src_open(b2_schunk *s, int64_t i, chunk_src *c)
{
    *c = (chunk_src){s, NULL, 0, 0};
    int64_t e = frame_entry(s, i);
    if (frame_crash_safe(s)) {
        if (e < 0 || e > s->head.h.cbytes - B2_HEADER_LEN)
            return B2_FAIL_CODE(B2_ERR_CORRUPT);
        c->base = s->head.h.header_len + e;
        c->room = s->head.h.cbytes - e;
        return B2_OK;
    }
    if (!s->io.place->chunk_files)
        return B2_ERR_UNSUPPORTED;
    return b2_sframe_open_chunk(s, e, &c->chunk, &c->room);
}

/* The blocks to read: n listed ones, or (list NULL) those holding bytes
 * [off, off + len) of the decoded chunk, known once the header is read. */
typedef struct block_set {
    const int32_t *list;
    int32_t n;
    int64_t off, len;
} block_set;

static int32_t set_count(const block_set *w) { return w->list ? w->n : 1; }

/* Range k of the set as blocks [*j0, *j1] for blocks of bs bytes. */
static void set_range(const block_set *w, int64_t bs, int32_t k, int32_t *j0, int32_t *j1)
{
    *j0 = w->list ? w->list[k] : (int32_t)(w->off / bs);
    *j1 = w->list ? w->list[k] : (int32_t)((w->off + w->len - 1) / bs);
}

/* Read chunk i's header, bstarts and dictionary and the blocks of w (block 0
 * too when a delta filter needs it) into a new chunk-sized buffer. */
static int read_blocks(b2_schunk *s, int64_t i, const block_set *w, uint8_t **chunk,
                       b2_chunk_info *info)
{
    chunk_src c;
    uint8_t hdr[B2_HEADER_LEN], *buf = NULL;
    int32_t *bst = NULL;
    if (s->check.verify && s->check.table)
        return B2_ERR_UNSUPPORTED; /* a checksum covers the whole chunk: read it whole */
    int rc = chunk_src_open(s, i, &c);
    if (rc >= 0)
        rc = src_read(&c, 0, hdr, B2_HEADER_LEN);
    if (rc >= 0)
        rc = b2_chunk_get_info(hdr, sizeof hdr, info);
    if (rc >= 0 && (info->cbytes > c.room || info->cbytes < B2_HEADER_LEN))
        rc = B2_FAIL_CODE(B2_ERR_CORRUPT);
    /* Shapes handled here; anything else is read whole by the caller. */
    if (rc >= 0 && (info->special || info->vlblocks || info->lazy ||
                    info->header_len != B2_HEADER_LEN))
        rc = B2_ERR_UNSUPPORTED;
    if (rc >= 0)
        rc = FRAME_MEM_CHECK(s, info->cbytes, "reading the chunk");
    if (rc >= 0 && !(buf = malloc((size_t)info->cbytes)))
        rc = B2_FAIL_CODE(B2_ERR_NOMEM);
    if (rc < 0)
        goto done;
    memcpy(buf, hdr, B2_HEADER_LEN);
    int64_t bs = info->eff_blocksize;
    int32_t nb = info->nblocks, j0, j1;
    for (int32_t k = 0; k < set_count(w); k++) {
        set_range(w, bs, k, &j0, &j1);
        if (j0 < 0 || j1 >= nb || j0 > j1) {
            rc = B2_FAIL(B2_ERR_RANGE, "block %d of %d", (int)j1, (int)nb);
            goto done;
        }
    }
    if (info->memcpyed) {
        for (int32_t k = 0; k < set_count(w) && rc >= 0; k++) {
            set_range(w, bs, k, &j0, &j1);
            int64_t a = B2_HEADER_LEN + j0 * bs, b = B2_HEADER_LEN + (j1 + 1) * bs;
            rc = src_read(&c, a, buf + a, (b < info->cbytes ? b : info->cbytes) - a);
        }
        goto done;
    }
    int64_t tab = B2_HEADER_LEN + 4 * (int64_t)nb;
    if (tab > info->cbytes) {
        rc = B2_FAIL_CODE(B2_ERR_CORRUPT);
        goto done;
    }
    bst = malloc(2 * (size_t)nb * sizeof *bst);
    rc = bst ? src_read(&c, B2_HEADER_LEN, buf + B2_HEADER_LEN, tab - B2_HEADER_LEN)
             : B2_FAIL_CODE(B2_ERR_NOMEM);
    if (rc >= 0 && info->has_dict) {
        rc = src_read(&c, tab, buf + tab, 4);
        int64_t dl = rc >= 0 ? b2_load_le32s(buf + tab) : 0;
        if (rc >= 0)
            rc = dl < 0 || dl > info->cbytes - tab - 4 ? B2_FAIL_CODE(B2_ERR_CORRUPT)
                                                      : src_read(&c, tab + 4, buf + tab + 4, dl);
    }
    if (rc < 0)
        goto done;
    for (int32_t j = 0; j < nb; j++)
        bst[j] = bst[nb + j] = b2_load_le32s(buf + B2_HEADER_LEN + 4 * j);
    qsort(bst + nb, (size_t)nb, sizeof *bst, cmp_i32);
    /* the decoder also decodes block 0 when a delta filter needs its reference */
    int delta = 0;
    for (int f = 0; f < B2_MAX_FILTERS; f++)
        delta |= info->filters[f] == B2_FILTER_DELTA;
    if (delta)
        rc = read_block(&c, info, bst, bst + nb, 0, buf);
    for (int32_t k = 0; k < set_count(w) && rc >= 0; k++) {
        set_range(w, bs, k, &j0, &j1);
        for (int32_t j = j0; j <= j1 && rc >= 0; j++)
            if (!(delta && j == 0))
                rc = read_block(&c, info, bst, bst + nb, j, buf);
    }
done:
    free(bst);
    b2_store_free(c.chunk);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *chunk = buf;
    return B2_OK;
}

int b2_schunk_lazy_range(b2_schunk *s, frame_rd *r, int64_t i, int64_t off, int64_t len,
                         uint8_t *dst)
{
    if (len <= 0)
        return B2_ERR_UNSUPPORTED;
    block_set w = {NULL, 0, off, len};
    b2_chunk_info info;
    uint8_t *buf;
    int rc = read_blocks(s, i, &w, &buf, &info);
    if (rc < 0)
        return rc;
    /* whole items of the chunk's own typesize only (rare otherwise: read whole) */
    rc = off % info.typesize || len % info.typesize
             ? B2_ERR_UNSUPPORTED
             : b2_chunk_getitem(r->dctx, buf, (size_t)info.cbytes, off / info.typesize,
                                len / info.typesize, dst, (size_t)len);
    free(buf);
    return rc < 0 ? rc : B2_OK;
}

int b2_schunk_read_blocks_body(b2_schunk *s, int64_t i, const int32_t *blocks, int32_t n,
                                   uint8_t **chunk, int32_t *cbytes)
{
    B2_FAIL_IF(!s || !blocks || n < 1 || !chunk || !cbytes, B2_ERR_INVALID_PARAM,
               "read_blocks: %s", !s ? "no super-chunk" : n < 1 ? "no block listed" : "NULL argument");
    B2_FAIL_IF(i < 0 || i >= s->ix.nchunks, B2_ERR_RANGE, "chunk %lld of %lld", (long long)i,
               (long long)s->ix.nchunks);
    int sp = b2_frame_index_special(frame_entry(s, i));
    if (sp != 0)
        return sp < 0 ? sp : B2_ERR_UNSUPPORTED;
    b2_chunk_info info;
    block_set w = {blocks, n, 0, 0};
    int rc = read_blocks(s, i, &w, chunk, &info);
    if (rc >= 0)
        *cbytes = info.cbytes;
    return rc;
}

