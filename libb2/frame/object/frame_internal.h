/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal state and helpers of the frame layer (not installed): the
 * super-chunk handle (struct b2_schunk) and the object files' functions. The
 * format itself (frame_hdr, frame_meta, frame_layout, the FRAME_* constants,
 * parsing and serialising) is in frame_format.h, which knows no handle. */
#ifndef B2_FRAME_INTERNAL_H
#define B2_FRAME_INTERNAL_H

#include <msgpack.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "b2_frame_experimental.h"
#include "b2_internal.h"
#include "frame_reader.h"
#include "b2_frame_experimental.h"
#include "frame_store.h"
#include "frame_api.h"
#include "frame_format.h"
#include "frame_place.h"

typedef struct frame_sums frame_sums;

/* Detail of B2_ERR_READ_ONLY: the handle cannot tell which reason applies. */
#define B2_READ_ONLY_WHY \
    "opened without B2_OPEN_WRITE, a frame inside a larger file, or after a failed write"

/* What one read call uses for itself: a decoding context and a buffer for the
 * chunk bytes it reads from disk. A handle keeps the readers it made on a stack
 * (frame_reader.c); a call takes one and gives it back, so threads reading one
 * shared handle never share mutable state. */
struct frame_rd {
    struct frame_rd *next; /* on the handle's stack of idle readers */
    b2_dctx *dctx;         /* made with the handle's threads, registry and geometry */
    uint8_t *scratch;      /* chunk bytes read from a file or a sparse frame */
    size_t scratch_cap;
    int64_t mem_limit;     /* the handle's, when the reader was made */
    uint8_t special[B2_HEADER_LEN]; /* a special index entry rebuilt as a chunk */
};

/* A super-chunk handle, grouped by concern. */
struct b2_schunk {
    b2_errinfo err;   /* last failure of a call on this handle */
    int64_t mem_limit; /* largest allocation the frame's contents may ask for (0: default) */
    /* The frame as loaded or last committed: fixed header, metalayers, trailer. */
    struct {
        frame_hdr h;
        int nmeta;
        frame_meta meta[B2_FRAME_MAX_METALAYERS];
        int nvlmeta;
        frame_meta *vlmeta; /* nvlmeta entries (capacity vlmeta_cap) */
        int vlmeta_cap;
        int64_t trailer_len;
    } head;
    /* The chunk index, decoded. */
    struct {
        int64_t nchunks;
        int64_t *entries; /* capacity cap; NULL while uniform */
        int64_t uniform;  /* every entry, when entries is NULL and nchunks > 0 */
        int64_t cap;
    } ix;
    /* Compressing appended buffers and decoding chunks. */
    struct {
        b2_cparams cparams;
        int nthreads;
        /* append_buffer's encoder and chunk buffer, kept between calls (NULL until used) */
        b2_cctx *cctx;
        uint8_t *cbuf;
        size_t cbuf_cap;
        b2_prefilter_fn pre;   /* b2_schunk_set_prefilter: given to cctx */
        void *pre_user;
        b2_postfilter_fn post; /* b2_schunk_set_postfilter: given to a reader's dctx for chunk reads */
        void *post_user;
    } codec;
    /* Per-chunk checksums (frame_sums.c). */
    struct {
        frame_sums *table; /* NULL: the frame has none */
        int policy;        /* the b2_checksums policy last applied */
        int verify;        /* check chunk bytes against their checksums on reads */
    } check;
    /* Where the bytes live and how they are written. */
    struct {
        int storage;               /* enum b2_frame_storage */
        const frame_place *place;  /* where its chunks go (frame_place.h), for storage */
        frame_store *store;        /* where the frame's bytes live (frame_store.h) */
        char *path;                /* frame file or sparse directory, for messages; NULL in memory */
        int64_t offset;            /* where a file frame starts (b2_schunk_refresh opens it again) */
        int mmap;                  /* the file is mapped (b2_open_options.mmap) */
        int writable;
        int nosync;                /* skip fsync (b2_schunk_set_sync) */
        int defer_commit;          /* file frames: appends commit later (b2_schunk_set_defer_commit) */
        int commit_pending;        /* chunks appended since the last commit */
        /* sparse frames (sframe.c): the next chunk file id (0: not looked up yet)
         * and the unreferenced file kept to carry the highest id (-1: none) */
        int64_t sparse_next_id, sparse_marker_id;
    } io;
    /* Idle readers (frame_rd); the mutex guards the stack only. Shallow copies
     * of a b2_schunk (serializing) never touch either. */
    struct {
        pthread_mutex_t mu;
        frame_rd *idle;
    } readers;
    struct {
        int64_t bytes_read; /* read from file storage (b2_schunk_bytes_read); atomic */
        int64_t dead_bytes; /* unreferenced bytes this handle left in a file frame */
    } count;
};

