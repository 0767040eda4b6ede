/* SPDX-License-Identifier: BSD-3-Clause */
/* A one-chunk contiguous frame assembled around a chunk already placed in the
 * caller's buffer: what the HDF5 filter stores for every dataset chunk. The
 * chunk is compressed straight to its final place, so neither the chunk nor
 * the frame is copied. The bytes are those of appending the chunk to the empty
 * super-chunk and serialising it (same header, index and trailer code). */
#include <string.h>

#include "frame_internal.h"

int64_t b2_schunk_header_len(const b2_schunk *s)
{
    return s ? b2_frame_header_size(s->head.meta, s->head.nmeta) : B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
}

int64_t b2_schunk_frame_around_chunk(const b2_schunk *s, void *dstv, size_t cap, int32_t cbytes)
{
    uint8_t *dst = dstv;
    if (!s || !dst || s->ix.nchunks != 0 || !s->io.place->in_place)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    int64_t hl = b2_frame_header_size(s->head.meta, s->head.nmeta);
    if (hl < 0)
        return hl;
    if (cbytes < B2_MIN_HEADER_LEN || (uint64_t)hl + (uint64_t)cbytes > cap)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    b2_chunk_info info;
    int rc = b2_chunk_get_info(dst + hl, (size_t)cbytes, &info);
    if (rc < 0)
        return rc;
    if (info.cbytes != cbytes || info.lazy || info.nbytes <= 0)
        return B2_FAIL_CODE(B2_ERR_INVALID_PARAM);
    /* A shallow copy holding the one index entry; it owns nothing. As the first
     * chunk sets the chunksize, zeros/NaN/uninit chunks become index entries
     * with no stored bytes (b2_schunk_insert_chunk's rule). */
    b2_schunk t = *s;
    int special = info.special == B2_SPECIAL_ZEROS || info.special == B2_SPECIAL_NAN ||
                  info.special == B2_SPECIAL_UNINIT;
    int64_t entry = special ? FRAME_IDX_SPECIAL(info.special) : 0;
    t.ix.entries = &entry;
    t.ix.cap = 1;
    t.ix.nchunks = 1;
    t.head.h.nbytes = info.nbytes;
    t.head.h.chunksize = info.nbytes;
    t.head.h.cbytes = special ? 0 : cbytes;
    if (info.vlblocks)
        t.head.h.general_flags |= 0x80;
    uint8_t *idx, *trl;
    int32_t idx_len;
    int64_t trl_len;
    /* a handle that keeps checksums gives the frame the one chunk's */
    int sums = s->check.table && s->check.policy != B2_CHECKSUMS_IGNORE;
    t.check.table = NULL;
    if (sums && (rc = b2_frame_sums_single(&t, special ? NULL : dst + hl, cbytes)) < 0)
        return rc;
    rc = b2_frame_build_meta_parts(&t, 0, &idx, &idx_len, &trl, &trl_len);
    if (sums)
        b2_frame_sums_single_free(&t);
    if (rc < 0)
        return rc;
    int64_t ipos = t.head.h.header_len + t.head.h.cbytes;
    t.head.h.frame_len = ipos + idx_len + trl_len;
    if ((uint64_t)t.head.h.frame_len > cap || t.head.h.header_len != hl) {
        rc = t.head.h.header_len != hl ? B2_ERR_CORRUPT : B2_ERR_DST_TOO_SMALL;
    } else {
        rc = b2_frame_header_write(&t.head.h, t.head.meta, t.head.nmeta, dst);
        if (rc >= 0) {
            memcpy(dst + ipos, idx, (size_t)idx_len);
            memcpy(dst + ipos + idx_len, trl, (size_t)trl_len);
        }
    }
    free(idx);
    free(trl);
    return rc < 0 ? rc : t.head.h.frame_len;
}
