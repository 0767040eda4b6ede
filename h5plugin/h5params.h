/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal interfaces of the HDF5 Blosc2 filter (filter id 32026): cd_values
 * parsing and the payload (frame) encoder/decoder for one HDF5 chunk. */
#ifndef B2_H5PARAMS_H
#define B2_H5PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "h5common.h"

#define B2_H5_FILTER_ID 32026
#define B2_H5_REVISION 1          /* cd_values[0] written by set_local (classic layout) */
/* cd_values[0] with the one-dimensional layout of HDF5-Blosc2 2.0 (rank 1 in
 * cd_values[7] and the chunk length after it; doc/format/hdf5-filter.md §2a).
 * No reader checks slot 0; the value only says which writer made the layout. */
#define B2_H5_REVISION_RANK1 2
#define B2_H5_READ_MAXDIM 16      /* largest rank accepted in cd_values (c-blosc2 3.x) */
/* Largest rank set_local records, as the reference built on c-blosc2 3.x does
 * (doc/format/hdf5-filter.md §2): chunks of rank 2..16 become b2nd frames. Readers built on
 * c-blosc2 2.x (limit 8) refuse datasets with a higher recorded rank, exactly as
 * they refuse the reference's own files. */
#define B2_H5_WRITE_MAXDIM 16
/* The extra values (chunk ranks 1..16, rank 1 with the one-dimensional layout;
 * hdf5-filter cd_values, doc/hdf5.md):
 * after the chunk dims come B2_H5_EXT_MARKER, B2_H5_EXT_VERSION, a count N and N
 * values: 3 words with the 6 filter slots packed two by two (slot 2k in bits
 * 0-15, slot 2k+1 in bits 16-31; each slot the filter id in its low byte and its
 * meta in the high byte), a flags word (bit 0: use_dict; bit 1: checksums, a
 * "b2.checksums" vlmetalayer in every frame stored; other bits 0), then
 * either nothing (automatic block shape) or one block dimension per chunk
 * dimension. N is 4 or 4 + rank. */
#ifndef B2_H5_EXT_MARKER
#define B2_H5_EXT_MARKER 0x42324E44u /* "B2ND" (also in b2_h5filter.h) */
#endif
#define B2_H5_EXT_VERSION 1
#define B2_H5_EXT_FIXED 4            /* filter words and the flags word */
#define B2_H5_EXT_USE_DICT 1u
#define B2_H5_EXT_CHECKSUMS 2u       /* per-chunk xxh64 checksums in each frame */
#define B2_H5_EXT_FLAGS (B2_H5_EXT_USE_DICT | B2_H5_EXT_CHECKSUMS)
/* room for 8 + 16 dims + marker, version, count, 4 + 16 values */
#define B2_H5_MAX_CDVALUES (8 + B2_H5_READ_MAXDIM + 3 + B2_H5_EXT_FIXED + B2_H5_READ_MAXDIM)

/* The filter's cd_values, decoded (doc/format/hdf5-filter.md §2). */
typedef struct b2_h5_params {
    size_t nvalues;        /* number of cd_values */
    uint32_t blocksize;    /* v[1]: 0 = automatic */
    uint32_t typesize;     /* v[2]: base element size */
    uint32_t chunkbytes;   /* v[3]: full element size x chunk items */
    int clevel;            /* v[4] */
    int filter;            /* v[5]: Blosc2 filter in the last slot */
    int codec;             /* v[6] bits 0-7 (0 when absent) */
    int codec_meta;        /* v[6] bits 8-15: the codec's meta byte (plugin codecs) */
    int rank;              /* v[7], 0 when absent */
    uint64_t dims[B2_H5_READ_MAXDIM];
    /* from the extra values (or the writer's options): ext != 0 replaces the
     * filter pipeline [0,0,0,0,0,v[5]] by filters/filters_meta and adds use_dict
     * and checksums;
     * blockshape[0] != 0 gives the block shape (rank dims) */
    int ext;
    uint8_t filters[B2_MAX_FILTERS], filters_meta[B2_MAX_FILTERS];
    int use_dict;
    int checksums;         /* flags bit 1: each frame stored holds its chunk checksums */
    int32_t blockshape[B2_H5_READ_MAXDIM];
    int nthreads;          /* from the environment */
    int64_t mem_limit;     /* from the environment (0: libb2's default) */
} b2_h5_params;

/* Decode and check cd_values; compress != 0 adds the checks only the write path
 * needs. Returns 0, or -1 with a message in err (errcap bytes). */
B2_HIDDEN int b2_h5_params_parse(size_t n, const unsigned *v, int compress,
                                b2_h5_params *p, char *err, size_t errcap);

/* Decode the extra values at e (avail values from there; e[0] is the marker)
 * for a chunk of p->rank dims p->dims into p. Returns the number of values
 * used, or -1 with a message in err. */
B2_HIDDEN int b2_h5_params_parse_ext(const unsigned *e, size_t avail, b2_h5_params *p,
                                    char *err, size_t errcap);

