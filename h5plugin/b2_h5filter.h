/* SPDX-License-Identifier: BSD-3-Clause */
/* libb2 HDF5 filter: Blosc2, filter id 32026 ("blosc2"), interchangeable with the
 * filter PyTables and hdf5plugin ship.
 *
 * As a dynamic plugin (libH5Zb2.so) HDF5 finds it through HDF5_PLUGIN_PATH or its
 * default plugin directory. Programs that link libb2 and this filter statically
 * call b2_h5_register() once instead. The filter uses the HDF5 library already
 * present in the process (found at run time); it never links one itself.
 *
 * cd_values (compression_opts in h5py): (0, blocksize, 0, 0, clevel, filter, codec)
 * with filter 0 none, 1 shuffle, 2 bitshuffle, 3 delta and codec 0 blosclz, 1 lz4,
 * 2 lz4hc, 4 zlib, 5 zstd, or a plugin codec: 32 ndlz, 33/34/35 zfp fixed
 * accuracy/precision/rate, or a user codec registered in this process (160..255);
 * bits 8-15 of the codec value carry the codec's meta byte (ndlz: cell size 4 or
 * 8, 0 meaning 4; zfp: the parameter byte of doc/format/plugins.md). Threads: $B2_H5_NTHREADS, else $BLOSC_NTHREADS, else 1.
 * Memory: $B2_H5_MEMORY_LIMIT (bytes, or with a K, M or G suffix) bounds what a
 * stored frame may make the filter allocate when read (default 1 GiB,
 * B2_DEFAULT_MEMORY_LIMIT); a frame declaring more fails to read.
 *
 * Checksums: a stored frame holding per-chunk checksums (written when the extra
 * values' flags bit 1 or b2_h5_write_options.checksums asks) is checked on
 * every read path (the filter, b2_h5_read_box serial and parallel) before it
 * is decoded: stored bytes that do not match fail the read with "checksum
 * mismatch" (B2_ERR_CHECKSUM; HDF5 error naming the chunk where known). Stale
 * entries (a writer without checksums changed the frame) do not fail.
 *
 * The filter function may run in several threads at once (as a thread-safe HDF5
 * calls it): each calling thread keeps its own contexts and buffers, freed when
 * it exits (h5plugin/test/test_h5threads.c). b2_h5_read_box calls HDF5, so
 * HDF5's own rules on threads apply to it.
 *
 * User codecs and filters (ids 160..255, b2_plugin.h): the filter sees only the
 * process table of the libb2 it runs with. A program linking the filter
 * statically registers its ids with b2_register_codec / b2_register_filter, and
 * they then also work in cd_values[6] and in stored frames; the dynamic plugin
 * carries a private copy of libb2 whose table no application can reach. */
#ifndef B2_H5FILTER_H
#define B2_H5FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <hdf5.h>

#include "b2_chunk.h" /* b2_cparams */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define B2_H5_API __attribute__((visibility("default")))
#else
#define B2_H5_API
#endif

#define B2_H5_FILTER_ID 32026

/* Register filter 32026 with the HDF5 library of this process (which must export
 * its symbols, as a shared libhdf5 does). Returns 1 on success, -1 when HDF5
 * cannot be found or refuses the registration. */
B2_H5_API int b2_h5_register(void);

/* b2_h5_register() with the HDF5 library that the loaded object `anchor` (a
 * file path) links: h5py's h5z extension module (h5py.h5z.__file__), or a
 * libhdf5 itself. For processes holding several libhdf5 copies (PyTables',
 * netCDF4's and h5py's wheels each bring one). Loads nothing. Returns 1 on
 * success, or: -1 no HDF5 found; -2 anchor is not loaded or reaches no HDF5;
 * -3 an earlier call made another HDF5 of the process the primary one (the
 * library b2_h5_read_box and b2_h5_write_box serve); -4 H5Zregister refused the
 * filter. Filtering itself runs under every HDF5 that loads the plugin
 * (HDF5_PLUGIN_PATH) or registers it, up to 4 libraries a process, each with its
 * own symbol table and filter class. NULL or "" anchor: as b2_h5_register(). */
B2_H5_API int b2_h5_register_with(const char *anchor);

/* The primary HDF5 library of the plugin (the one registration chose, else the
 * first that loaded it): its file (as the dynamic linker names it) into path (cap
 * bytes, truncated, NUL-terminated) and its version into version[3] (zeros when it
 * cannot tell). Returns 0, or -1 when no HDF5 has met the plugin yet (nothing
 * registered or filtered). */
