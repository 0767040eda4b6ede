/* SPDX-License-Identifier: BSD-3-Clause */
/* Super-chunk objects: opening from memory or files, properties, and reading
 * chunks (regular chunks from storage, special index entries synthesised). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_internal.h"
#include "b2_frame_experimental.h"

int b2_schunk_set_memory_limit(b2_schunk *s, int64_t bytes)
{
    if (!s)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "schunk is NULL");
    s->mem_limit = bytes > 0 ? bytes : 0;
    b2_frame_rd_drop(s); /* the next readers' contexts take the new limit */
    return B2_OK;
}

/* ---- properties ---- */

int b2_schunk_storage(const b2_schunk *s) { return s->io.storage; }
const char *b2_schunk_last_error(const b2_schunk *s) { return s ? b2_err_text(&s->err) : ""; }
int64_t b2_schunk_nchunks(const b2_schunk *s) { return s->ix.nchunks; }
int64_t b2_schunk_nbytes(const b2_schunk *s) { return s->head.h.nbytes; }
int64_t b2_schunk_cbytes(const b2_schunk *s) { return s->head.h.cbytes; }
int64_t b2_schunk_frame_len(const b2_schunk *s) { return s->head.h.frame_len; }
int64_t b2_schunk_bytes_read(const b2_schunk *s)
{
    return s ? __atomic_load_n(&s->count.bytes_read, __ATOMIC_RELAXED) : 0;
}
int32_t b2_schunk_typesize(const b2_schunk *s) { return s->head.h.typesize; }
int32_t b2_schunk_chunksize(const b2_schunk *s) { return s->head.h.chunksize; }
const b2_cparams *b2_schunk_cparams(const b2_schunk *s) { return &s->codec.cparams; }

int b2_schunk_set_sync(b2_schunk *s, int sync)
{
    s->io.nosync = !sync;
    return B2_OK;
}

int b2_schunk_set_nthreads_body(b2_schunk *s, int nthreads)
{
    B2_FAIL_IF(!s || nthreads > 256, B2_ERR_INVALID_PARAM, "%s",
               s ? "more than 256 threads" : "schunk is NULL");
    s->codec.nthreads = nthreads > 0 ? nthreads : 1;
    s->codec.cparams.nthreads = s->codec.nthreads;
    b2_cctx_free(s->codec.cctx); /* made again with the new count on the next append */
    s->codec.cctx = NULL;
    b2_frame_rd_drop(s); /* and the readers on the next read */
    return B2_OK;
}

int b2_schunk_set_registry(b2_schunk *s, const b2_registry *registry)
{
    if (!s)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "schunk is NULL");
    s->codec.cparams.registry = registry;
    b2_cctx_free(s->codec.cctx); /* made again with the registry on the next append */
    s->codec.cctx = NULL;
    b2_frame_rd_drop(s); /* and the readers on the next read */
    return B2_OK;
}

int b2_schunk_set_prefilter(b2_schunk *s, b2_prefilter_fn fn, void *user)
{
    if (!s)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "schunk is NULL");
    s->codec.pre = fn;
    s->codec.pre_user = fn ? user : NULL;
    return s->codec.cctx ? b2_cctx_set_prefilter(s->codec.cctx, fn, user) : B2_OK;
}

int b2_schunk_set_postfilter(b2_schunk *s, b2_postfilter_fn fn, void *user)
{
    if (!s)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "schunk is NULL");
    s->codec.post = fn;
    s->codec.post_user = fn ? user : NULL;
    return B2_OK;
}

/* ---- reading chunks ---- */

/* The reader's context, with the postfilter for chunk i when the handle has
 * one; post_off takes it away again, so the index and vlmetalayers, which the
 * same context decodes, never see it. */
static b2_dctx *post_on(b2_schunk *s, frame_rd *r, int64_t i)
{
    if (s->codec.post) {
        b2_dctx_set_postfilter(r->dctx, s->codec.post, s->codec.post_user);
        b2_dctx_set_nchunk(r->dctx, i);
    }
    return r->dctx;
}

