/* SPDX-License-Identifier: BSD-3-Clause */
/* libb2 super-chunks and frames: an ordered list of Blosc2 chunks stored as a
 * contiguous frame (in memory or in a file) or as a sparse frame (a directory
 * with one file per chunk), plus fixed-size metalayers and variable-length
 * metalayers. Byte-compatible with c-blosc2 3.3 frames (see doc/format/frame.md).
 *
 * Threads: a b2_schunk may be used by one thread at a time, except that any
 * number of threads may read one at once (each read decodes with its own
 * context and buffers) while no thread modifies it or changes its settings:
 * b2_schunk_decompress_chunk, _get_items, _get_chunk, _read_blocks,
 * _chunk_nbytes, _chunk_cbytes, _chunk_special, _meta_get, _vlmeta_get and the
 * property getters. Not b2_schunk_chunk_view (its view lives in the handle).
 * On a shared handle b2_schunk_last_error may show another thread's failure:
 * b2_last_error_message() is the calling thread's own.
 *
 * Functions returning int give a count/size >= 0 or a negative B2_ERR_* code.
 * Chunk numbers are 0-based. */
#ifndef B2_FRAME_H
#define B2_FRAME_H

#include "b2_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct b2_schunk b2_schunk;

#define B2_FRAME_MAX_METALAYERS 16   /* fixed metalayers per frame */
#define B2_FRAME_MAX_VLMETALAYERS 16 /* vlmetalayers a writer may store */
#define B2_FRAME_MAX_NAME 31         /* longest metalayer name, bytes */

/* Flags for the open functions. */
#define B2_OPEN_READONLY 0
#define B2_OPEN_WRITE 1
#define B2_OPEN_CREATE 2 /* b2_schunk_open_with: a new, empty frame (writable) */

/* Where a super-chunk lives. */
enum b2_frame_storage {
    B2_STORAGE_MEMORY = 0, /* contiguous frame in a buffer */
    B2_STORAGE_FILE = 1,   /* contiguous frame in a file */
    B2_STORAGE_SPARSE = 2, /* sparse frame directory */
    B2_STORAGE_USER = 3,   /* contiguous frame behind user I/O callbacks (b2_io) */
};

/* User I/O: a contiguous frame kept wherever these callbacks put it (an object
 * store, a container of the caller's). Positions count from the frame's first
 * byte; user is b2_open_options.io_user. Writes follow the file frame's order
 * (new bytes past the end, then the index, then one header write), so a frame
 * survives a crash when the callbacks keep their writes in order. */
typedef struct b2_io {
    /* Read n bytes at pos into dst; return the count read (short only at the
     * end of the frame) or a negative value on failure. */
    int64_t (*read)(void *user, int64_t pos, void *dst, size_t n);
    /* Write n bytes at pos, growing the frame; return n or a negative value.
     * NULL: the frame opens read-only. */
    int64_t (*write)(void *user, int64_t pos, const void *src, size_t n);
    /* The frame's length now, in bytes, or a negative value. */
    int64_t (*size)(void *user);
    /* Cut the frame to len bytes (0 or negative on failure). NULL: bytes past
     * the frame stay, which readers ignore. */
    int (*truncate)(void *user, int64_t len);
    /* Make the bytes written so far durable (0 or negative). NULL: no-op. */
    int (*sync)(void *user);
    /* Called once, by b2_schunk_free or a failed open. NULL: no-op. */
    void (*close)(void *user);
} b2_io;

/* Everything an open can be told; b2_open_options_init sets the defaults. One
 * source: path, buffer or io. */
