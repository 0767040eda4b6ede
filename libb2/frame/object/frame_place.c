/* SPDX-License-Identifier: BSD-3-Clause */
/* The three chunk placements (frame_place.h): the chunks section in place
 * (memory), past the frame's end (files, user I/O), a file per chunk (sparse). */
#include "frame_internal.h"

/* ---- contiguous frames: chunks in the chunks section (schunk_write.c) ---- */

/* Memory frames: an update's compaction reclaimed the bytes already, and a
 * deleted chunk's stay in the section, as in the reference. */
static int drop_in_place(b2_schunk *s, int64_t pos, int32_t c)
{
    return B2_OK;
}

/* File frames: the bytes stay until a compaction reclaims them (frame_compact.c). */
static int drop_dead(b2_schunk *s, int64_t pos, int32_t c)
{
    if (c < 0 && (c = b2_frame_stored_cbytes(s, pos)) < 0)
        return c;
    s->count.dead_bytes += c;
    return B2_OK;
}

/* Nothing but the index held the entry's bytes. */
static int after_commit_none(b2_schunk *s, int64_t old)
{
    return B2_OK;
}

static int rewrite_section(b2_schunk *s) { return b2_frame_replace_without_chunks(s, 0); }

/* One write of the new bytes (same size) is atomic enough: old or new prefix. */
static int write_meta_section(b2_schunk *s, int64_t pos, const void *content, int32_t len)
{
    int rc = b2_fio_write(s, pos, content, (size_t)len);
    if (rc >= 0)
        rc = b2_fio_sync(s);
    return rc;
}

/* ---- sparse frames: a chunk file per chunk (sframe.c) ---- */

/* New chunk files take fresh ids: a crash never leaves a live one half written. */
static int put_file(b2_schunk *s, const void *chunk, int32_t cbytes, int64_t *entry)
{
    int64_t id;
    int rc = b2_sframe_new_id(s, &id);
    if (rc >= 0)
        rc = b2_sframe_write_chunk(s, id, chunk, cbytes);
    if (rc < 0)
        return rc;
    *entry = id;
    s->head.h.cbytes += cbytes;
    return B2_OK;
}

/* cbytes counts the chunk files the index names. */
static int drop_file(b2_schunk *s, int64_t pos, int32_t c)
{
    if (c < 0 && (c = b2_frame_stored_cbytes(s, pos)) < 0)
        return c;
    s->head.h.cbytes -= c;
    return B2_OK;
}

/* Only once the new index is committed may the old chunk file go. */
static int after_commit_file(b2_schunk *s, int64_t old) { return b2_sframe_remove_chunk(s, old); }

static int rewrite_sparse(b2_schunk *s) { return b2_sframe_commit(s, 0); }

/* The header is in chunks.b2frame, replaced whole. */
static int write_meta_sparse(b2_schunk *s, int64_t pos, const void *content, int32_t len)
{
    return b2_sframe_commit(s, 0);
}

static const frame_place place_memory = {"memory", 1, 0, 0, b2_frame_put_section,
                                         drop_in_place, after_commit_none,
                                         b2_frame_commit_section, rewrite_section,
                                         write_meta_section};
static const frame_place place_file = {"file", 0, 1, 0, b2_frame_put_section, drop_dead,
                                       after_commit_none, b2_frame_commit_section,
                                       rewrite_section, write_meta_section};
static const frame_place place_sparse = {"sparse", 0, 0, 1, put_file, drop_file,
                                         after_commit_file, b2_sframe_commit, rewrite_sparse,
                                         write_meta_sparse};

const frame_place *b2_frame_place_for(int storage)
{
    static const frame_place *const by_storage[] = {
        [B2_STORAGE_MEMORY] = &place_memory,
        [B2_STORAGE_FILE] = &place_file,
        [B2_STORAGE_SPARSE] = &place_sparse,
        [B2_STORAGE_USER] = &place_file, /* written like a frame file */
    };
    return by_storage[storage];
}