static void post_off(b2_schunk *s, frame_rd *r)
{
    if (s->codec.post) {
        b2_dctx_set_postfilter(r->dctx, NULL, NULL);
        b2_dctx_set_nchunk(r->dctx, -1);
    }
}

/* Say which chunk a failure is about. */
__attribute__((cold)) static int chunk_fail(int rc, int64_t i)
{
    char what[40];
    snprintf(what, sizeof what, "chunk %lld", (long long)i);
    return B2_PREFIX(rc, what);
}

int32_t b2_schunk_special_nbytes(const b2_schunk *s, int64_t i)
{
    int32_t cs = s->head.h.chunksize;
    B2_FAIL_IF(cs <= 0, B2_ERR_CORRUPT, "special chunk %lld in a frame of chunksize %d",
               (long long)i, (int)cs);
    if (i == s->ix.nchunks - 1 && s->head.h.nbytes % cs)
        return (int32_t)(s->head.h.nbytes % cs);
    return cs;
}

/* Offset and size limit of regular chunk e in a contiguous frame. */
static int chunk_bounds(const b2_schunk *s, int64_t e, int64_t *pos, int64_t *room)
{
    B2_FAIL_IF(e < 0 || e > s->head.h.cbytes - B2_HEADER_LEN, B2_ERR_CORRUPT,
               "index offset %lld outside the chunks section of %lld bytes", (long long)e,
               (long long)s->head.h.cbytes);
    *pos = s->head.h.header_len + e;
    *room = s->head.h.cbytes - e;
    return B2_OK;
}

static int check_chunk(const uint8_t *p, int64_t room, b2_chunk_info *info)
{
    int rc = b2_chunk_get_info(p, (size_t)(room < B2_HEADER_LEN ? room : B2_HEADER_LEN), info);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(info->cbytes < B2_MIN_HEADER_LEN || info->cbytes > room || info->lazy,
               B2_ERR_CORRUPT, "chunk cbytes %d%s with %lld bytes left in the frame",
               (int)info->cbytes, info->lazy ? " (lazy)" : "", (long long)room);
    return B2_OK;
}

int b2_schunk_chunk_ptr(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **p, int32_t *cbytes)
{
    int rc = b2_schunk_chunk_bytes(s, r, i, p, cbytes);
    if (rc >= 0 && s->check.verify && s->check.table && (rc = b2_frame_sums_check(s, i, *p, *cbytes)) > 0)
        rc = B2_OK; /* stale entries or none: nothing to check against */
    return rc;
}

int b2_schunk_chunk_bytes(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **p, int32_t *cbytes)
{
    int64_t e = frame_entry(s, i);
    b2_chunk_info info;
    int rc;
    if (s->io.place->chunk_files) {
        int32_t size;
        rc = b2_sframe_read_chunk(s, r, e, &size);
        if (rc < 0)
            return rc;
        rc = check_chunk(r->scratch, size, &info);
        if (rc < 0)
            return rc;
        *p = r->scratch;
        *cbytes = size;
        return B2_OK;
    }
    int64_t pos, room;
    rc = chunk_bounds(s, e, &pos, &room);
    if (rc < 0)
        return rc;
    size_t len;
    const uint8_t *base = b2_fio_map(s, &len);
    if (base) { /* in place */
        /* the buffer may be shorter than cbytes says after a failed modification */
        B2_FAIL_IF((uint64_t)pos > len || (uint64_t)room > len - (uint64_t)pos, B2_ERR_CORRUPT,
                   "chunk at %lld (%lld bytes) past the %zu-byte buffer", (long long)pos,
                   (long long)room, len);
        rc = check_chunk(base + pos, room, &info);
        if (rc < 0)
            return rc;
        *p = base + pos;
    } else {
        uint8_t hdr[B2_HEADER_LEN];
        rc = b2_fio_read(s, pos, hdr, sizeof hdr);
        if (rc >= 0)
            rc = check_chunk(hdr, room, &info);
        if (rc >= 0)
            rc = b2_frame_rd_scratch(r, (size_t)info.cbytes);
        if (rc >= 0)
            rc = b2_fio_read(s, pos, r->scratch, (size_t)info.cbytes);
        if (rc < 0)
            return rc;
        *p = r->scratch;
    }
    *cbytes = info.cbytes;
    return B2_OK;
}

