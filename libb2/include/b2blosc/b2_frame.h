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
    int64_t memory_limit;  /* as b2_schunk_set_memory_limit (<= 0: the default) */
    int nthreads;          /* as b2_schunk_set_nthreads (<= 0: 1) */
    const b2_registry *registry; /* as b2_schunk_set_registry */
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
/* Check chunk bytes against their checksums on every later read (on = 1) or
 * not (0): a mismatch fails the read with B2_ERR_CHECKSUM naming the chunk.
 * Partial reads then read whole chunks. Returns B2_OK. */
B2_API int b2_schunk_set_verify(b2_schunk *s, int on);
/* Read chunk i and check it: a b2_checksum_state, B2_ERR_CHECKSUM when its
 * bytes do not match, or another error when it cannot be read. */
B2_API int b2_schunk_checksum_state(b2_schunk *s, int64_t i);

/* ---- creating and opening ---- */

/* New empty in-memory super-chunk whose chunks default to cparams (NULL: defaults).
 * Returns NULL on bad parameters or no memory. */
B2_API b2_schunk *b2_schunk_new(const b2_cparams *cparams);
/* Create a contiguous frame file at path (truncating any existing file). */
B2_API int b2_schunk_create_file(const char *path, const b2_cparams *cparams, b2_schunk **out);
/* Create a sparse frame in directory dir, which must not exist yet. */
B2_API int b2_schunk_create_sframe(const char *dir, const b2_cparams *cparams, b2_schunk **out);
/* Defaults for b2_schunk_open_with: read-only, no source, default memory limit. */
B2_API void b2_open_options_init(b2_open_options *o);
/* Open or create a super-chunk as o says (o->size must be set, by
 * b2_open_options_init). The functions below are shorthands for it. */
B2_API int b2_schunk_open_with(const b2_open_options *o, b2_schunk **out);
/* Open a frame file or sparse-frame directory (chosen by what path is);
 * flags B2_OPEN_READONLY or B2_OPEN_WRITE. */
B2_API int b2_schunk_open(const char *path, int flags, b2_schunk **out);
/* Open a contiguous frame starting at byte offset of a file (bytes after the frame
 * are allowed). A frame inside a larger file (offset > 0) opens read-only. */
B2_API int b2_schunk_open_offset(const char *path, int64_t offset, int flags, b2_schunk **out);
/* Open a frame held in memory; its length must be exactly len. copy != 0 copies
 * the bytes (the super-chunk may then be modified); copy == 0 keeps a read-only
 * reference, and buf must outlive the super-chunk. */
B2_API int b2_schunk_open_buffer(const void *buf, size_t len, int copy, b2_schunk **out);
/* The opens above use B2_DEFAULT_MEMORY_LIMIT: no allocation sized from what the
 * frame declares (its index, a chunk or vlmetalayer to decode, block scratch)
 * may exceed it, and a frame asking for more fails with B2_ERR_LIMIT before
 * allocating. These take the limit (<= 0: the default); offset as for
 * b2_schunk_open_offset, 0 for a sparse frame. */
B2_API int b2_schunk_open_limited(const char *path, int64_t offset, int flags,
                                  int64_t memory_limit, b2_schunk **out);
B2_API int b2_schunk_open_buffer_limited(const void *buf, size_t len, int copy,
                                         int64_t memory_limit, b2_schunk **out);
/* A read-only handle takes what a writer committed since (header, metalayers, index) in
 * place; returns 1 if that changed anything, else 0. Not while other threads read s. */
B2_API int b2_schunk_refresh(b2_schunk *s);
/* Close and free (NULL is fine). Never writes: every operation is complete when it returns. */
B2_API void b2_schunk_free(b2_schunk *s);

/* Rewrite a contiguous frame without dead space (left by deletes, updates and, in
 * files, by earlier indexes), chunks in logical order. Files are rewritten to a
 * temporary file and renamed into place, so a crash leaves the old or new frame.
 * File frames also do this by themselves once their dead space exceeds half the
 * frame (and 64 KiB).
 * Sparse frames: nothing to do. */
B2_API int b2_schunk_compact(b2_schunk *s);

/* Bytes of a contiguous frame's chunks section that no chunk uses (left by
 * updates, deletes and, in files, earlier indexes); 0 for sparse frames. */