typedef struct b2_open_options {
    size_t size;           /* sizeof(b2_open_options): set by b2_open_options_init */
    int flags;             /* B2_OPEN_READONLY (default), B2_OPEN_WRITE or B2_OPEN_CREATE */
    const char *path;      /* a frame file or sparse-frame directory (chosen by what it is) */
    const void *buffer;    /* or a frame in memory, exactly buffer_len bytes */
    size_t buffer_len;
    int copy_buffer;       /* copy it (writable) rather than borrow it (read-only;
                            * buffer must outlive the super-chunk) */
    const b2_io *io;       /* or a frame behind user callbacks, given io_user */
    void *io_user;
    int64_t offset;        /* files: where the frame starts; > 0 opens read-only */
    int64_t memory_limit;  /* see b2_schunk_open_with (<= 0: the default) */
    int nthreads;          /* as b2_schunk_set_nthreads (<= 0: 1) */
    const b2_registry *registry; /* user filters and codecs (b2_plugin.h) */
    int mmap;              /* files, read-only: map the file and read chunks in place.
                            * The file must not shrink while mapped (SIGBUS). */
    int sparse;            /* B2_OPEN_CREATE with a path: a sparse-frame directory */
    const b2_cparams *cparams; /* B2_OPEN_CREATE: the chunks' defaults (NULL: defaults) */
    int checksums;         /* a b2_checksums policy (default B2_CHECKSUMS_KEEP) */
    int verify;            /* check each chunk read against its checksum (B2_ERR_CHECKSUM) */
} b2_open_options;

/* Per-chunk checksums (doc/format/checksums.md): xxh64 of each chunk's stored
 * bytes in the vlmetalayer "b2.checksums", which c-blosc2 keeps but ignores. */
enum b2_checksums {
    B2_CHECKSUMS_KEEP = 0,   /* keep a frame's checksums current if it has them (default) */
    B2_CHECKSUMS_ON = 1,     /* store them: hash each chunk not covered yet, then keep them current */
    B2_CHECKSUMS_OFF = 2,    /* remove them */
    B2_CHECKSUMS_IGNORE = 3, /* leave the stored table as it is, as writers that do not know
                              * checksums do: entries of chunks changed later read as stale */
};

/* What b2_schunk_checksum_state says of a chunk it could read. */
enum b2_checksum_state {
    B2_CHECKSUM_OK = 0,    /* the stored bytes hash to the recorded value */
    B2_CHECKSUM_NONE = 1,  /* the frame holds no checksums */
    B2_CHECKSUM_STALE = 2, /* the entry does not describe this chunk: a writer that keeps no
                            * checksums changed the frame after they were written */
};

/* ---- checksums ---- */

/* Apply a b2_checksums policy to a writable handle and commit it (ON hashes the
 * chunks not covered yet, reading them). Returns B2_OK or an error. */
B2_API int b2_schunk_set_checksums(b2_schunk *s, int policy);
/* 1 if the frame holds a checksum table, else 0. */
B2_API int b2_schunk_has_checksums(const b2_schunk *s);
/* on = 1: later reads check chunk bytes against their checksums (a mismatch is
 * B2_ERR_CHECKSUM; partial reads then read whole chunks); 0: they do not. */
B2_API int b2_schunk_set_verify(b2_schunk *s, int on);
/* Read chunk i and check it: a b2_checksum_state, B2_ERR_CHECKSUM when its
 * bytes do not match, or another error when it cannot be read. */
B2_API int b2_schunk_checksum_state(b2_schunk *s, int64_t i);

/* ---- creating and opening ---- */

/* Defaults for b2_schunk_open_with: read-only, no source, the default memory
 * limit (B2_DEFAULT_MEMORY_LIMIT), one thread, checksums kept. */
B2_API void b2_open_options_init(b2_open_options *o);
/* The one way to get a handle: open or create a super-chunk as o says (its
 * fields say how; o->size set by b2_open_options_init). */
B2_API int b2_schunk_open_with(const b2_open_options *o, b2_schunk **out);
/* A read-only handle takes what a writer committed since (header, metalayers, index) in
 * place; returns 1 if that changed anything, else 0. Not while other threads read s. */
B2_API int b2_schunk_refresh(b2_schunk *s);
/* Close and free (NULL is fine). Never writes: every operation is complete when it returns. */
B2_API void b2_schunk_free(b2_schunk *s);

/* Rewrite a contiguous frame without dead bytes, chunks in logical order (files:
 * via a temporary file renamed into place); nothing to do for sparse frames. */