/* Header of chunk i without reading its body (frame_internal.h). */
int b2_schunk_chunk_header(b2_schunk *s, int64_t i, b2_chunk_info *info, int *special)
{
    B2_FAIL_IF(i < 0 || i >= s->ix.nchunks, B2_ERR_RANGE, "chunk %lld of %lld", (long long)i,
               (long long)s->ix.nchunks);
    int sp = b2_frame_index_special(frame_entry(s, i));
    if (sp < 0)
        return sp;
    *special = sp;
    if (sp)
        return B2_OK;
    if (frame_crash_safe(s)) {
        int64_t pos, room;
        uint8_t hdr[B2_HEADER_LEN];
        int rc = chunk_bounds(s, frame_entry(s, i), &pos, &room);
        if (rc >= 0)
            rc = b2_fio_read(s, pos, hdr, sizeof hdr);
        return rc < 0 ? rc : check_chunk(hdr, room, info);
    }
    if (s->io.place->chunk_files) { /* the header, not the whole chunk file */
        uint8_t hdr[B2_HEADER_LEN];
        int32_t size;
        int rc = b2_sframe_read_header(s, frame_entry(s, i), hdr, &size);
        return rc < 0 ? rc : check_chunk(hdr, size, info);
    }
    const uint8_t *p; /* memory storage: in place, no reader needed */
    int32_t cb;
    int rc = b2_schunk_chunk_ptr(s, NULL, i, &p, &cb);
    return rc < 0 ? rc : b2_chunk_get_info(p, (size_t)cb, info);
}

int b2_schunk_chunk_nbytes_body(b2_schunk *s, int64_t i)
{
    b2_chunk_info info;
    int sp;
    int rc = b2_schunk_chunk_header(s, i, &info, &sp);
    if (rc < 0)
        return rc;
    return sp ? b2_schunk_special_nbytes(s, i) : info.nbytes;
}

int b2_schunk_chunk_cbytes_body(b2_schunk *s, int64_t i)
{
    b2_chunk_info info;
    int sp;
    int rc = b2_schunk_chunk_header(s, i, &info, &sp);
    if (rc < 0)
        return rc;
    return sp ? B2_HEADER_LEN : info.cbytes; /* index entries stand for a bare header */
}

int b2_schunk_chunk_special_body(b2_schunk *s, int64_t i)
{
    b2_chunk_info info;
    int sp;
    int rc = b2_schunk_chunk_header(s, i, &info, &sp);
    if (rc < 0)
        return rc;
    return sp ? sp : info.special;
}

int b2_schunk_chunk_view_rd(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **chunk,
                            int32_t *cbytes)
{
    *chunk = NULL;
    B2_FAIL_IF(i < 0 || i >= s->ix.nchunks, B2_ERR_RANGE, "chunk %lld of %lld", (long long)i,
               (long long)s->ix.nchunks);
    int sp = b2_frame_index_special(frame_entry(s, i));
    if (sp < 0)
        return sp;
    if (sp) {
        int32_t nb = b2_schunk_special_nbytes(s, i);
        if (nb < 0)
            return nb;
        int32_t ts = s->head.h.typesize > B2_MAX_TYPESIZE ? 1 : s->head.h.typesize;
        int rc = b2_chunk_make_special(sp, ts, nb, NULL, r->special, B2_HEADER_LEN);
        if (rc < 0)
            return rc;
        *chunk = r->special;
        *cbytes = rc;
        return B2_OK;
    }
    return b2_schunk_chunk_ptr(s, r, i, chunk, cbytes);
}

/* The view lives in the reader given back to s, where it stays until the next
 * call takes that reader: hence "valid until the next call on s". */
int b2_schunk_chunk_view_body(b2_schunk *s, int64_t i, const uint8_t **chunk, int32_t *cbytes)
{
    *chunk = NULL;
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    frame_rd *r = b2_frame_rd_get(s);
    int rc = r ? b2_schunk_chunk_view_rd(s, r, i, chunk, cbytes) : B2_ERR_NOMEM;
    b2_frame_rd_put(s, r);
    return rc;
}

