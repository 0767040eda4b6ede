/* SPDX-License-Identifier: BSD-3-Clause */
/* Experimental chunk functions: they may change or go in any release, unlike
 * those of b2_chunk.h. Test probes and the in-place fast paths the HDF5 filter
 * and the b2nd layer use. */
#ifndef B2_CHUNK_EXPERIMENTAL_H
#define B2_CHUNK_EXPERIMENTAL_H

#include "b2_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of blocks decoded by this context since creation (for partial-decoding checks). */
B2_API int64_t b2_dctx_blocks_decoded(const b2_dctx *dctx);

#define B2_ROWS_MAXDIM 16

/* Where one block's bytes live in the caller's memory: rows of `run` bytes. For
 * every index idx over cnt[0..nd), the row at byte soff + sum(idx[d] * sstr[d])
 * of the block is at user + sum(idx[d] * dstr[d]). Rows must lie inside the
 * block; the caller keeps its rows inside its buffer. */
typedef struct b2_block_rows {
    int nd;
    int64_t cnt[B2_ROWS_MAXDIM];
    int64_t sstr[B2_ROWS_MAXDIM]; /* bytes */
    int64_t dstr[B2_ROWS_MAXDIM]; /* bytes, on the caller side */
    int64_t soff;                 /* first row's offset in the block */
    int64_t run;                  /* bytes per row (0: nothing to do) */
    uint8_t *user;                /* the caller's first row */
} b2_block_rows;

/* Describes block `block` into *rows (zero-filled on entry). May be called from
 * several threads at once. Returns B2_OK or a negative error that stops decoding. */
typedef int (*b2_block_rows_fn)(void *ud, int32_t block, b2_block_rows *rows);

/* Decode the listed blocks (blocks == NULL: all of them, nblocks ignored), each
 * straight into the rows fn gives: the last pass of the pipeline (unshuffle, or
 * the codec when it fills a whole run) writes the destination, so no chunk-sized
 * temporary is used. Special chunks fill the rows with their value (uninit: zeros).
 * Returns B2_OK or an error (B2_ERR_UNSUPPORTED for VL-block chunks). */
B2_API int b2_chunk_decompress_rows(b2_dctx *dctx, const void *src, size_t srcsize,
                                    const int32_t *blocks, int32_t nblocks,
                                    b2_block_rows_fn fn, void *ud);

/* Compress nbytes whose blocks (of b2_chunk_blocksize_for(params, nbytes) bytes)
 * lie in the caller's memory as the rows fn gives (rows of a block must not
 * overlap; bytes no row covers are zeros). The first pass (the shuffle when it is
 * the whole pipeline, else a copy) reads the rows, so no gathered copy of the
 * chunk is made. Same bytes as b2_chunk_compress of the gathered buffer. */
B2_API int b2_chunk_compress_rows(b2_cctx *cctx, size_t nbytes, b2_block_rows_fn fn, void *ud,
                                  void *dst, size_t dstcap);

/* ---- prefilters and postfilters (c-blosc2's blosc2_prefilter_fn / _postfilter_fn) ----
 * User callbacks run per block on the context's worker threads (tid 0 is the
 * calling thread), so with nthreads > 1 they run concurrently and must be
 * thread-safe. They must not call back into the context running them (nor into
 * the super-chunk or array that owns it). They return 0, or a negative value
 * that fails the call with B2_ERR_CALLBACK naming the callback, the block and
 * the value; anything else is taken as a failure too. A failed compression
 * returns no chunk, so nothing is stored (a super-chunk append leaves the frame
 * as it was). */

/* What a prefilter gets for one block. */
typedef struct b2_prefilter_params {
    void *user;           /* as given to b2_cctx_set_prefilter */
    const uint8_t *input; /* the block's bytes of the source, or NULL when there is
                           * none (b2_chunk_compress with src NULL, or the rows of
                           * b2_chunk_compress_rows gathered: then the gathered block) */
    uint8_t *output;      /* size bytes, zeroed: the block the pipeline compresses */
    int32_t size;         /* block bytes (the short last block is shorter) */
    int32_t typesize;     /* the chunk's typesize (as cparams, up to 255) */
    int32_t offset;       /* the block's byte offset in the chunk (nblock * blocksize) */
    int32_t nblock;       /* block number in the chunk */
    int tid;              /* worker running it: 0..nthreads-1 */
    int64_t nchunk;       /* chunk number in the super-chunk or array being written, or -1 */
} b2_prefilter_params;
typedef int (*b2_prefilter_fn)(const b2_prefilter_params *p);

