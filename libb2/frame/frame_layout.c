/* SPDX-License-Identifier: BSD-3-Clause */
/* The parts of a frame written after its chunks, from a handle's state: the
 * index and the trailer, with the header fields they change (header length,
 * general flags, vlmetalayer flag). Commits (schunk_write.c), sparse frames
 * (sframe.c), serialisation and compaction (frame_compact.c) all write them. */
#include <stdlib.h>
#include <string.h>

#include "frame_internal.h"

int b2_frame_build_meta_parts(b2_schunk *s, int runlength_index, uint8_t **idx, int32_t *idx_len,
                           uint8_t **trl, int64_t *trl_len)
{
    *idx = NULL;
    *idx_len = 0;
    /* Chunk offsets count from the end of the header: a header written by another
     * writer with a different size (padding) cannot be rewritten in place. */
    int64_t hl = b2_frame_header_size(s->meta, s->nmeta);
    if (hl != s->h.header_len && s->h.cbytes > 0 && s->storage != B2_STORAGE_SPARSE)
        return B2_FAIL_CODE(B2_ERR_UNSUPPORTED);
    int rc = b2_frame_sums_store(s);
    if (rc >= 0 && s->nchunks > 0)
        rc = b2_frame_index_encode(s->index, s->nchunks, s->index_uniform, &s->cparams, runlength_index,
                                idx, idx_len);
    if (rc >= 0)
        rc = b2_frame_trailer_write(s->vlmeta, s->nvlmeta, trl, trl_len);
    if (rc < 0) {
        free(*idx);
        *idx = NULL;
        return rc;
    }
    s->h.has_vlmeta = s->nvlmeta > 0;
    int vl = (s->h.general_flags & 0x80) != 0;
    s->h.general_flags = b2_frame_general_flags(s->h.chunksize, vl);
    s->h.header_len = (int32_t)hl;
    return B2_OK;
}


int b2_frame_replace_without_chunks(b2_schunk *s, int runlength_index)
{
    uint8_t *idx, *trl, *buf = NULL;
    int32_t idx_len;
    int64_t trl_len;
    int rc = b2_frame_build_meta_parts(s, runlength_index, &idx, &idx_len, &trl, &trl_len);
    if (rc < 0)
        return rc;
    s->h.frame_len = s->h.header_len + idx_len + trl_len;
    buf = malloc((size_t)s->h.frame_len);
    rc = buf ? b2_frame_header_write(&s->h, s->meta, s->nmeta, buf)
             : B2_FAIL(B2_ERR_NOMEM, "frame of %lld bytes", (long long)s->h.frame_len);
    if (rc >= 0) {
        if (idx_len)
            memcpy(buf + s->h.header_len, idx, (size_t)idx_len);
        memcpy(buf + s->h.header_len + idx_len, trl, (size_t)trl_len);
        rc = b2_fio_replace(s, buf, (size_t)s->h.frame_len);
    }
    s->trailer_len = trl_len;
    free(buf);
    free(idx);
    free(trl);
    return rc;
}