B2_H5_API int b2_h5_api_info(char *path, size_t cap, unsigned version[3]);

/* ---- reading boxes by blocks ---- */

#define B2_H5_READ_MAXRANK 32 /* HDF5's largest rank */

/* How b2_h5_read_box read the box. */
enum b2_h5_read_path {
    B2_H5_READ_DIRECT = 1,  /* every chunk: only the needed blocks of its frame */
    B2_H5_READ_H5DREAD = 2, /* an ordinary H5Dread (of the box, or of every chunk's part) */
    B2_H5_READ_MIXED = 3,   /* direct, and H5Dread for some chunks */
};

typedef struct b2_h5_read_report {
    int path;               /* enum b2_h5_read_path */
    char reason[128];       /* why H5Dread was used (first reason; "" if it was not) */
    int64_t chunks_direct;  /* chunks decoded from their frames */
    int64_t chunks_h5dread; /* chunks read through H5Dread */
    int64_t bytes_read;     /* file bytes the direct path read (frame headers, indexes, blocks) */
    int64_t blocks_decoded; /* blocks the direct path decoded (b2nd frames) */
} b2_h5_read_report;

/* Read the box [start, start + count) (step 1, rank = the dataset's) of dataset
 * dset into buf (C order, bufsize >= elements * element size) as elements of
 * mem_type (0 = H5P_DEFAULT: the dataset's own type, unconverted). For chunks
 * stored by filter 32026 (Blosc2) alone it opens each frame in place in the file
 * and decodes only the blocks the box needs, reading only the frame's header,
 * index and those blocks. Everything else goes through H5Dread: the whole box when
 * the dataset is not chunked, has other filters, needs type conversion or a file
 * driver other than sec2, or HDF5 is older than 1.10.5; a chunk's part when the
 * chunk is unallocated (fill value), stored raw (filter mask) or not a frame that
 * maps onto the chunk. The bytes are always H5Dread's. Files open for writing are
 * flushed first. report (may be NULL) says which path was taken and why. Uses the
 * HDF5 library of this process, like the filter. Returns 0 or a negative B2_ERR_*. */
B2_H5_API int b2_h5_read_box(hid_t dset, hid_t mem_type, const hsize_t *start,
                             const hsize_t *count, void *buf, size_t bufsize,
                             b2_h5_read_report *report);

/* Repeated reads of one dataset: b2_h5_reader_open checks the dataset's layout,
 * pipeline and file once (what b2_h5_read_box does on every call), and
 * b2_h5_reader_read then reads boxes exactly as b2_h5_read_box would. The reader
 * must not outlive dset; one thread at a time uses it (each on its own reader is
 * fine). Returns 0 or a negative B2_ERR_*. */
typedef struct b2_h5_reader b2_h5_reader;
B2_H5_API int b2_h5_reader_open(hid_t dset, b2_h5_reader **out);
B2_H5_API int b2_h5_reader_read(b2_h5_reader *rd, hid_t mem_type, const hsize_t *start,
                                const hsize_t *count, void *buf, size_t bufsize,
                                b2_h5_read_report *report);
/* Threads of later reads (1..256; default $B2_H5_NTHREADS, else $BLOSC_NTHREADS,
 * else 1); b2_h5_reader_nthreads gives it. A read of 256 KiB or more over
 * several chunks of a sec2 file (no user block) takes the parallel path: the
 * calling thread alone calls HDF5 (each chunk's look-up, queued at once so that
 * look-ups overlap decoding; H5Dread of unallocated and raw-stored chunks while
 * the others decode) and nthreads workers, the calling thread among them,
 * decode the blocks the box needs straight into buf. A worker preads the stored
 * bytes of a chunk looked up by address; in datasets of many chunks, where
 * HDF5 1.10's look-up by address costs more than the bytes, the calling thread
 * reads them with H5Dread_chunk instead. With fewer chunks than threads the
 * spare threads decode blocks inside the chunks; boxes in one chunk (nthreads
 * block threads) and smaller boxes stay on the serial path above. Memory in
 * flight: at most 2 x nthreads chunks queued and, per thread, four chunks'
 * stored bytes and one chunk's decoded bytes at most, buffers the reader keeps
 * for its next reads (with its nthreads - 1 pool threads, idle between reads,
 * until it is freed). While a read may use H5Dget_chunk_storage_size, which
 * fails on unallocated chunks, HDF5's automatic error printing is off. A
 * failing chunk (stored bytes past the end of the file or over
 * $B2_H5_MEMORY_LIMIT, not a frame of the stored size, decoding to another size
 * than the chunk's, or not decoding) stops the read with a negative B2_ERR_*
 * whose message names the chunk; queued chunks are dropped and every worker has
 * returned. Bytes and report are those of the serial path. */