B2_API int64_t b2_schunk_dead_bytes(b2_schunk *s);
/* Serialize as one contiguous frame into a malloc'ed buffer (*out, *len); free() it. */
B2_API int b2_schunk_to_buffer(b2_schunk *s, uint8_t **out, size_t *len);

/* Bytes before the first chunk of s's frame (its header with the current metalayers). */
B2_API int64_t b2_schunk_header_len(const b2_schunk *s);
/* Build a one-chunk frame in dst (capacity cap) around the chunk of cbytes bytes
 * the caller already wrote at dst + b2_schunk_header_len(s): the header of s
 * (an in-memory super-chunk holding no chunk; it is not modified) goes before it,
 * the index and trailer after it. The bytes equal appending the chunk to s and
 * calling b2_schunk_to_buffer. Returns the frame length or an error
 * (B2_ERR_DST_TOO_SMALL: cap is short). */
B2_API int64_t b2_schunk_frame_around_chunk(const b2_schunk *s, void *dst, size_t cap,
                                            int32_t cbytes);

/* ---- properties ---- */

/* Message of the last failing call on this handle ("" if none; see b2_common.h).
 * Calls that fail before a handle exists (b2_schunk_open...) leave theirs in
 * b2_last_error_message(). */
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
/* sync != 0 (the default): file and sparse frames fsync before and after each
 * commit, so they survive power loss in the old or new state. sync == 0 skips
 * fsync: much faster, and still consistent after a process crash. */
B2_API int b2_schunk_set_sync(b2_schunk *s, int sync);
/* Threads used for (de)compression by later calls (<= 0 means 1; at most 256);
 * with several threads reading s at once, each read uses this many. */
B2_API int b2_schunk_set_nthreads(b2_schunk *s, int nthreads);
/* Memory limit for later calls (see b2_schunk_open_limited; <= 0: the default),
 * also given to the super-chunk's decompression context. */
B2_API int b2_schunk_set_memory_limit(b2_schunk *s, int64_t bytes);
/* User filters and codecs (b2_plugin.h) for later reads and appends, searched
 * before the process table; NULL: the process table alone. Not copied: it must
 * outlive s. A super-chunk made from cparams starts with cparams->registry; one
 * opened from storage with none, so call this before reading chunks that use a
 * registry's ids. */
B2_API int b2_schunk_set_registry(b2_schunk *s, const b2_registry *registry);

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
/* Chunk i's stored bytes without a copy (memory frames: in place; files and sparse
 * frames: an internal buffer; special index entries: a rebuilt 32-byte chunk),
 * valid until the next call on s. Not for a handle other threads read at the
 * same time (b2_schunk_get_chunk is). */
B2_API int b2_schunk_chunk_view(b2_schunk *s, int64_t i, const uint8_t **chunk, int32_t *cbytes);
/* Decompress chunk i into dst (capacity cap). Returns its nbytes. Uninit chunks
 * leave dst untouched. */
B2_API int b2_schunk_decompress_chunk(b2_schunk *s, int64_t i, void *dst, size_t cap);
/* For frames on disk (file or sparse storage): read chunk i's header, block
 * index and dictionary and the n listed blocks (block 0 too under a delta
 * filter), only those bytes, into a new chunk-sized buffer (*chunk, cbytes
 * long; free() it) on which b2_chunk_decompress_rows / b2_chunk_getitem may
 * decode exactly those blocks. B2_ERR_UNSUPPORTED: storage in memory, or a
 * special, VL-block or lazy chunk (read it whole instead). */
B2_API int b2_schunk_read_blocks(b2_schunk *s, int64_t i, const int32_t *blocks, int32_t n,
                                 uint8_t **chunk, int32_t *cbytes);
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

/* ---- inspecting: what bytes hold, and a frame's header and index as parsed ---- */

/* What a buffer or path holds (b2_inspect_buffer, b2_inspect_path). */
enum b2_kind {
    B2_KIND_UNKNOWN = 0, /* none of the kinds below */
    B2_KIND_CHUNK = 1,   /* one Blosc2 (or Blosc1) chunk, filling it exactly */
    B2_KIND_FRAME = 2,   /* a contiguous frame */
    B2_KIND_SFRAME = 3,  /* a sparse-frame directory (chunks.b2frame inside) */
    B2_KIND_B2ND = 4,    /* a frame, contiguous or sparse, with a "b2nd" (or "caterva") metalayer */
    B2_KIND_HDF5 = 5,    /* an HDF5 file: its signature at byte 0, 512, 1024, 2048, ... */
};

