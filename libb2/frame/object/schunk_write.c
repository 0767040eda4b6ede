/* SPDX-License-Identifier: BSD-3-Clause */
/* Modifying contiguous and sparse frames.
 *
 * Memory frames follow the reference layout exactly (doc/format/frame.md §8): new chunk bytes
 * go to the end of the chunks section, overwriting the old index and trailer, and
 * updates compact the section. File frames must survive a crash at any point, so
 * nothing live is ever overwritten: new chunk bytes, then the new index and trailer,
 * are written past the current end of the frame, the file is synced, and only then
 * is the header (same size, one write) rewritten to point at them. A crash before
 * the header write leaves the old frame intact (readers ignore bytes past
 * frame_len); the old index and trailer become dead space in the chunks section,
 * which the format allows (frame_compact.c reclaims it once it dominates). Sparse
 * frames write new chunk files under fresh ids and replace chunks.b2frame
 * atomically (sframe.c). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "b2_frame_experimental.h"
#include "frame_internal.h"

/* Where new bytes may go without touching the live frame. */
static int64_t frame_tail(const b2_schunk *s)
{
    int64_t end = s->head.h.header_len + s->head.h.cbytes;
    if (frame_crash_safe(s) && s->head.h.frame_len > end)
        end = s->head.h.frame_len;
    return end;
}

int b2_frame_commit(b2_schunk *s, int runlength_index)
{
    int rc = s->io.place->commit(s, runlength_index);
    if (rc < 0)
        s->io.writable = 0; /* the handle's state is ahead of its storage */
    return rc;
}

int b2_frame_commit_section(b2_schunk *s, int runlength_index)
{
    s->io.commit_pending = 0;
    uint8_t *idx, *trl, *hdr = NULL;
    int32_t idx_len;
    int64_t trl_len;
    int rc = b2_frame_build_meta_parts(s, runlength_index, &idx, &idx_len, &trl, &trl_len);
    if (rc < 0)
        return rc;
    int64_t tail = frame_tail(s);
    if (frame_crash_safe(s)) /* the old index and trailer become dead space */
        s->count.dead_bytes += tail - (s->head.h.header_len + s->head.h.cbytes);
    s->head.h.cbytes = tail - s->head.h.header_len;
    int64_t ipos = s->head.h.header_len + s->head.h.cbytes;
    s->head.h.frame_len = ipos + idx_len + trl_len;
    hdr = malloc((size_t)s->head.h.header_len);
    rc = hdr ? b2_frame_header_write(&s->head.h, s->head.meta, s->head.nmeta, hdr) : B2_FAIL_CODE(B2_ERR_NOMEM);
    if (rc >= 0 && idx_len)
        rc = b2_fio_write(s, ipos, idx, (size_t)idx_len);
    if (rc >= 0)
        rc = b2_fio_write(s, ipos + idx_len, trl, (size_t)trl_len);
    if (rc >= 0)
        rc = b2_fio_sync(s);
    if (rc >= 0) /* the commit point */
        rc = b2_fio_write(s, 0, hdr, (size_t)s->head.h.header_len);
    if (rc >= 0)
        rc = b2_fio_sync(s);
    if (rc >= 0)
        rc = b2_fio_truncate(s, s->head.h.frame_len);
    free(idx);
    free(trl);
    free(hdr);
    if (rc >= 0)
        (void)b2_frame_maybe_compact(s); /* best effort: the operation itself is committed */
    return rc;
}

/* ---- chunk bookkeeping ---- */

static int index_reserve(b2_schunk *s, int64_t n)
{
    if (n > FRAME_MAX_NCHUNKS)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    if (n <= s->ix.cap)
        return B2_OK;
    int64_t cap = s->ix.cap ? s->ix.cap * 2 : 16;
    if (cap < n)
        cap = n;
    int64_t *p = realloc(s->ix.entries, (size_t)cap * sizeof *p);
    if (!p)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    s->ix.entries = p;
    s->ix.cap = cap;
    return B2_OK;
}

