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

#ifdef __cplusplus
}
#endif

#endif