/* Contiguous frames on durable storage (files, user I/O) never overwrite live
 * bytes: new bytes go past the frame's end and one header write commits them
 * (schunk_write.c). Memory frames follow the reference's in-place layout. */
static inline int frame_crash_safe(const b2_schunk *s)
{
    return s->io.place->crash_safe;
}

/* The bodies of the public functions frame_api.c generates. */
B2_FRAME_HANDLE_API(B2_HANDLE_BODY)

/* b2_mem_check against the handle's limit. */
#define FRAME_MEM_CHECK(s, need, what) \
    b2_mem_check((s)->mem_limit, (need), (what), "b2_open_options.memory_limit")

/* Take the block geometry (cparams and readers) from the "b2nd" metalayer, if any
 * (frame_geometry.c); called whenever the metalayers change. */
B2_HIDDEN int b2_schunk_adopt_geometry(b2_schunk *s);

/* Entry i of the index (uniform indexes, as fill_special writes, are not expanded). */
static inline int64_t frame_entry(const b2_schunk *s, int64_t i)
{
    return s->ix.entries ? s->ix.entries[i] : s->ix.uniform;
}

/* ---- frame_io.c: the handle's I/O through its store ---- */
B2_HIDDEN int b2_fio_read(b2_schunk *s, int64_t pos, void *dst, size_t n);
B2_HIDDEN int b2_fio_write(b2_schunk *s, int64_t pos, const void *src, size_t n);
/* fsync unless the handle skips it (b2_schunk_set_sync). */
B2_HIDDEN int b2_fio_sync(b2_schunk *s);
B2_HIDDEN int b2_fio_truncate(b2_schunk *s, int64_t len);
/* Replace the whole frame: begin gives an empty store to write, finish puts it in
 * place atomically (frees it), abort drops it. */
B2_HIDDEN int b2_fio_begin_replace(b2_schunk *s, frame_store **tmp);
B2_HIDDEN int b2_fio_finish_replace(b2_schunk *s, frame_store *tmp);
B2_HIDDEN void b2_fio_abort_replace(b2_schunk *s, frame_store *tmp);
/* Replace the whole frame with n bytes at data. */
B2_HIDDEN int b2_fio_replace(b2_schunk *s, const uint8_t *data, size_t n);
/* The frame's bytes in place (memory stores), or NULL. */
B2_HIDDEN const uint8_t *b2_fio_map(b2_schunk *s, size_t *len);
/* The bytes the store holds from the frame's start. */
B2_HIDDEN int b2_fio_length(b2_schunk *s, int64_t *len);
/* Count n bytes read from storage (threads may read at once). */
static inline void b2_fio_count(b2_schunk *s, int64_t n)
{
    __atomic_fetch_add(&s->count.bytes_read, n, __ATOMIC_RELAXED);
}

/* ---- frame_reader.c (b2_frame_rd_get, _put, _dctx: frame_reader.h) ---- */
/* Free the idle readers: the next ones are made with s's current threads,
 * registry and geometry. Only while no read runs on s. */
B2_HIDDEN void b2_frame_rd_drop(b2_schunk *s);
/* Ensure r->scratch holds n bytes. */
B2_HIDDEN int b2_frame_rd_scratch(frame_rd *r, size_t n);

/* ---- frame_load.c ---- */
/* Read header, metalayers, trailer and index of the frame in s's storage of total
 * length avail (exact for memory, an upper bound for files), checked piece by
 * piece by the format module, into s. */
B2_HIDDEN int b2_frame_load(b2_schunk *s, int64_t avail);
/* schunk_open.c: allocate an empty b2_schunk with defaults. */
B2_HIDDEN b2_schunk *b2_schunk_alloc(const b2_cparams *cp);