/* Check a caller's chunk and learn its header. */
static int accept_chunk(b2_schunk *s, const void *chunk, int32_t cbytes, b2_chunk_info *info)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(!chunk || cbytes < B2_MIN_HEADER_LEN, B2_ERR_INVALID_PARAM,
               "chunk %p of %d bytes", chunk, (int)cbytes);
    int rc = b2_chunk_get_info(chunk, (size_t)cbytes, info);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(info->cbytes != cbytes || info->lazy || info->nbytes <= 0, B2_ERR_INVALID_PARAM,
               "chunk of %d bytes says cbytes %d, nbytes %d%s", (int)cbytes, (int)info->cbytes,
               (int)info->nbytes, info->lazy ? ", lazy" : "");
    /* a frame may not mix VL-block and regular chunks */
    B2_FAIL_IF(s->ix.nchunks > 0 && info->vlblocks != ((s->head.h.general_flags & 0x80) != 0),
               B2_ERR_INVALID_PARAM, "%s chunk into a frame of %s chunks",
               info->vlblocks ? "VL-block" : "regular", info->vlblocks ? "regular" : "VL-block");
    return B2_OK;
}

/* Store chunk bytes for a new index entry (regular chunks only): s's placement. */
static int store_chunk(b2_schunk *s, const void *chunk, int32_t cbytes, int64_t *entry)
{
    return s->io.place->put(s, chunk, cbytes, entry);
}

/* Contiguous frames: at the frame's tail (frame_place.h). */
int b2_frame_put_section(b2_schunk *s, const void *chunk, int32_t cbytes, int64_t *entry)
{
    int64_t pos = frame_tail(s);
    int rc = b2_fio_write(s, pos, chunk, (size_t)cbytes);
    if (rc < 0)
        return rc;
    if (frame_crash_safe(s))
        s->count.dead_bytes += pos - (s->head.h.header_len + s->head.h.cbytes);
    *entry = pos - s->head.h.header_len;
    s->head.h.cbytes = *entry + cbytes;
    return B2_OK;
}

static int is_index_special(int special)
{
    return special == B2_SPECIAL_ZEROS || special == B2_SPECIAL_NAN ||
           special == B2_SPECIAL_UNINIT;
}

int b2_frame_stored_cbytes(b2_schunk *s, int64_t i)
{
    const uint8_t *p;
    int32_t cb;
    frame_rd *r = b2_frame_rd_get(s);
    int rc = r ? b2_schunk_chunk_ptr(s, r, i, &p, &cb) : B2_ERR_NOMEM;
    b2_frame_rd_put(s, r);
    return rc < 0 ? rc : cb;
}

/* Whether totals after a change are ones the reader accepts for nchunks chunks
 * (frame_load.c: nbytes 0 means no chunk; with a fixed chunk size the count
 * follows from nbytes). They always are for frames this library wrote, but a
 * damaged frame opens with a header total that disagrees with its chunks' sizes,
 * and changing it must not write a frame that no longer opens or opens with
 * other chunks. */
static int check_totals(int64_t nchunks, int64_t nbytes, int32_t cs)
{
    B2_FAIL_IF(nbytes < 0 || (nbytes == 0) != (nchunks == 0) ||
                   (cs > 0 && nbytes > 0 && (nbytes - 1) / cs + 1 != nchunks),
               B2_ERR_CORRUPT, "the frame's nbytes disagree with its chunks: %lld chunks "
               "would hold %lld bytes (chunk size %d)", (long long)nchunks, (long long)nbytes,
               (int)cs);
    return B2_OK;
}

/* Special index entries need a fixed chunk size to be read back; when the chunk
 * size is about to become variable, store them as real (32-byte) special chunks.
 * The reference leaves them as entries, producing frames it cannot read. */
static int materialize_specials(b2_schunk *s)
{
    for (int64_t i = 0; i < s->ix.nchunks; i++) {
        int sp = b2_frame_index_special(s->ix.entries[i]);
        if (sp <= 0)
            continue;
        uint8_t c[B2_HEADER_LEN];
        int32_t nb = b2_schunk_special_nbytes(s, i);
        int32_t ts = s->head.h.typesize > B2_MAX_TYPESIZE ? 1 : s->head.h.typesize;
        int rc = nb < 0 ? nb : b2_chunk_make_special(sp, ts, nb, NULL, c, sizeof c);
        int32_t len = rc;
        if (rc >= 0)
            rc = store_chunk(s, c, len, &s->ix.entries[i]);
        if (rc >= 0)
            rc = b2_frame_sums_put(s, i, 0, c, len);
        if (rc < 0)
            return rc;
    }
    return B2_OK;
}