/* Kind of the len bytes at buf (enum b2_kind), from signatures and the frame
 * header only: opening validates the rest. B2_ERR_TRUNCATED: empty, or a frame
 * header cut short; a frame whose header does not parse gives that error. */
B2_API int b2_inspect_buffer(const void *buf, size_t len);
/* The same for a file or a directory (a sparse frame); reads only the headers.
 * B2_ERR_NOT_FOUND / B2_ERR_IO: path cannot be read; B2_ERR_FORMAT: a sparse
 * frame's chunks.b2frame given alone (inspect its directory). */
B2_API int b2_inspect_path(const char *path);
/* Short name of a kind: "unknown", "chunk", "cframe", "sframe", "b2nd", "hdf5" (NULL if none). */
B2_API const char *b2_kind_name(int kind);

/* A frame's fixed header fields as the handle holds them (loaded, or as last
 * committed), decoded (doc/format/frame.md §2), plus what the index says. */
typedef struct b2_frame_info {
    int storage;            /* enum b2_frame_storage */
    int32_t header_len;     /* header bytes, metalayers included */
    int64_t frame_len;      /* frame bytes (sparse: of chunks.b2frame) */
    int version;            /* frame format version (general_flags & 0x0f) */
    int sparse;             /* frame type (frame_type & 0x0f): 0 contiguous, 1 sparse */
    /* header bytes 25, 26, 27, 28 and 85 as stored */
    uint8_t general_flags, frame_type, codec_flags, other_flags, other_flags2;
    /* defaults recorded for new chunks (each chunk has its own in its header) */
    int codec;              /* codec id (byte 77 when codec_flags' low nibble is 6) */
    int codec_meta;         /* byte 78 */
    int clevel;             /* codec_flags >> 4 */
    int splitmode;          /* enum b2_splitmode: (other_flags & 3) + 1 */
    int use_dict;           /* other_flags2 & 1 */
    uint8_t filters[B2_MAX_FILTERS], filters_meta[B2_MAX_FILTERS];
    int32_t blocksize;      /* 0: automatic */
    int32_t typesize;
    int32_t chunksize;      /* 0: sizes vary; -1: no chunk ever added */
    int tcomp, tdecomp;     /* threads the writer recorded */
    int has_vlmeta;         /* byte 68: the trailer holds vlmetalayers */
    int64_t nbytes, cbytes; /* uncompressed total; chunks section (dead space included) */
    int64_t nchunks;
    int nmetalayers, nvlmetalayers;
    int64_t trailer_len;
    int64_t dead_bytes;     /* as b2_schunk_dead_bytes (reads each chunk's header), or
                             * its negative error when a chunk header is unreadable */
} b2_frame_info;

/* Fill *info for s. Fails only on NULL arguments. */
B2_API int b2_schunk_frame_info(b2_schunk *s, b2_frame_info *info);

/* What an index entry names (b2_frame_entry.kind). */
enum b2_entry_kind {
    B2_ENTRY_OFFSET = 0,  /* a chunk in the chunks section of a contiguous frame */
    B2_ENTRY_FILE = 1,    /* a sparse frame's chunk file (named %08X.chunk after its id) */
    B2_ENTRY_SPECIAL = 2, /* no stored bytes: a chunk of zeros, NaNs or uninitialised items */
};

/* Entry i of a frame's chunk table. */
typedef struct b2_frame_entry {
    int64_t raw;          /* the index entry as stored */
    int kind;             /* enum b2_entry_kind */
    int64_t offset;       /* B2_ENTRY_OFFSET: from the chunks section's start (frame
                           * byte header_len + offset); B2_ENTRY_FILE: the file id; else -1 */
    int special;          /* enum b2_special from the index or the chunk's header */
    int32_t stored_bytes; /* bytes the chunk takes in the frame or its file (0: special entry) */
    int32_t cbytes;       /* as b2_schunk_chunk_cbytes (a special entry: the 32-byte chunk it stands for) */
    int32_t nbytes;       /* uncompressed size */
} b2_frame_entry;

/* Fill *e for chunk i (reads the chunk's header, not its body). B2_ERR_RANGE:
 * i outside [0, nchunks); B2_ERR_CORRUPT and the like: an unreadable entry. */
B2_API int b2_schunk_frame_entry(b2_schunk *s, int64_t i, b2_frame_entry *e);

#ifdef __cplusplus
}
#endif
#endif
