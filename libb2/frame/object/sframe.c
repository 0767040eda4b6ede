/* SPDX-License-Identifier: BSD-3-Clause */
/* Sparse frames (doc/format/sframe.md): a directory holding chunks.b2frame (header, index of
 * chunk ids, trailer) and one %08X.chunk file per stored chunk. New chunks always
 * get a fresh id and chunks.b2frame is replaced atomically, so a crash leaves the
 * old or the new super-chunk; files no longer referenced are removed only after
 * the new index is in place.
 *
 * Ids are never reused. A reader that loaded an older index may still open the
 * files it names; a removed chunk's file is then missing (a clean error), but
 * if its id had gone to a new chunk the reader would take that chunk for the
 * old one. A new id is therefore above every id in the index and every chunk
 * file in the directory, and the file of the highest id ever used is not
 * removed with its chunk but kept, unreferenced, so that later writers see it,
 * until a higher id is committed. */
#include <stdio.h>
#include <string.h>

#include "frame_internal.h"

/* A read-only store of chunk file id, checked to hold a chunk's worth of bytes. */
static int open_chunk(b2_schunk *s, int64_t id, frame_store **chunk, int64_t *size)
{
    int rc = s->io.store->chunks->chunk_open(s->io.store, id, chunk);
    if (rc < 0)
        return rc;
    rc = (*chunk)->ops->length(*chunk, size);
    if (rc >= 0 && (*size < B2_MIN_HEADER_LEN || *size > INT32_MAX))
        rc = B2_FAIL(B2_ERR_CORRUPT, "%s: %lld bytes is no chunk", (*chunk)->name,
                     (long long)*size);
    if (rc < 0) {
        b2_store_free(*chunk);
        *chunk = NULL;
    }
    return rc;
}

int b2_sframe_read_chunk(b2_schunk *s, frame_rd *r, int64_t id, int32_t *size)
{
    frame_store *c;
    int64_t n = 0;
    int rc = open_chunk(s, id, &c, &n);
    if (rc < 0)
        return rc;
    rc = b2_frame_rd_scratch(r, (size_t)n);
    if (rc >= 0)
        rc = c->ops->read(c, 0, r->scratch, (size_t)n);
    b2_store_free(c);
    if (rc < 0)
        return rc;
    b2_fio_count(s, n);
    *size = (int32_t)n;
    return B2_OK;
}

int b2_sframe_read_header(b2_schunk *s, int64_t id, uint8_t *hdr, int32_t *size)
{
    frame_store *c;
    int64_t n = 0;
    int rc = open_chunk(s, id, &c, &n);
    if (rc < 0)
        return rc;
    size_t want = n < B2_HEADER_LEN ? (size_t)n : B2_HEADER_LEN;
    memset(hdr, 0, B2_HEADER_LEN);
    rc = c->ops->read(c, 0, hdr, want);
    b2_store_free(c);
    if (rc < 0)
        return rc;
    b2_fio_count(s, (int64_t)want);
    *size = (int32_t)n;
    return B2_OK;
}

int b2_sframe_open_chunk(b2_schunk *s, int64_t id, frame_store **chunk, int64_t *size)
{
    return open_chunk(s, id, chunk, size);
}

int b2_sframe_write_chunk(b2_schunk *s, int64_t id, const uint8_t *chunk, int32_t len)
{
    int rc = s->io.store->chunks->chunk_write(s->io.store, id, chunk, (size_t)len, !s->io.nosync);
    if (rc < 0)
        s->io.writable = 0;
    return rc;
}

/* Learn the highest id in use: in the index or as a file in the directory (a
 * kept file, or one a crashed writer left). Once per handle. */
static int scan_ids(b2_schunk *s)
{
    if (s->io.sparse_next_id > 0)
        return B2_OK;
    int64_t top = -1, top_index, top_file;
    for (int64_t i = 0; i < s->ix.nchunks; i++)
        if (frame_entry(s, i) > top)
            top = frame_entry(s, i);
    top_index = top;
    int rc = s->io.store->chunks->chunk_top_id(s->io.store, &top_file);
    if (rc < 0)
        return rc;
    if (top_file > top)
        top = top_file;
    s->io.sparse_next_id = top + 1;
    s->io.sparse_marker_id = top > top_index ? top : -1;
    return B2_OK;
}

int b2_sframe_new_id(b2_schunk *s, int64_t *id)
{
    int rc = scan_ids(s);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(s->io.sparse_next_id > (int64_t)UINT32_MAX, B2_ERR_DOES_NOT_FIT,
               "chunk file ids of %s are used up", s->io.path);
    *id = s->io.sparse_next_id++;
    return B2_OK;
}

/* Remove the kept file once a higher id is committed (best effort: it is only
 * garbage now). */
static void drop_marker(b2_schunk *s)
{
    if (s->io.sparse_next_id > 0 && s->io.sparse_marker_id >= 0 &&
        s->io.sparse_marker_id < s->io.sparse_next_id - 1) {
        (void)s->io.store->chunks->chunk_remove(s->io.store, s->io.sparse_marker_id);
        s->io.sparse_marker_id = -1;
    }
}

int b2_sframe_remove_chunk(b2_schunk *s, int64_t id)
{
    int rc = scan_ids(s);
    if (rc >= 0 && id == s->io.sparse_next_id - 1)
        s->io.sparse_marker_id = id; /* the highest id: keep the file */
    else if (rc >= 0)
        rc = s->io.store->chunks->chunk_remove(s->io.store, id);
    if (rc < 0)
        s->io.writable = 0;
    return rc;
}

int b2_sframe_commit(b2_schunk *s, int runlength_index)
{
    s->head.h.frame_type = FRAME_TYPE_SPARSE;
    int rc = b2_frame_replace_without_chunks(s, runlength_index);
    if (rc >= 0)
        drop_marker(s);
    return rc;
}

int b2_sframe_load(b2_schunk *s)
{
    int64_t len;
    int rc = b2_store_sparse(s->io.path, 0, &s->io.store);
    if (rc >= 0)
        rc = b2_fio_length(s, &len);
    return rc < 0 ? rc : b2_frame_load(s, len);
}