/* Threads to use: $B2_H5_NTHREADS, else $BLOSC_NTHREADS, else 1 (clamped 1..256). */
B2_HIDDEN int b2_h5_nthreads_from_env(void);
/* Memory limit for decoding: $B2_H5_MEMORY_LIMIT in bytes, with an optional
 * K, M or G suffix (powers of 1024); 0 (libb2's default) when unset or junk. */
B2_HIDDEN int64_t b2_h5_memory_limit_from_env(void);
/* How b2_h5_reader finds chunks ($B2_H5_CHUNK_LOOKUP: auto, coord, read, iter,
 * noiter; B2_H5_LOOKUP_* in h5read_int.h), 0 (auto) when unset or unknown. */
B2_HIDDEN int b2_h5_lookup_from_env(void);

/* Allocator pair for buffers handed back to HDF5. */
typedef struct b2_h5_alloc {
    void *(*alloc)(size_t size, void *ud);
    void (*release)(void *p, void *ud);
    void *ud;
} b2_h5_alloc;

struct b2_h5_ctx;

/* Encode one HDF5 chunk (nbytes at src) as a contiguous frame: a one-chunk b2nd
 * array when b2nd != 0 (compressed straight into the buffer from al, reusing
 * ctx's compression context when ctx is not NULL), else a plain one-chunk
 * super-chunk, the chunk also compressed in place. limit > 0: the frame is only
 * wanted within limit bytes (the
 * buffer is then that size, which the heap can recycle from the chunk buffers
 * HDF5 frees); B2_ERR_DST_TOO_SMALL, with no message, when it does not fit.
 * On success returns 0 with *out (from al; *outsize bytes allocated, *outlen
 * used); on failure a negative B2_ERR_* code and a message in err. */
B2_HIDDEN int b2_h5_payload_encode(const b2_h5_params *p, struct b2_h5_ctx *ctx, int b2nd,
                                  const void *src, size_t nbytes, size_t limit,
                                  const b2_h5_alloc *al,
                                  void **out, size_t *outsize, size_t *outlen, char *err,
                                  size_t errcap);

/* One chunk (nbytes at src, the size HDF5 hands the filter) exactly as the
 * filter's compress path stores it: the b2nd path when nbytes is the whole chunk
 * of p, else a plain frame. Always a frame, even when not smaller than the chunk
 * (as the reference filter stores it). Returns 1 with the frame in *out (from
 * al), or a negative B2_ERR_* with a message in err. */
B2_HIDDEN int b2_h5_filter_encode(const b2_h5_params *p, struct b2_h5_ctx *ctx,
                                 const void *src, size_t nbytes, const b2_h5_alloc *al,
                                 void **out, size_t *outsize, size_t *outlen, char *err,
                                 size_t errcap);

/* Decode one stored frame (exactly len bytes) into a buffer from al, with dctx
 * (NULL: a context of the frame's own with p->nthreads threads). On success
 * returns 0 with *out, *outsize (bytes allocated) and *outlen (bytes of data);
 * on failure a negative B2_ERR_* code and a message in err. */
B2_HIDDEN int b2_h5_payload_decode(const b2_h5_params *p, b2_dctx *dctx, const void *src, size_t len,
                                  const b2_h5_alloc *al, void **out, size_t *outsize,
                                  size_t *outlen, char *err, size_t errcap);

/* Open the stored frame of one HDF5 chunk (exactly len bytes at src, borrowed
 * read-only) under memory limit mem_limit (<= 0: the library's default). */
B2_HIDDEN int b2_h5_frame_open(const void *src, size_t len, int64_t mem_limit, b2_schunk **s);

/* Check the frame s (an HDF5 chunk's) against the checksums it holds, if any:
 * 0 (no checksums, or they match, or they are stale: a writer without
 * checksums changed the frame), or B2_ERR_CHECKSUM with "checksum mismatch"
 * and the library's detail in err. */
B2_HIDDEN int b2_h5_frame_verify(b2_schunk *s, char *err, size_t errcap);

/* The reference's cparams for p: c-blosc2's defaults plus the cd_values (and
 * the extra values). */
B2_HIDDEN void b2_h5_make_cparams(const b2_h5_params *p, b2_cparams *cp);

/* The fixed-position header fields of a one-chunk frame as c-blosc2's filter
 * writes them (copy-to-buffer path): thread counts, and blocksize when > 0. */
B2_HIDDEN void b2_h5_patch_frame_header(uint8_t *frame, size_t len, int32_t blocksize);

/* Blocksize target in bytes for the b2nd path: v[1] or the automatic rule
 * (doc/format/hdf5-filter.md §4). Negative B2_ERR_* on bad parameters. */
B2_HIDDEN int64_t b2_h5_block_target(const b2_h5_params *p);

/* Block shape for target bytes (doc/format/hdf5-filter.md §4) into bshape[p->rank]. */
B2_HIDDEN void b2_h5_block_shape(const b2_h5_params *p, int64_t target, int64_t *bshape);

#endif