int64_t b2_schunk_insert_chunk_body(b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes)
{
    b2_chunk_info info;
    int rc = accept_chunk(s, chunk, cbytes, &info);
    if (rc < 0)
        return rc;
    if (pos < 0 || pos > s->ix.nchunks)
        return B2_FAIL_CODE(B2_ERR_RANGE);
    if ((rc = b2_frame_index_materialize(s)) < 0)
        return rc;
    rc = index_reserve(s, s->ix.nchunks + 1);
    if (rc < 0)
        return rc;
    /* chunksize rules of the reference (doc/format/frame.md §2.1) */
    int32_t cs = s->head.h.chunksize, nb = info.nbytes;
    if (s->ix.nchunks == 0) {
        cs = nb;
    } else if (cs > 0) {
        int64_t last = s->head.h.nbytes - (s->ix.nchunks - 1) * (int64_t)cs;
        if (last < cs || nb > cs || (pos != s->ix.nchunks && nb != cs))
            cs = 0;
    }
    if ((rc = check_totals(s->ix.nchunks + 1, s->head.h.nbytes + nb, cs)) < 0)
        return rc;
    if (cs == 0 && s->head.h.chunksize > 0 && (rc = materialize_specials(s)) < 0)
        return rc;
    int64_t entry;
    if (is_index_special(info.special) && cs > 0)
        entry = FRAME_IDX_SPECIAL(info.special);
    else if ((rc = store_chunk(s, chunk, cbytes, &entry)) < 0)
        return rc;
    memmove(s->ix.entries + pos + 1, s->ix.entries + pos, (size_t)(s->ix.nchunks - pos) * sizeof *s->ix.entries);
    s->ix.entries[pos] = entry;
    s->ix.nchunks++;
    if ((rc = b2_frame_sums_put(s, pos, 1, entry < 0 ? NULL : chunk, cbytes)) < 0) {
        /* the handle's state is ahead of its storage, as after a failed commit */
        s->io.writable = 0;
        return rc;
    }
    s->head.h.nbytes += nb;
    s->head.h.chunksize = cs;
    if (info.vlblocks)
        s->head.h.general_flags |= 0x80;
    if (s->io.defer_commit && frame_crash_safe(s)) {
        /* the chunk went past the committed frame's end, which stays as it was */
        s->io.commit_pending = 1;
        return s->ix.nchunks;
    }
    rc = b2_frame_commit(s, 0);
    return rc < 0 ? rc : s->ix.nchunks;
}

int64_t b2_schunk_append_chunk_body(b2_schunk *s, const void *chunk, int32_t cbytes)
{
    return b2_schunk_insert_chunk_body(s, s->ix.nchunks, chunk, cbytes);
}

int64_t b2_schunk_append_buffer_body(b2_schunk *s, const void *src, int32_t nbytes)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    /* with a prefilter, src is only its input and may be absent */
    B2_FAIL_IF(nbytes <= 0 || (!src && !s->codec.pre), B2_ERR_INVALID_PARAM, "buffer %p of %d bytes",
               src, (int)nbytes);
    if (!s->codec.cctx && !(s->codec.cctx = b2_cctx_new(&s->codec.cparams))) {
        int rc = b2_cparams_check(&s->codec.cparams);
        return rc < 0 ? rc : B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    b2_cctx_set_prefilter(s->codec.cctx, s->codec.pre, s->codec.pre_user);
    b2_cctx_set_nchunk(s->codec.cctx, s->ix.nchunks);
    size_t cap = b2_chunk_compress_bound((size_t)nbytes);
    if (cap > s->codec.cbuf_cap) {
        uint8_t *nb = realloc(s->codec.cbuf, cap);
        if (!nb)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        s->codec.cbuf = nb;
        s->codec.cbuf_cap = cap;
    }
    int64_t rc = b2_chunk_compress(s->codec.cctx, src, (size_t)nbytes, s->codec.cbuf, cap);
    if (rc >= 0)
        rc = b2_schunk_append_chunk_body(s, s->codec.cbuf, (int32_t)rc);
    return rc;
}

/* Memory frames: move the chunks-section bytes after old chunk [e, e+oldc) by
 * delta and fix every index entry behind it (the reference's compaction). */