B2_H5_API int b2_h5_reader_set_nthreads(b2_h5_reader *rd, int nthreads);
/* What a reader's reads asked of HDF5 on the calling thread to find chunks and
 * read their stored bytes, since b2_h5_reader_open: the serial share that bounds
 * how a read scales with threads. Where that HDF5 has H5Dchunk_iter (1.10.10+,
 * 1.12.3+, 1.14, 2.x) a read of many chunks finds them all in one pass over the
 * chunk index; a read of few chunks, or any read under older HDF5, asks chunk by
 * chunk ($B2_H5_CHUNK_LOOKUP=auto|coord|read|iter|noiter overrides the choice;
 * doc/format/hdf5-filter.md §11a). */
typedef struct b2_h5_lookup_stats {
    int64_t iterations;   /* H5Dchunk_iter calls */
    int64_t iterated;     /* chunk records those calls visited */
    int64_t by_coord;     /* H5Dget_chunk_info_by_coord and H5Dget_chunk_storage_size calls */
    int64_t read_chunk;   /* chunks read with H5Dread_chunk */
    int64_t chunks;       /* chunks the reads located */
    int64_t hdf5_ns;      /* nanoseconds spent in those HDF5 calls */
} b2_h5_lookup_stats;
/* Copy rd's statistics to *out; B2_ERR_INVALID_PARAM when either is NULL. */
B2_H5_API int b2_h5_reader_lookup_stats(const b2_h5_reader *rd, b2_h5_lookup_stats *out);
/* Threads of rd's later reads (b2_h5_reader_set_nthreads). */
B2_H5_API int b2_h5_reader_nthreads(const b2_h5_reader *rd);
/* The calling thread's message about the last failing b2_h5_* call ("" if
 * none): what failed and where, a chunk by its HDF5 chunk coordinates. Valid
 * until the thread's next failing call. */
B2_H5_API const char *b2_h5_last_error_message(void);
/* Free a reader (NULL is fine); dset stays open. */
B2_H5_API void b2_h5_reader_free(b2_h5_reader *rd);

/* ---- writing boxes of whole chunks on worker threads ---- */

/* Extra cd_values (chunk ranks 1..16; doc/hdf5.md, "More parameters"): after the
 * codec the user may add B2_H5_EXT_MARKER, 1 (version), N, then three words with
 * the six filter slots (id | meta << 8, slot 2k in bits 0-15 and 2k+1 in bits
 * 16-31), a flags word (bit 0: use_dict; bit 1: checksums, i.e. each stored
 * frame holds the per-chunk xxh64 checksums of b2_frame.h in its vlmetalayer
 * "b2.checksums", which c-blosc2 readers ignore) and optionally one block dimension per
 * chunk dimension (N = 4 or 4 + rank). set_local stores them after the chunk
 * dims (rank 1: the one-dimensional layout, cd_values[7] = 1 and the chunk
 * length, which readers before HDF5-Blosc2 2.0 refuse); ranks 17+ refuse them
 * (every reader reads cd_values[7] as the rank) and get them through
 * b2_h5_write_options instead. */
#define B2_H5_EXT_MARKER 0x42324E44u /* "B2ND" */

/* How b2_h5_write_box wrote the box. */
enum b2_h5_write_path {
    B2_H5_WRITE_DIRECT = 1,  /* every chunk compressed here and stored by H5Dwrite_chunk */
    B2_H5_WRITE_H5DWRITE = 2, /* an ordinary H5Dwrite (of the box, or of every chunk's part) */
    B2_H5_WRITE_MIXED = 3,   /* direct, and H5Dwrite for some chunks */
};