/* ---- schunk_write.c ---- */
/* Rewrite index + trailer (+ header) after an index change; see the file for the layout. */
B2_HIDDEN int b2_frame_commit(b2_schunk *s, int runlength_index);
/* The contiguous placements' commit, and their put: chunk bytes in the chunks
 * section (frame_place.h). */
B2_HIDDEN int b2_frame_commit_section(b2_schunk *s, int runlength_index);
B2_HIDDEN int b2_frame_put_section(b2_schunk *s, const void *chunk, int32_t cbytes,
                                   int64_t *entry);
/* Stored size of regular chunk i (contiguous: its header cbytes; sparse: file size). */
B2_HIDDEN int b2_frame_stored_cbytes(b2_schunk *s, int64_t i);

/* Replace chunk pos with a ready chunk as b2_schunk_update_chunk does, without
 * committing: the caller commits once for several (b2_schunk_set_items), then
 * removes a sparse frame's old chunk file *old_entry (when >= 0). */
B2_HIDDEN int b2_frame_update_stage(b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes,
                                    int64_t *old_entry);

/* ---- frame_compact.c ---- */
/* Rewrite a file frame when dead space dominates (called after commits). */
B2_HIDDEN int b2_frame_maybe_compact(b2_schunk *s);

/* ---- sframe.c ---- */
/* Read chunk file id of a sparse frame into r->scratch; returns its size. */
B2_HIDDEN int b2_sframe_read_chunk(b2_schunk *s, frame_rd *r, int64_t id, int32_t *size);
/* Read only the header of chunk file id (B2_HEADER_LEN bytes, zero-padded if the
 * file is shorter) and give the file's size. */
B2_HIDDEN int b2_sframe_read_header(b2_schunk *s, int64_t id, uint8_t *hdr, int32_t *size);
/* A read-only store of chunk file id, and its size (checked to fit a chunk). */
B2_HIDDEN int b2_sframe_open_chunk(b2_schunk *s, int64_t id, frame_store **chunk, int64_t *size);
/* Write a chunk file (fsync'ed). */
B2_HIDDEN int b2_sframe_write_chunk(b2_schunk *s, int64_t id, const uint8_t *chunk, int32_t len);
/* A fresh chunk file id: above every id the index or the directory holds. */
B2_HIDDEN int b2_sframe_new_id(b2_schunk *s, int64_t *id);
/* Remove a chunk file the committed index no longer names (the file of the
 * highest id stays, unreferenced, until a higher id is committed). */
B2_HIDDEN int b2_sframe_remove_chunk(b2_schunk *s, int64_t id);
/* Write chunks.b2frame atomically from the in-memory state. */
B2_HIDDEN int b2_sframe_commit(b2_schunk *s, int runlength_index);
/* Load a sparse frame directory. */
B2_HIDDEN int b2_sframe_load(b2_schunk *s);
/* frame_layout.c: s takes what a parsed layout owns (L is left empty). */
B2_HIDDEN void b2_frame_take_layout(b2_schunk *s, frame_layout *L);
/* frame_layout.c: expand a uniform index into s->ix.entries before it is modified. */
B2_HIDDEN int b2_frame_index_materialize(b2_schunk *s);
/* frame_layout.c: serialize header + index + trailer of s (frame_type as in s->head.h)
 * with the chunks section [0, cbytes_section) supplied by the caller; used by
 * commits, sframe and to_buffer. */
B2_HIDDEN int b2_frame_build_meta_parts(b2_schunk *s, int runlength_index, uint8_t **idx,
                                     int32_t *idx_len, uint8_t **trl, int64_t *trl_len);

/* frame_layout.c: replace the whole frame with header, index and trailer alone,
 * for frames whose chunks live elsewhere (sparse) or that hold none. */
B2_HIDDEN int b2_frame_replace_without_chunks(b2_schunk *s, int runlength_index);

/* ---- frame_vlmeta.c: vlmetalayers held by the handle ---- */
/* Index of vlmetalayer name, or B2_ERR_NOT_FOUND (not recorded as an error). */
B2_HIDDEN int b2_frame_vlmeta_find(const b2_schunk *s, const char *name);
/* Add or replace vlmetalayer name with content compressed (fast: lz4 clevel 1
 * rather than the reference's defaults), or delete it (content NULL); no commit.
 * Returns its index (B2_OK when deleted) or an error. */
B2_HIDDEN int b2_frame_vlmeta_put(b2_schunk *s, const char *name, const void *content, int32_t len,
                                  int fast);
