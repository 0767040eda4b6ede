/* SPDX-License-Identifier: BSD-3-Clause */
/* Stores: where a frame's bytes live (frame layer, internal).
 *
 * A store answers reads and writes at frame-relative positions and replaces a
 * whole frame atomically; a sparse store also keeps chunk files by id. The
 * super-chunk object above reads and writes through the table of operations
 * only, so memory buffers, files and sparse directories differ in one place,
 * and a test can wrap a store in one that fails at a chosen write.
 *
 * Every operation returns B2_OK or a negative B2_ERR_* code with detail
 * (b2_err_detail). Stores keep no handle state: policy (read-only, sync or not,
 * crash-safe ordering) stays with the object. */
#ifndef B2_FRAME_STORE_H
#define B2_FRAME_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "b2_internal.h"

typedef struct frame_store frame_store;

typedef struct frame_store_ops {
    const char *kind; /* "memory", "file", "mmap", "user", "sparse", "fault" */
    /* Read n bytes at pos; B2_ERR_TRUNCATED when the frame ends first. */
    int (*read)(frame_store *st, int64_t pos, void *dst, size_t n);
    /* The whole frame in place and its length, or NULL when the bytes are not mapped. */
    const uint8_t *(*map)(frame_store *st, size_t *len);
    /* Write n bytes at pos, growing the frame when needed. */
    int (*write)(frame_store *st, int64_t pos, const void *src, size_t n);
    /* Make written bytes durable. */
    int (*sync)(frame_store *st);
    /* Cut the frame to len bytes (never grows it). */
    int (*truncate)(frame_store *st, int64_t len);
    /* The bytes available from the frame's start now. */
    int (*length)(frame_store *st, int64_t *len);
    /* A fresh, empty store whose bytes finish_replace puts in st's place
     * (B2_ERR_UNSUPPORTED where the frame cannot move, as inside a larger file). */
    int (*begin_replace)(frame_store *st, frame_store **tmp);
    /* tmp becomes st's frame, atomically where the medium allows: a crash leaves
     * the old or the new bytes. durable: sync tmp and the directory. Frees tmp. */
    int (*finish_replace)(frame_store *st, frame_store *tmp, int durable);
    /* Drop a replacement never finished. */
    void (*abort_replace)(frame_store *st, frame_store *tmp);
    void (*free)(frame_store *st);
} frame_store_ops;

/* Sparse stores: chunk files by id. */
typedef struct frame_chunk_ops {
    /* A read-only store of one chunk file's bytes (B2_ERR_NOT_FOUND when absent). */
    int (*chunk_open)(frame_store *st, int64_t id, frame_store **chunk);
    /* Write chunk file id whole (durable: synced). */
    int (*chunk_write)(frame_store *st, int64_t id, const void *src, size_t n, int durable);
    /* Remove chunk file id (absent is no error). */
    int (*chunk_remove)(frame_store *st, int64_t id);
    /* The highest chunk file id present in the store, or -1. */
    int (*chunk_top_id)(frame_store *st, int64_t *top);
} frame_chunk_ops;

struct frame_store {
    const frame_store_ops *ops;
    const frame_chunk_ops *chunks; /* sparse stores only, else NULL */
    const char *name; /* for messages: a path, or NULL */
};

/* A memory store: a copy of len bytes at buf (writable), or a borrowed view of them
 * (copy 0: read-only, buf must outlive the store). buf may be NULL for an empty frame. */
B2_HIDDEN int b2_store_memory(const void *buf, size_t len, int copy, frame_store **out);
/* A file store on path, the frame starting at offset; create truncates or makes the
 * file. Writable stores open the file for writing. */
B2_HIDDEN int b2_store_file(const char *path, int64_t offset, int writable, int create,
                     frame_store **out);
/* A sparse-frame store on directory dir: chunks.b2frame and %08X.chunk files;
 * create makes the directory (B2_ERR_EXISTS when it exists). */
B2_HIDDEN int b2_store_sparse(const char *dir, int create, frame_store **out);
/* A read-only store of the file at path mapped whole, the frame from offset on. */
B2_HIDDEN int b2_store_mmap(const char *path, int64_t offset, frame_store **out);
struct b2_io;
/* A store behind user callbacks (b2_frame.h); the store calls io->close when freed. */
B2_HIDDEN int b2_store_user(const struct b2_io *io, void *user, frame_store **out);
/* Wrap inner so that the write-like operation number fail_at and every later one
 * fails with B2_ERR_IO ("simulated crash"); with tear, a failing write that spans
 * two 512-byte sectors first writes half its bytes. Writes to replacements and
 * chunk files count. Takes inner; fail_at < 0 never fails. */
B2_HIDDEN int b2_store_fault(frame_store *inner, int64_t fail_at, int tear, frame_store **out);
/* Change a fault store's failure point (fail_at < 0: never). */
B2_HIDDEN void b2_store_fault_set(frame_store *st, int64_t fail_at, int tear);

static inline void b2_store_free(frame_store *st)
{
    if (st)
        st->ops->free(st);
}

#endif