typedef struct b2_h5_write_options {
    int nthreads; /* compressing threads; 0: $B2_H5_NTHREADS, else $BLOSC_NTHREADS, else 1 */
    /* set_params != 0: the fields below replace what cd_values say of the filter
     * pipeline (slot 5 and the extra values), the block shape, use_dict and
     * checksums, for
     * chunks of any rank (cd_values carry them for ranks 1..16 only). Frames say
     * how they were made, so every reader decodes them; but no chunk may then go
     * through H5Dwrite (which would not apply them): a box that needs it fails
     * with B2_ERR_UNSUPPORTED and the reason in the report. */
    int set_params;
    uint8_t filters[6], filters_meta[6]; /* the Blosc2 filter slots 0..5, in order */
    int use_dict;                        /* zstd/lz4/lz4hc dictionaries */
    /* block shape: all 0 automatic; else 1..chunk dim each, for chunks stored as
     * b2nd (rank 2..16) or rank 1 (a block of blockshape[0] elements) */
    int32_t blockshape[B2_H5_READ_MAXRANK];
    /* each frame holds its chunk's checksum (flags bit 1 of the extra values);
     * every read through this plugin then verifies it */
    int checksums;
} b2_h5_write_options;

typedef struct b2_h5_write_report {
    int path;                /* enum b2_h5_write_path */
    char reason[128];        /* why H5Dwrite was used (first reason; "" if it was not) */
    int64_t chunks_direct;   /* chunks stored with H5Dwrite_chunk (all frames) */
    int64_t chunks_raw;      /* always 0: every chunk is stored as a frame (filter mask 0),
                                as the reference filter does; kept for the ABI */
    int64_t chunks_h5dwrite; /* H5Dwrite calls: one per chunk part, or one for the box */
    int64_t bytes_stored;    /* bytes handed to H5Dwrite_chunk */
    int nthreads;            /* compressing threads used */
} b2_h5_write_report;

/* Write the box [start, start + count) (step 1, rank = the dataset's) of dataset
 * dset from buf (C order, bufsize >= elements * element size; elements of
 * mem_type, 0 = H5P_DEFAULT: the dataset's own type). A chunk the box covers
 * whole (up to the dataset's end) is compressed on worker threads into exactly
 * the bytes filter 32026 stores for it through H5Dwrite (same cd_values, same
 * frame, same filter mask; an edge chunk is padded beyond the dataset's end with
 * the fill value, as HDF5 pads it for a new chunk) and stored with H5Dwrite_chunk
 * on the calling thread, in C order of the chunk grid. At most 2 x nthreads
 * chunks are in flight, each holding its gathered input (one chunk) and its frame
 * (at most one chunk plus the frame's overhead): about 4 x nthreads x chunk bytes.
 * Through H5Dwrite, with the reason in report (may be NULL): a chunk only partly
 * in the box (that part), and the whole box when the dataset is not chunked, has
 * no filter 32026 or other filters too, needs type conversion, has a
 * variable-length or reference type (or strings inside a compound or array), uses MPI-IO or a driver other than sec2, cd_values the
 * filter cannot compress with, or HDF5 lacks H5Dwrite_chunk (before 1.10.3).
 * Calls HDF5 from the calling thread only. opts may be NULL. Returns 0 or a
 * negative B2_ERR_*. */
B2_H5_API int b2_h5_write_box(hid_t dset, hid_t mem_type, const hsize_t *start,
                              const hsize_t *count, const void *buf, size_t bufsize,
                              const b2_h5_write_options *opts, b2_h5_write_report *report);

/* ---- what the filter stores, for programs that store chunks themselves ---- */

/* The compression parameters filter 32026 compresses a chunk of rank dims
 * (C order) and element size typesize with, under cd_values: a user's values
 * (up to 7) or a dataset's stored ones (then rank and dims must be theirs).
 * blockshape (rank values, may be NULL) gets the block shape of its b2nd frames
 * (ranks 2..16, and rank 1 when stored cd_values hold the one-dimensional
 * layout; zeros otherwise, whose plain frames use cp->blocksize).
 * Returns 0 or a negative B2_ERR_*. */
B2_H5_API int b2_h5_chunk_params(const unsigned *cd_values, size_t ncd, int rank,
                                 const int32_t *dims, int32_t typesize, b2_cparams *cp,
                                 int32_t *blockshape);

/* Give the header of a one-chunk frame (len bytes) the fields the filter stores
 * whatever the thread counts (c-blosc2's copy-to-buffer path): thread counts 0
 * and 1 and, when blocksize > 0, that header blocksize. Other layouts are left
 * alone. Chunks a program wraps this way are the filter's bytes. */
B2_H5_API void b2_h5_frame_set_stored_fields(uint8_t *frame, size_t len, int32_t blocksize);

#ifdef __cplusplus
}
#endif
#endif