/* Decompressed copy (malloc'ed) of vlmetalayer i and its length. */
B2_HIDDEN int b2_frame_vlmeta_decode(b2_schunk *s, int i, uint8_t **content, int32_t *len);

/* ---- frame_sums.c: per-chunk checksums (doc/format/checksums.md) ---- */
#define B2_FRAME_SUMS_NAME "b2.checksums"
/* After a load: read the frame's checksum table, if any, under a b2_checksums policy. */
B2_HIDDEN int b2_frame_sums_load(b2_schunk *s, int policy);
B2_HIDDEN void b2_frame_sums_free(frame_sums *t);
/* Writes call these once the index holds the change (no-ops without a table):
 * the chunk now at pos (inserted there, or replacing) is chunk (cbytes stored
 * bytes), or NULL for a special index entry; */
B2_HIDDEN int b2_frame_sums_put(b2_schunk *s, int64_t pos, int insert, const uint8_t *chunk,
                                int32_t cbytes);
/* the chunk at pos is gone; */
B2_HIDDEN void b2_frame_sums_delete(b2_schunk *s, int64_t pos);
/* chunk i is now old chunk order[i]; */
B2_HIDDEN int b2_frame_sums_reorder(b2_schunk *s, const int64_t *order);
/* every chunk is a new special entry (fill_special). */
B2_HIDDEN int b2_frame_sums_reset(b2_schunk *s);
/* Empty bookkeeping for s's chunks (none covered). */
B2_HIDDEN int b2_frame_sums_new(b2_schunk *s);
/* Apply a b2_checksums policy to the bookkeeping: returns 0, or 1 when the caller
 * must commit, 3 when it must hash the chunks not covered (then commit). */
B2_HIDDEN int b2_frame_sums_apply(b2_schunk *s, int policy);
/* Whether chunk i's entry describes its bytes. */
B2_HIDDEN int b2_frame_sums_covered(const b2_schunk *s, int64_t i);
/* Give t, a shallow copy of a handle holding one chunk (chunk, cbytes stored
 * bytes; NULL for a special entry), a table and vlmetalayer array of its own;
 * b2_frame_sums_single_free frees them. */
B2_HIDDEN int b2_frame_sums_single(b2_schunk *t, const uint8_t *chunk, int32_t cbytes);
B2_HIDDEN void b2_frame_sums_single_free(b2_schunk *t);
/* Put the table in its vlmetalayer when the handle keeps it (before a commit). */
B2_HIDDEN int b2_frame_sums_store(b2_schunk *s);
/* Check chunk i's stored bytes (NULL for a special entry): a b2_checksum_state
 * or B2_ERR_CHECKSUM. */
B2_HIDDEN int b2_frame_sums_check(b2_schunk *s, int64_t i, const uint8_t *chunk, int32_t cbytes);

/* ---- schunk.c ---- */
/* b2_schunk_chunk_ptr without the checksum check of verifying handles. */
B2_HIDDEN int b2_schunk_chunk_bytes(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **p,
                                   int32_t *cbytes);
/* Get a pointer to the bytes of regular chunk i (memory: in place; disk: r's
 * scratch, so r may be NULL for memory storage only), checked against its
 * checksum when the handle verifies. */
B2_HIDDEN int b2_schunk_chunk_ptr(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **p,
                                  int32_t *cbytes);
/* Header of chunk i without reading its body; *special gets the index entry's
 * special code (then info is not filled). */
B2_HIDDEN int b2_schunk_chunk_header(b2_schunk *s, int64_t i, b2_chunk_info *info, int *special);
/* b2_schunk_chunk_view with r's buffers: the view stays valid while r is held. */
B2_HIDDEN int b2_schunk_chunk_view_rd(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **chunk,
                                      int32_t *cbytes);
/* ---- frame_lazy.c ---- */
/* Decode bytes [off, off+len) of regular on-disk chunk i into dst, reading only the
 * blocks needed. B2_ERR_UNSUPPORTED: this chunk shape must be read whole. */
B2_HIDDEN int b2_schunk_lazy_range(b2_schunk *s, frame_rd *r, int64_t i, int64_t off, int64_t len,
                                   uint8_t *dst);
/* nbytes of a special entry at position i. */
B2_HIDDEN int32_t b2_schunk_special_nbytes(const b2_schunk *s, int64_t i);

#endif