B2_API int b2_schunk_compact(b2_schunk *s);

/* Bytes of a contiguous frame's chunks section that no chunk uses (left by
 * updates, deletes and, in files, earlier indexes); 0 for sparse frames. */
B2_API int64_t b2_schunk_dead_bytes(b2_schunk *s);
/* Serialize as one contiguous frame into a malloc'ed buffer (*out, *len); free() it. */
B2_API int b2_schunk_to_buffer(b2_schunk *s, uint8_t **out, size_t *len);

/* ---- properties ---- */

/* Message of the last failing call on this handle ("" if none); a failed open
 * leaves its message in b2_last_error_message(). */
B2_API const char *b2_schunk_last_error(const b2_schunk *s);
/* Where the super-chunk lives (enum b2_frame_storage). */
B2_API int b2_schunk_storage(const b2_schunk *s);
/* Number of chunks. */
B2_API int64_t b2_schunk_nchunks(const b2_schunk *s);
/* Uncompressed size of all chunks. */
B2_API int64_t b2_schunk_nbytes(const b2_schunk *s);
/* The header's cbytes: size of the chunks section, dead space included (sparse: the
 * chunk files' total). */
B2_API int64_t b2_schunk_cbytes(const b2_schunk *s);
/* Length of the frame (sparse: of chunks.b2frame). */
B2_API int64_t b2_schunk_frame_len(const b2_schunk *s);
/* Default element size of the super-chunk (used for special chunks and get_items). */
B2_API int32_t b2_schunk_typesize(const b2_schunk *s);
/* Common chunk size; 0 = sizes vary; -1 = no chunk ever added. */
B2_API int32_t b2_schunk_chunksize(const b2_schunk *s);
/* The parameters used to compress buffers appended with b2_schunk_append_buffer. */
B2_API const b2_cparams *b2_schunk_cparams(const b2_schunk *s);
/* sync != 0 (the default): commits fsync, surviving power loss; 0 skips fsync:
 * much faster, still consistent after a process crash. */
B2_API int b2_schunk_set_sync(b2_schunk *s, int sync);
/* Threads used for (de)compression by later calls (<= 0 means 1; at most 256);
 * with several threads reading s at once, each read uses this many. */
B2_API int b2_schunk_set_nthreads(b2_schunk *s, int nthreads);

/* ---- reading chunks ---- */

/* Uncompressed size of chunk i (special index entries included). */
B2_API int b2_schunk_chunk_nbytes(b2_schunk *s, int64_t i);
/* Stored size of chunk i from its header, without reading the chunk (a special
 * index entry counts as the 32-byte chunk it stands for). */
B2_API int b2_schunk_chunk_cbytes(b2_schunk *s, int64_t i);
/* Special kind of chunk i as recorded in the index or chunk header (enum b2_special). */
B2_API int b2_schunk_chunk_special(b2_schunk *s, int64_t i);
/* Copy of chunk i as a complete chunk (special index entries are rebuilt) in a
 * malloc'ed buffer; *cbytes receives its size. */
B2_API int b2_schunk_get_chunk(b2_schunk *s, int64_t i, uint8_t **chunk, int32_t *cbytes);
/* Decompress chunk i into dst (capacity cap). Returns its nbytes. Uninit chunks
 * leave dst untouched. */
B2_API int b2_schunk_decompress_chunk(b2_schunk *s, int64_t i, void *dst, size_t cap);
/* Copy items [start, start+n) (units of the frame typesize) across chunks into dst.
 * Returns n * typesize. */
B2_API int64_t b2_schunk_get_items(b2_schunk *s, int64_t start, int64_t n, void *dst, size_t cap);

/* ---- modifying (all return the new number of chunks or an error) ----
 * Memory frames keep the reference layout. File and sparse frames never overwrite
 * live data and commit with one header write (or an atomic rename), so after a
 * crash or an I/O error the storage holds the old or the new state; the handle
 * then refuses further modifications (reopen the frame). One writer at a time;
 * readers (other handles, other processes) may open the frame meanwhile and see
 * a state the writer committed, which a file frame's handle keeps showing. A
 * sparse frame removes a chunk's file once the index no longer names it, so an
 * older handle may then fail with B2_ERR_NOT_FOUND (reopen it). */