static int shift_section(b2_schunk *s, int64_t e, int32_t oldc, int64_t delta)
{
    int64_t from = s->head.h.header_len + e + oldc, n = s->head.h.cbytes - e - oldc;
    if (delta > 0) {
        uint8_t z = 0; /* grow the buffer first */
        int rc = b2_fio_write(s, from + delta + n - 1, &z, 1);
        if (rc < 0)
            return rc;
    }
    size_t len;
    const uint8_t *base = b2_fio_map(s, &len);
    B2_FAIL_IF(!base || (uint64_t)(from + n) > len, B2_ERR_CORRUPT,
               "chunks section past the %zu-byte buffer", len);
    /* a move inside the buffer, which has its final size already */
    int rc = b2_fio_write(s, from + delta, base + from, (size_t)n);
    if (rc < 0)
        return rc;
    for (int64_t i = 0; i < s->ix.nchunks; i++)
        if (s->ix.entries[i] > e)
            s->ix.entries[i] += delta;
    s->head.h.cbytes += delta;
    return B2_OK;
}

int b2_frame_update_stage(b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes,
                          int64_t *old_entry)
{
    b2_chunk_info info;
    int rc = accept_chunk(s, chunk, cbytes, &info);
    if (rc < 0)
        return rc;
    if (pos < 0 || pos >= s->ix.nchunks)
        return B2_FAIL_CODE(B2_ERR_RANGE);
    if ((rc = b2_frame_index_materialize(s)) < 0)
        return rc;
    int old_nb = b2_schunk_chunk_nbytes_body(s, pos);
    if (old_nb < 0)
        return old_nb;
    int32_t cs = s->head.h.chunksize, nb = info.nbytes;
    if (cs > 0 && (nb > cs || (pos != s->ix.nchunks - 1 && nb != cs)))
        cs = 0;
    if ((rc = check_totals(s->ix.nchunks, s->head.h.nbytes - old_nb + nb, cs)) < 0)
        return rc;
    if (cs == 0 && s->head.h.chunksize > 0 && (rc = materialize_specials(s)) < 0)
        return rc;
    int64_t old = s->ix.entries[pos], entry;
    int new_special = is_index_special(info.special) && cs > 0;
    int oldc = old >= 0 ? b2_frame_stored_cbytes(s, pos) : 0;
    if (oldc < 0)
        return oldc;
    if (s->io.place->in_place && old >= 0) {
        /* compaction: the new chunk takes the old one's place, or its bytes vanish */
        int64_t delta = (new_special ? 0 : cbytes) - (int64_t)oldc;
        rc = shift_section(s, old, oldc, delta);
        if (rc >= 0 && !new_special)
            rc = b2_fio_write(s, s->head.h.header_len + old, chunk, (size_t)cbytes);
        if (rc < 0)
            return rc;
        entry = new_special ? FRAME_IDX_SPECIAL(info.special) : old;
    } else if (new_special) {
        entry = FRAME_IDX_SPECIAL(info.special);
    } else if ((rc = store_chunk(s, chunk, cbytes, &entry)) < 0) {
        return rc;
    }
    s->ix.entries[pos] = entry;
    if ((rc = b2_frame_sums_put(s, pos, 0, entry < 0 ? NULL : chunk, cbytes)) < 0)
        return rc; /* cannot happen: no new entry */
    if (old >= 0 && (rc = s->io.place->drop(s, pos, oldc)) < 0)
        return rc; /* cannot happen: oldc is known */
    s->head.h.nbytes += nb - old_nb;
    s->head.h.chunksize = cs;
    *old_entry = old;
    return B2_OK;
}

int64_t b2_schunk_update_chunk_body(b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes)
{
    int64_t old;
    int rc = b2_frame_update_stage(s, pos, chunk, cbytes, &old);
    if (rc < 0)
        return rc;
    rc = b2_frame_commit(s, 0);
    if (rc >= 0 && old >= 0)
        rc = s->io.place->after_commit(s, old); /* only after the new index is committed */
    return rc < 0 ? rc : s->ix.nchunks;
}