int b2_schunk_get_chunk_body(b2_schunk *s, int64_t i, uint8_t **chunk, int32_t *cbytes)
{
    const uint8_t *p;
    int32_t cb;
    *chunk = NULL;
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    frame_rd *r = b2_frame_rd_get(s);
    int rc = r ? b2_schunk_chunk_view_rd(s, r, i, &p, &cb) : B2_ERR_NOMEM;
    if (rc >= 0 && !(*chunk = malloc((size_t)cb)))
        rc = B2_FAIL_CODE(B2_ERR_NOMEM);
    if (rc >= 0) {
        memcpy(*chunk, p, (size_t)cb);
        *cbytes = cb;
    }
    b2_frame_rd_put(s, r);
    return rc < 0 ? rc : B2_OK;
}

/* Fill dst with nb bytes of a special index entry's content. */
static int fill_special(const b2_schunk *s, int sp, void *dst, size_t nb)
{
    if (sp == B2_SPECIAL_ZEROS) {
        memset(dst, 0, nb);
    } else if (sp == B2_SPECIAL_NAN) {
        uint8_t pat[8];
        int32_t ts = s->head.h.typesize;
        if ((ts != 4 && ts != 8) || nb % (size_t)ts)
            return B2_FAIL(B2_ERR_CORRUPT, "NaN chunk of %zu bytes with typesize %d", nb, (int)ts);
        b2_nan_bytes(ts, pat);
        for (size_t o = 0; o < nb; o += (size_t)ts)
            memcpy((uint8_t *)dst + o, pat, (size_t)ts);
    }
    /* uninit: the content is unspecified and dst stays untouched, as in the reference */
    return B2_OK;
}

/* Decompress chunk i into dst with reader r. */
static int decompress_chunk_rd(b2_schunk *s, frame_rd *r, int64_t i, void *dst, size_t cap)
{
    B2_FAIL_IF(i < 0 || i >= s->ix.nchunks, B2_ERR_RANGE, "chunk %lld of %lld", (long long)i,
               (long long)s->ix.nchunks);
    int sp = b2_frame_index_special(frame_entry(s, i));
    if (sp < 0)
        return sp;
    if (sp && !s->codec.post) {
        int32_t nb = b2_schunk_special_nbytes(s, i);
        if (nb < 0)
            return nb;
        if ((size_t)nb > cap)
            return B2_FAIL_CODE(B2_ERR_DST_TOO_SMALL);
        int rc = fill_special(s, sp, dst, (size_t)nb);
        return rc < 0 ? rc : nb;
    }
    /* with a postfilter, special entries are decoded as the chunks they stand for */
    const uint8_t *p;
    int32_t cb;
    int rc = sp ? b2_schunk_chunk_view_rd(s, r, i, &p, &cb) : b2_schunk_chunk_ptr(s, r, i, &p, &cb);
    if (rc >= 0) {
        rc = b2_chunk_decompress(post_on(s, r, i), p, (size_t)cb, dst, cap);
        post_off(s, r);
    }
    return rc < 0 ? chunk_fail(rc, i) : rc;
}

int b2_schunk_decompress_chunk_body(b2_schunk *s, int64_t i, void *dst, size_t cap)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    frame_rd *r = b2_frame_rd_get(s);
    int rc = r ? decompress_chunk_rd(s, r, i, dst, cap) : B2_ERR_NOMEM;
    b2_frame_rd_put(s, r);
    return rc;
}

