/* SPDX-License-Identifier: BSD-3-Clause */
/* Compaction of contiguous frames: copy the live chunks in logical order into a
 * fresh frame (memory: a new buffer; file: a temporary file renamed into place,
 * so that a crash leaves the old or the new frame). */
#include <string.h>

#include "frame_internal.h"

#define COMPACT_MIN_DEAD (64 << 10)

/* Write the compacted frame to k; on success s->ix.entries/h describe it. */
static int rewrite(b2_schunk *s, frame_store *k)
{
    int64_t n = s->ix.nchunks, pos = 0;
    int rc0 = b2_frame_index_materialize(s);
    if (rc0 < 0)
        return rc0;
    int64_t *ni = malloc((size_t)(n ? n : 1) * sizeof *ni);
    if (!ni)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    frame_rd *r = b2_frame_rd_get(s); /* file frames read each chunk into its scratch */
    int rc = r ? B2_OK : B2_ERR_NOMEM;
    for (int64_t i = 0; i < n && rc >= 0; i++) {
        if (s->ix.entries[i] < 0) {
            ni[i] = s->ix.entries[i];
            continue;
        }
        const uint8_t *p;
        int32_t cb;
        rc = b2_schunk_chunk_ptr(s, r, i, &p, &cb);
        if (rc >= 0)
            rc = k->ops->write(k, s->head.h.header_len + pos, p, (size_t)cb);
        ni[i] = pos;
        pos += cb;
    }
    b2_frame_rd_put(s, r);
    if (rc < 0) {
        free(ni);
        return rc;
    }
    /* Swap in the new index to serialize it; undo on failure. */
    int64_t *old = s->ix.entries;
    frame_hdr oh = s->head.h;
    s->ix.entries = ni;
    s->head.h.cbytes = pos;
    uint8_t *idx = NULL, *trl = NULL, *hdr = NULL;
    int32_t idx_len = 0;
    int64_t trl_len = 0;
    rc = b2_frame_build_meta_parts(s, 0, &idx, &idx_len, &trl, &trl_len);
    if (rc >= 0) {
        int64_t ipos = s->head.h.header_len + pos;
        s->head.h.frame_len = ipos + idx_len + trl_len;
        hdr = malloc((size_t)s->head.h.header_len);
        rc = hdr ? b2_frame_header_write(&s->head.h, s->head.meta, s->head.nmeta, hdr) : B2_FAIL_CODE(B2_ERR_NOMEM);
        if (rc >= 0 && idx_len)
            rc = k->ops->write(k, ipos, idx, (size_t)idx_len);
        if (rc >= 0)
            rc = k->ops->write(k, ipos + idx_len, trl, (size_t)trl_len);
        if (rc >= 0)
            rc = k->ops->write(k, 0, hdr, (size_t)s->head.h.header_len);
        s->head.trailer_len = rc >= 0 ? trl_len : s->head.trailer_len;
    }
    free(idx);
    free(trl);
    free(hdr);
    if (rc < 0) {
        s->ix.entries = old;
        s->head.h = oh;
        free(ni);
        return rc;
    }
    free(old);
    s->ix.cap = n;
    return B2_OK;
}

int b2_schunk_compact_body(b2_schunk *s)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    if (s->io.place->chunk_files)
        return B2_OK;
    frame_hdr oh = s->head.h;
    if (b2_frame_index_materialize(s) < 0)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int64_t *oidx = malloc((size_t)(s->ix.nchunks ? s->ix.nchunks : 1) * sizeof *oidx);
    if (!oidx)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    if (s->ix.nchunks) /* an empty frame has no index array at all */
        memcpy(oidx, s->ix.entries, (size_t)s->ix.nchunks * sizeof *oidx);
    /* a new frame beside the old one (memory: a new buffer; file: a temporary
     * file), put in its place at once, so that a crash leaves one or the other */
    frame_store *k = NULL;
    int rc = b2_fio_begin_replace(s, &k), rewritten = 0;
    if (rc >= 0)
        rewritten = (rc = rewrite(s, k)) >= 0;
    if (rc >= 0) /* a failure leaves the old frame, which the handle describes again */
        rc = s->io.store->ops->finish_replace(s->io.store, k, !s->io.nosync);
    else if (k)
        b2_fio_abort_replace(s, k);
    if (rc >= 0) {
        s->count.dead_bytes = 0;
        s->io.commit_pending = 0; /* the new frame holds the deferred appends too */
    } else if (rewritten) { /* the old frame is still there: restore its description */
        s->head.h = oh;
        memcpy(s->ix.entries, oidx, (size_t)s->ix.nchunks * sizeof *oidx);
    }
    free(oidx);
    return rc;
}

int b2_frame_maybe_compact(b2_schunk *s)
{
    if (s->io.storage != B2_STORAGE_FILE || !s->io.writable || s->count.dead_bytes < COMPACT_MIN_DEAD ||
        s->count.dead_bytes < s->head.h.frame_len / 2)
        return B2_OK;
    return b2_schunk_compact_body(s);
}

int64_t b2_schunk_dead_bytes(b2_schunk *s)
{
    if (!s)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    if (s->io.place->chunk_files)
        return 0; /* chunk files are removed when no longer referenced */
    int64_t live = 0;
    for (int64_t i = 0; i < s->ix.nchunks; i++) {
        if (frame_entry(s, i) < 0)
            continue; /* special index entries store no bytes */
        int cb = b2_schunk_chunk_cbytes_body(s, i);
        if (cb < 0)
            return cb;
        live += cb;
    }
    return s->head.h.cbytes > live ? s->head.h.cbytes - live : 0;
}