int64_t b2_schunk_delete_chunk_body(b2_schunk *s, int64_t pos)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(pos < 0 || pos >= s->ix.nchunks, B2_ERR_RANGE, "chunk %lld of %lld", (long long)pos,
               (long long)s->ix.nchunks);
    int nb = b2_frame_index_materialize(s);
    if (nb < 0)
        return nb;
    nb = b2_schunk_chunk_nbytes_body(s, pos);
    if (nb < 0)
        return nb;
    int tc = check_totals(s->ix.nchunks - 1, s->head.h.nbytes - nb, s->head.h.chunksize);
    if (tc < 0)
        return tc;
    int64_t old = s->ix.entries[pos];
    if (old >= 0 && (tc = s->io.place->drop(s, pos, -1)) < 0)
        return tc;
    memmove(s->ix.entries + pos, s->ix.entries + pos + 1, (size_t)(s->ix.nchunks - pos - 1) * sizeof *s->ix.entries);
    s->ix.nchunks--;
    b2_frame_sums_delete(s, pos);
    s->head.h.nbytes -= nb;
    int rc = b2_frame_commit(s, 0);
    if (rc >= 0 && old >= 0)
        rc = s->io.place->after_commit(s, old);
    return rc < 0 ? rc : s->ix.nchunks;
}

int64_t b2_schunk_reorder_body(b2_schunk *s, const int64_t *order)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(!order && s->ix.nchunks, B2_ERR_INVALID_PARAM, "order is NULL");
    int64_t n = s->ix.nchunks;
    if (b2_frame_index_materialize(s) < 0)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    uint8_t *seen = calloc((size_t)(n ? n : 1), 1);
    int rc = idx && seen ? B2_OK : B2_FAIL_CODE(B2_ERR_NOMEM);
    for (int64_t i = 0; rc >= 0 && i < n; i++) {
        if (order[i] < 0 || order[i] >= n || seen[order[i]])
            rc = B2_FAIL(B2_ERR_INVALID_PARAM, "order[%lld] = %lld is not a new index < %lld",
                         (long long)i, (long long)order[i], (long long)n);
        else {
            seen[order[i]] = 1;
            idx[i] = s->ix.entries[order[i]];
        }
    }
    /* A short last chunk moved elsewhere makes the chunk size variable, and
     * special index entries then need real chunks (as an insert does). */
    int32_t cs = s->head.h.chunksize;
    if (rc >= 0 && cs > 0 && n > 0 && order[n - 1] != n - 1 &&
        s->head.h.nbytes - (n - 1) * (int64_t)cs < cs) {
        cs = 0;
        if ((rc = materialize_specials(s)) >= 0)
            for (int64_t i = 0; i < n; i++)
                idx[i] = s->ix.entries[order[i]]; /* the entries materialize_specials wrote */
    }
    if (rc >= 0 && (rc = b2_frame_sums_reorder(s, order)) >= 0) {
        memcpy(s->ix.entries, idx, (size_t)n * sizeof *idx);
        s->head.h.chunksize = cs;
        rc = b2_frame_commit(s, 0);
    }
    free(idx);
    free(seen);
    return rc < 0 ? rc : n;
}

int64_t b2_schunk_fill_special_body(b2_schunk *s, int64_t nitems, int special, int32_t chunksize)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(!is_index_special(special) || nitems < 0 || chunksize <= 0, B2_ERR_INVALID_PARAM,
               "special %d, nitems %lld, chunksize %d", special, (long long)nitems, (int)chunksize);
    /* only on an empty super-chunk, like the reference */
    B2_FAIL_IF(s->ix.nchunks || s->head.h.nbytes, B2_ERR_INVALID_PARAM,
               "super-chunk already holds %lld chunks", (long long)s->ix.nchunks);
    int64_t ts = s->head.h.typesize;
    B2_FAIL_IF(nitems > INT64_MAX / ts || chunksize % ts, B2_ERR_INVALID_PARAM,
               "chunksize %d for typesize %d (nitems %lld)", (int)chunksize, (int)ts,
               (long long)nitems);
    B2_FAIL_IF(special == B2_SPECIAL_NAN && ts != 4 && ts != 8, B2_ERR_INVALID_PARAM,
               "NaN special with typesize %d", (int)ts);
    int64_t nbytes = nitems * ts, n = nbytes ? (nbytes - 1) / chunksize + 1 : 0;
    if (n > FRAME_MAX_NCHUNKS)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    /* a uniform index: nothing to expand until a chunk changes */
    free(s->ix.entries);
    s->ix.entries = NULL;
    s->ix.cap = 0;
    s->ix.uniform = FRAME_IDX_SPECIAL(special);
    s->ix.nchunks = n;
    s->head.h.nbytes = nbytes;
    s->head.h.chunksize = chunksize;
    /* The reference records the block size its context picked for one chunk. */
    int32_t bs = b2_chunk_blocksize_for(&s->codec.cparams, chunksize);
    if (bs > 0)
        s->head.h.blocksize = bs;
    int rc = b2_frame_sums_reset(s);
    if (rc >= 0)
        rc = b2_frame_commit(s, 1);
    return rc < 0 ? rc : n;
}