/* Called per block before the filter pipeline; what it writes to output is
 * what is compressed, so it may compute the block (src may then be NULL:
 * b2_chunk_compress(cctx, NULL, nbytes, ...)). Normally once per block; a
 * block may be asked for again (dictionary training, the memcpy fallback, the
 * parallel encoder redoing the chunk's tail sequentially) and must then get the
 * same bytes. Unlike c-blosc2 the output has the block's size (no output_typesize)
 * and a delta filter's reference is the prefilter's block 0. fn NULL removes it. */
B2_API int b2_cctx_set_prefilter(b2_cctx *cctx, b2_prefilter_fn fn, void *user);

/* What a postfilter gets for one decoded block. */
typedef struct b2_postfilter_params {
    void *user;           /* as given to b2_dctx_set_postfilter */
    uint8_t *block;       /* the decoded block, to change in place (size bytes) */
    int32_t size;         /* block bytes (the short last block is shorter) */
    int32_t typesize;     /* the chunk header's typesize */
    int32_t offset;       /* the block's byte offset in the chunk */
    int32_t nblock;       /* block number in the chunk */
    int tid;              /* worker running it: 0..nthreads-1 */
    int64_t nchunk;       /* chunk number in the super-chunk or array read, or -1 */
} b2_postfilter_params;
typedef int (*b2_postfilter_fn)(const b2_postfilter_params *p);

/* Called once per block a call delivers, after the filters are undone, on the
 * whole block (in the destination, or in scratch when only part of it is
 * wanted), before the wanted bytes are copied out: b2_chunk_getitem and
 * b2_chunk_decompress_rows call it for exactly the blocks they return bytes
 * of, and so do b2nd slices and selections (a delta chunk's block 0, decoded
 * only as the reference, is not postfiltered). Special chunks' blocks are
 * filled and then postfiltered (uninit ones read as zeros then). Where c-blosc2
 * passes input and output, this block is both. fn NULL removes it. */
B2_API int b2_dctx_set_postfilter(b2_dctx *dctx, b2_postfilter_fn fn, void *user);

/* The chunk number later calls pass to the callbacks as nchunk (-1 at creation;
 * the frame and b2nd layers set it for each chunk they read or write). */
B2_API int b2_cctx_set_nchunk(b2_cctx *cctx, int64_t nchunk);
B2_API int b2_dctx_set_nchunk(b2_dctx *dctx, int64_t nchunk);

/* ---- the codec libraries of this build (for bug reports: `python -m b2blosc`) ---- */

/* One external library libb2 calls. BloscLZ and ndlz decoding are libb2's own
 * code and have no entry. */
typedef struct b2_codec_library_info {
    const char *name;  /* "lz4", "zstd", "libdeflate", "zlib", "zfp" or "xxhash" */
    char version[32];  /* e.g. "1.9.4" */
    int runtime;       /* 1: asked from the library loaded in this process (LZ4_versionString,
                        * ZSTD_versionString, zlibVersion, zfp_library_version,
                        * XXH_versionNumber); 0: the header libb2 was built with
                        * (libdeflate has no run-time query) */
    const char *uses;  /* what libb2 runs on it: codec names, space-separated, or
                        * "checksums" (and "ndlz-encoding") for xxhash */
} b2_codec_library_info;

/* Fills *info with the index-th library (0, 1, ... in a fixed order: lz4, zstd,
 * libdeflate, then zlib and zfp when this build uses them, then xxhash) and
 * returns B2_OK; B2_ERR_RANGE past the last, B2_ERR_INVALID_PARAM for a NULL
 * info. Any thread may call it. */
B2_API int b2_codec_library(int index, b2_codec_library_info *info);

/* ---- decoding settings and VL blocks ---- */

/* Block geometry for later calls (copied; NULL or ndim 0 clears it). A chunk
 * decoded on its own needs it when it uses ndcell, ndmean, ndlz or zfp; the
 * frame and b2nd layers set it from the b2nd metalayer themselves. */
B2_API int b2_dctx_set_geometry(b2_dctx *dctx, const b2_block_geometry *geometry);
/* User filters and codecs for later calls: registry is searched before the
 * process table (b2_plugin.h; NULL: the process table alone). Not copied: it
 * must outlive its use by the context. */
B2_API int b2_dctx_set_registry(b2_dctx *dctx, const b2_registry *registry);
/* Decode one block of a VL-block chunk into dst. Returns its size or an error. */
B2_API int b2_chunk_vl_get_block(b2_dctx *dctx, const void *src, size_t srcsize,
                                 int32_t nblock, void *dst, size_t dstcap);

/* ---- block size rule ---- */

/* Blocksize the encoder uses for nbytes with parameters p (automatic rule or p->blocksize). */
B2_API int32_t b2_chunk_blocksize_for(const b2_cparams *p, int32_t nbytes);

#ifdef __cplusplus
}
#endif

#endif
