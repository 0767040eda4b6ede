/* SPDX-License-Identifier: BSD-3-Clause */
/* The parts of a frame written after its chunks, from a handle's state: the
 * index and the trailer, with the header fields they change (header length,
 * general flags, vlmetalayer flag). Commits (schunk_write.c), sparse frames
 * (sframe.c), serialisation and compaction (frame_compact.c) all write them.
 * The bytes come from the format module (frame_format.h), given a view of the
 * handle as a frame_layout; what stays here is the handle's side. */
#include <stdlib.h>
#include <string.h>

#include "frame_internal.h"

int b2_frame_index_materialize(b2_schunk *s)
{
    if (s->ix.entries || s->ix.nchunks == 0)
        return B2_OK;
    int rc = FRAME_MEM_CHECK(s, s->ix.nchunks * 8, "the chunk index");
    if (rc < 0)
        return rc;
    int64_t *p = malloc((size_t)s->ix.nchunks * sizeof *p);
    if (!p)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    for (int64_t i = 0; i < s->ix.nchunks; i++)
        p[i] = s->ix.uniform;
    s->ix.entries = p;
    s->ix.cap = s->ix.nchunks;
    return B2_OK;
}

/* The field mapping between the handle and a layout lives here alone: the
 * view below (handle -> layout) and the move after it (layout -> handle). */

/* s as a layout that owns nothing (the contents stay s's). */
static void layout_view(const b2_schunk *s, frame_layout *L)
{
    memset(L, 0, sizeof *L);
    L->h = s->head.h;
    L->nmeta = s->head.nmeta;
    memcpy(L->meta, s->head.meta, sizeof L->meta);
    L->nvlmeta = s->head.nvlmeta;
    L->vlmeta = s->head.vlmeta;
    L->nchunks = s->ix.nchunks;
    L->index = s->ix.entries;
    L->index_uniform = s->ix.uniform;
    L->trailer_len = s->head.trailer_len;
}

void b2_frame_take_layout(b2_schunk *s, frame_layout *L)
{
    s->head.h = L->h;
    memcpy(s->head.meta, L->meta, sizeof s->head.meta);
    s->head.nmeta = L->nmeta;
    s->head.vlmeta = L->vlmeta;
    s->head.nvlmeta = s->head.vlmeta_cap = L->nvlmeta;
    s->ix.entries = L->index;
    s->ix.nchunks = L->nchunks;
    s->ix.uniform = L->index_uniform;
    s->ix.cap = L->nchunks;
    s->head.trailer_len = L->trailer_len;
    memset(L, 0, sizeof *L);
}

int b2_frame_build_meta_parts(b2_schunk *s, int runlength_index, uint8_t **idx, int32_t *idx_len,
                           uint8_t **trl, int64_t *trl_len)
{
    frame_layout L;
    int rc = b2_frame_sums_store(s); /* the checksum table first: a vlmetalayer */
    if (rc < 0)
        return rc;
    layout_view(s, &L);
    rc = b2_frame_layout_parts(&L, &s->codec.cparams, runlength_index,
                                   s->io.place->chunk_files, idx, idx_len, trl, trl_len);
    if (rc >= 0)
        s->head.h = L.h;
    return rc;
}

int b2_frame_replace_without_chunks(b2_schunk *s, int runlength_index)
{
    frame_layout L;
    uint8_t *buf;
    int64_t len;
    int rc = b2_frame_sums_store(s);
    if (rc < 0)
        return rc;
    layout_view(s, &L);
    rc = b2_frame_serialize(&L, &s->codec.cparams, runlength_index, s->io.place->chunk_files,
                                NULL, 0, &buf, &len);
    s->head.h = L.h; /* as the layout left them, also after a failure */
    s->head.trailer_len = L.trailer_len;
    if (rc >= 0)
        rc = b2_fio_replace(s, buf, (size_t)len);
    free(buf);
    return rc;
}