/* Compress nbytes from src with the super-chunk's cparams and append it. */
B2_API int64_t b2_schunk_append_buffer(b2_schunk *s, const void *src, int32_t nbytes);
/* Append a ready chunk (copied). Zeros/NaN/uninit chunks become index entries. */
B2_API int64_t b2_schunk_append_chunk(b2_schunk *s, const void *chunk, int32_t cbytes);
/* Insert a ready chunk so that it becomes chunk pos (0 <= pos <= nchunks). */
B2_API int64_t b2_schunk_insert_chunk(b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes);
/* Replace chunk pos with a ready chunk. */
B2_API int64_t b2_schunk_update_chunk(b2_schunk *s, int64_t pos, const void *chunk, int32_t cbytes);
/* Remove chunk pos (its bytes stay as dead space in a contiguous frame). */
B2_API int64_t b2_schunk_delete_chunk(b2_schunk *s, int64_t pos);
/* Permute the chunks: new chunk i is old chunk order[i] (order is a permutation). */
B2_API int64_t b2_schunk_reorder(b2_schunk *s, const int64_t *order);
/* Write items [start, start+n) from src (len >= n * typesize bytes), rewriting only the
 * chunks touched, in one commit; never appends (B2_ERR_RANGE). Returns n * typesize. */
B2_API int64_t b2_schunk_set_items(b2_schunk *s, int64_t start, int64_t n, const void *src,
                                   size_t len);
/* Fill an empty super-chunk with nitems items (frame typesize) of a special kind
 * (B2_SPECIAL_ZEROS, _NAN or _UNINIT) in chunks of chunksize bytes. */
B2_API int64_t b2_schunk_fill_special(b2_schunk *s, int64_t nitems, int special, int32_t chunksize);

/* ---- metalayers (fixed size, stored uncompressed in the header) ---- */

/* Number of metalayers. */
B2_API int b2_schunk_meta_count(const b2_schunk *s);
/* Name of metalayer i (NULL if out of range). */
B2_API const char *b2_schunk_meta_name(const b2_schunk *s, int i);
/* Add a metalayer; only allowed while the super-chunk holds no data. Returns its index. */
B2_API int b2_schunk_meta_add(b2_schunk *s, const char *name, const void *content, int32_t len);
/* Copy of a metalayer's content (malloc'ed) and its length. Returns its index. */
B2_API int b2_schunk_meta_get(const b2_schunk *s, const char *name, uint8_t **content, int32_t *len);
/* Overwrite a metalayer with content no longer than the stored one (a shorter one
 * overwrites a prefix, as the reference does). Returns its index. */
B2_API int b2_schunk_meta_update(b2_schunk *s, const char *name, const void *content, int32_t len);

/* ---- variable-length metalayers (stored compressed in the trailer) ---- */

/* Number of vlmetalayers. */
B2_API int b2_schunk_vlmeta_count(const b2_schunk *s);
/* Name of vlmetalayer i (NULL if out of range). */
B2_API const char *b2_schunk_vlmeta_name(const b2_schunk *s, int i);
/* Add a vlmetalayer (compressed with the reference defaults). Returns its index. */
B2_API int b2_schunk_vlmeta_add(b2_schunk *s, const char *name, const void *content, int32_t len);
/* Decompressed copy (malloc'ed) of a vlmetalayer and its length. Returns its index. */
B2_API int b2_schunk_vlmeta_get(b2_schunk *s, const char *name, uint8_t **content, int32_t *len);
/* Replace a vlmetalayer's content (any length). Returns its index. */
B2_API int b2_schunk_vlmeta_update(b2_schunk *s, const char *name, const void *content, int32_t len);
/* Remove a vlmetalayer. Returns the number left. */
B2_API int b2_schunk_vlmeta_delete(b2_schunk *s, const char *name);

#ifdef __cplusplus
}
#endif
#endif