/* Copy bytes [off, off+len) of chunk i (nb bytes long) into dst, with reader r. */
static int chunk_range(b2_schunk *s, frame_rd *r, int64_t i, int32_t nb, int64_t off, int64_t len,
                       uint8_t *dst)
{
    int sp = b2_frame_index_special(frame_entry(s, i));
    if (sp < 0)
        return sp;
    if (sp && !s->codec.post)
        return fill_special(s, sp, dst, (size_t)len);
    if (off == 0 && len == nb) {
        int rc = decompress_chunk_rd(s, r, i, dst, (size_t)len);
        return rc < 0 ? rc : (rc == nb ? B2_OK : B2_ERR_CORRUPT);
    }
    size_t mapped;
    if (!sp && !b2_fio_map(s, &mapped)) {
        post_on(s, r, i);
        int rc = b2_schunk_lazy_range(s, r, i, off, len, dst);
        post_off(s, r);
        if (rc != B2_ERR_UNSUPPORTED)
            return rc;
    }
    const uint8_t *p;
    int32_t cb;
    b2_chunk_info info;
    int rc = sp ? b2_schunk_chunk_view_rd(s, r, i, &p, &cb) : b2_schunk_chunk_ptr(s, r, i, &p, &cb);
    if (rc >= 0)
        rc = b2_chunk_get_info(p, (size_t)cb, &info);
    if (rc < 0)
        return rc;
    if (info.nbytes != nb)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    if (!info.vlblocks && off % info.typesize == 0 && len % info.typesize == 0) {
        rc = b2_chunk_getitem(post_on(s, r, i), p, (size_t)cb, off / info.typesize,
                              len / info.typesize, dst, (size_t)len);
        post_off(s, r);
        return rc < 0 ? rc : B2_OK;
    }
    if ((rc = FRAME_MEM_CHECK(s, nb, "decoding the chunk")) < 0)
        return rc;
    uint8_t *tmp = malloc((size_t)nb);
    if (!tmp)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    rc = b2_chunk_decompress(post_on(s, r, i), p, (size_t)cb, tmp, (size_t)nb);
    post_off(s, r);
    if (rc >= 0)
        memcpy(dst, tmp + off, (size_t)len);
    free(tmp);
    return rc < 0 ? rc : B2_OK;
}

static int64_t get_items_rd(b2_schunk *s, frame_rd *r, int64_t start, int64_t n, void *dst,
                            size_t cap)
{
    int64_t ts = s->head.h.typesize;
    B2_FAIL_IF(start < 0 || n < 0 || start > s->head.h.nbytes / ts || n > s->head.h.nbytes / ts - start,
               B2_ERR_RANGE, "items %lld..+%lld of %lld", (long long)start, (long long)n,
               (long long)(s->head.h.nbytes / ts));
    int64_t first = start * ts, want = n * ts;
    B2_FAIL_IF((uint64_t)want > cap, B2_ERR_DST_TOO_SMALL, "%lld bytes wanted, dst has %zu",
               (long long)want, cap);
    uint8_t *d = dst;
    int64_t chunk_start = 0;
    for (int64_t i = 0; i < s->ix.nchunks && want > 0; i++) {
        int64_t nb;
        if (s->head.h.chunksize > 0) {
            /* fixed chunk size: jump straight to the first chunk needed */
            if (chunk_start + s->head.h.chunksize <= first) {
                i = first / s->head.h.chunksize;
                chunk_start = i * s->head.h.chunksize;
                if (i >= s->ix.nchunks)
                    break;
            }
        }
        int cn = b2_schunk_chunk_nbytes_body(s, i);
        if (cn < 0)
            return cn;
        nb = cn;
        if (first < chunk_start + nb) {
            int64_t off = first - chunk_start, len = nb - off < want ? nb - off : want;
            int rc = chunk_range(s, r, i, (int32_t)nb, off, len, d);
            if (rc < 0)
                return chunk_fail(rc, i);
            d += len;
            first += len;
            want -= len;
        }
        chunk_start += nb;
    }
    B2_FAIL_IF(want > 0, B2_ERR_CORRUPT, "chunks hold %lld bytes less than nbytes %lld says",
               (long long)want, (long long)s->head.h.nbytes);
    return n * ts;
}

int64_t b2_schunk_get_items_body(b2_schunk *s, int64_t start, int64_t n, void *dst, size_t cap)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    frame_rd *r = b2_frame_rd_get(s);
    int64_t rc = r ? get_items_rd(s, r, start, n, dst, cap) : B2_ERR_NOMEM;
    b2_frame_rd_put(s, r);
    return rc;
}

int b2_frame_rd_chunk_view(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **chunk,
                           int32_t *cbytes)
{
    int rc = b2_schunk_chunk_view_rd(s, r, i, chunk, cbytes);
    return B2_KEEP(&s->err, rc); /* as b2_schunk_chunk_view does */
}
