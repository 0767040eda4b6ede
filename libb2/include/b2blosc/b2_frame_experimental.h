/* SPDX-License-Identifier: BSD-3-Clause */
/* Experimental frame functions: they may change or go in any release, unlike
 * those of b2_frame.h. */
#ifndef B2_FRAME_EXPERIMENTAL_H
#define B2_FRAME_EXPERIMENTAL_H

#include "b2_frame.h"
#include "b2_chunk_experimental.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes this handle has read from its file or directory since it was opened
 * (header, trailer, index and chunk bytes; 0 for frames in memory). */
B2_API int64_t b2_schunk_bytes_read(const b2_schunk *s);

/* defer != 0: chunks appended to a file frame (b2_schunk_append_chunk, _buffer,
 * insert) and item writes (b2_schunk_set_items) are written at once but committed later, by the next operation that
 * commits (an update, a delete, a metalayer change), by
 * b2_schunk_set_defer_commit(s, 0), or by b2_schunk_free (best effort: call
 * set_defer_commit(s, 0) to see its error). Until then the file keeps its last
 * committed frame, which other handles and a crash show; this handle shows the
 * appended chunks. Saves the per-append index, trailer and header writes: for
 * bulk appends. Other storages commit every operation as before. */
B2_API int b2_schunk_set_defer_commit(b2_schunk *s, int defer);

/* For crash tests: from now on, write number fail_at of this handle (0 the next
 * one) and every later write fail with B2_ERR_IO, as if the machine had stopped
 * there. Writes, truncations, whole-frame replacements and chunk files count.
 * tear != 0: a failing write that spans two 512-byte sectors first writes half
 * its bytes. fail_at < 0 ends the faults; the count restarts with each call. */
B2_API int b2_schunk_inject_write_faults(b2_schunk *s, int64_t fail_at, int tear);

/* Prefilter for the chunks b2_schunk_append_buffer compresses (b2_chunk_experimental.h;
 * nchunk is the new chunk's number, and src may be NULL). A failure appends
 * nothing and leaves the frame as it was. fn NULL removes it. */
B2_API int b2_schunk_set_prefilter(b2_schunk *s, b2_prefilter_fn fn, void *user);
/* Postfilter for the chunk data later reads deliver (b2_schunk_decompress_chunk,
 * _get_items: the blocks they decode, nchunk the chunk's number; special index
 * entries are then decoded as the chunks they stand for). The index and
 * vlmetalayers are never postfiltered, nor the bytes b2_schunk_get_chunk and
 * _read_blocks return. Set it while no read runs on s. fn NULL removes it. */
B2_API int b2_schunk_set_postfilter(b2_schunk *s, b2_postfilter_fn fn, void *user);

/* ---- HDF5 fast paths: one-chunk frames and block reads ---- */

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
/* Chunk i's stored bytes without a copy (memory frames: in place; files and sparse
 * frames: an internal buffer; special index entries: a rebuilt 32-byte chunk),
 * valid until the next call on s. Not for a handle other threads read at the
 * same time (b2_schunk_get_chunk is). */
B2_API int b2_schunk_chunk_view(b2_schunk *s, int64_t i, const uint8_t **chunk, int32_t *cbytes);
/* For frames on disk (file or sparse storage): read chunk i's header, block
 * index and dictionary and the n listed blocks (block 0 too under a delta
 * filter), only those bytes, into a new chunk-sized buffer (*chunk, cbytes
 * long; free() it) on which b2_chunk_decompress_rows / b2_chunk_getitem may
 * decode exactly those blocks. B2_ERR_UNSUPPORTED: storage in memory, or a
 * special, VL-block or lazy chunk (read it whole instead). */
B2_API int b2_schunk_read_blocks(b2_schunk *s, int64_t i, const int32_t *blocks, int32_t n,
                                 uint8_t **chunk, int32_t *cbytes);

/* ---- settings that the open options also take ---- */

/* Memory limit for later calls (as b2_open_options.memory_limit; <= 0: the default),
 * also given to the super-chunk's decompression context. */
B2_API int b2_schunk_set_memory_limit(b2_schunk *s, int64_t bytes);
/* User filters and codecs (b2_plugin.h) for later reads and appends, searched
 * before the process table; NULL: the process table alone. Not copied: it must
 * outlive s. A super-chunk made from cparams starts with cparams->registry; one
 * opened from storage with none, so call this before reading chunks that use a
 * registry's ids. */
B2_API int b2_schunk_set_registry(b2_schunk *s, const b2_registry *registry);

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