/* ---- serializing ---- */

/* A contiguous copy of a sparse frame: chunks laid out in index order. */
static int sparse_to_buffer(b2_schunk *s, uint8_t **out, size_t *len)
{
    int rc0 = b2_frame_index_materialize(s);
    if (rc0 < 0)
        return rc0;
    b2_schunk tmp = *s; /* shallow: same metalayers, new index and header */
    tmp.ix.entries = malloc((size_t)(s->ix.nchunks ? s->ix.nchunks : 1) * sizeof *tmp.ix.entries);
    if (!tmp.ix.entries)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int64_t total = 0;
    int rc = B2_OK;
    for (int64_t i = 0; i < s->ix.nchunks && rc >= 0; i++) {
        if (s->ix.entries[i] < 0) {
            tmp.ix.entries[i] = s->ix.entries[i];
            continue;
        }
        tmp.ix.entries[i] = total;
        rc = b2_frame_stored_cbytes(s, i);
        total += rc;
    }
    uint8_t *idx = NULL, *trl = NULL, *buf = NULL;
    int32_t idx_len;
    int64_t trl_len;
    if (rc >= 0)
        rc = b2_frame_build_meta_parts(&tmp, 0, &idx, &idx_len, &trl, &trl_len);
    if (rc >= 0) {
        tmp.head.h.frame_type = FRAME_TYPE_CONTIGUOUS;
        tmp.head.h.cbytes = total;
        tmp.head.h.frame_len = tmp.head.h.header_len + total + idx_len + trl_len;
        buf = malloc((size_t)tmp.head.h.frame_len);
        rc = buf ? b2_frame_header_write(&tmp.head.h, s->head.meta, s->head.nmeta, buf) : B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    frame_rd *r = rc >= 0 ? b2_frame_rd_get(s) : NULL;
    if (rc >= 0 && !r)
        rc = B2_ERR_NOMEM;
    for (int64_t i = 0; i < s->ix.nchunks && rc >= 0; i++) {
        const uint8_t *p;
        int32_t cb;
        if (s->ix.entries[i] < 0)
            continue;
        rc = b2_schunk_chunk_ptr(s, r, i, &p, &cb);
        if (rc >= 0)
            memcpy(buf + tmp.head.h.header_len + tmp.ix.entries[i], p, (size_t)cb);
    }
    b2_frame_rd_put(s, r);
    if (rc >= 0) {
        if (idx_len)
            memcpy(buf + tmp.head.h.header_len + total, idx, (size_t)idx_len);
        memcpy(buf + tmp.head.h.header_len + total + idx_len, trl, (size_t)trl_len);
        *out = buf;
        *len = (size_t)tmp.head.h.frame_len;
        buf = NULL;
    }
    free(buf);
    free(idx);
    free(trl);
    free(tmp.ix.entries);
    return rc < 0 ? rc : B2_OK;
}

int b2_schunk_to_buffer_body(b2_schunk *s, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    /* deferred appends belong to the frame this handle shows: commit them first */
    int rc0 = s->io.commit_pending ? b2_frame_commit(s, 0) : B2_OK;
    if (rc0 < 0)
        return rc0;
    if (s->io.place->chunk_files)
        return sparse_to_buffer(s, out, len);
    uint8_t *buf = malloc((size_t)s->head.h.frame_len);
    if (!buf)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int rc = b2_fio_read(s, 0, buf, (size_t)s->head.h.frame_len);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = (size_t)s->head.h.frame_len;
    return B2_OK;
}

int b2_schunk_set_defer_commit(b2_schunk *s, int defer)
{
    if (!s)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "schunk is NULL");
    s->io.defer_commit = defer != 0;
    if (!defer && s->io.commit_pending)
        return b2_frame_commit(s, 0);
    return B2_OK;
}
