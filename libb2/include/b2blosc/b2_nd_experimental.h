/* SPDX-License-Identifier: BSD-3-Clause */
/* Experimental b2nd functions: they may change or go in any release, unlike
 * those of b2_nd.h. A test probe and the in-place frame encoder the HDF5 filter
 * uses. */
#ifndef B2_ND_EXPERIMENTAL_H
#define B2_ND_EXPERIMENTAL_H

#include "b2_nd.h"
#include "b2_chunk_experimental.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks decoded so far by this array's reads, from all threads (for
 * partial-decoding checks); on disk, blocks read one by one through the frame's
 * lazy reader count once each. */
B2_API int64_t b2_nd_blocks_decoded(const b2_nd_array *a);

/* Postfilter (b2_chunk_experimental.h) for the items later reads return:
 * b2_nd_get_slice_cbuffer, b2_nd_to_cbuffer and b2_nd_get_orthogonal_selection
 * call it once for each block they decode, exactly the blocks holding items they
 * return, with nchunk the chunk's number; blocks of special chunks (zeros, NaN,
 * value, uninit as zeros) are filled and postfiltered too. The reads writes do
 * (set_slice, set_orthogonal_selection, resize, copies) never postfilter. Set it
 * while no read runs. fn NULL removes it. */
B2_API int b2_nd_set_postfilter(b2_nd_array *a, b2_postfilter_fn fn, void *user);

/* Called after each chunk a long operation writes: done of total chunks of the
 * result. A negative return stops the operation, which then returns it. */
typedef int (*b2_nd_progress_fn)(void *ud, int64_t done, int64_t total);
/* b2_nd_copy calling fn (NULL: none) after each chunk of the copy. */
B2_API int b2_nd_copy_with_progress(b2_nd_array *src, const int32_t *chunkshape,
                                    const int32_t *blockshape, const b2_nd_storage *st,
                                    b2_nd_progress_fn fn, void *ud, b2_nd_array **out);

/* ---- one-chunk frames written in place (what an HDF5 chunk stores) ---- */
/* Capacity b2_nd_encode_frame needs for an array of parameters p. */
B2_API int64_t b2_nd_encode_frame_bound(const b2_nd_params *p);
/* Compress an array that fits one chunk (p's shape within its chunkshape) from
 * its C-order items at src (len bytes) into a complete in-memory frame written
 * straight into dst: the compressor reads the blocks from src's rows, and the
 * frame is built around the chunk in place. cctx: NULL, or a context made for
 * p's cparams with typesize and blocksize (block bytes) filled in, reused across
 * calls. Same bytes as b2_nd_from_cbuffer + b2_nd_to_frame_buffer. Returns the
 * frame length or an error. */
B2_API int64_t b2_nd_encode_frame(const b2_nd_params *p, b2_cctx *cctx, const void *src, size_t len,
                                 void *dst, size_t cap);
/* Flags of b2_nd_encode_frame_with. */
enum { B2_ND_ENCODE_CHECKSUMS = 1 /* the frame holds its chunk's checksum (b2.checksums) */ };
/* b2_nd_encode_frame with flags (0: the same frame). */
B2_API int64_t b2_nd_encode_frame_with(const b2_nd_params *p, b2_cctx *cctx, int flags,
                                       const void *src, size_t len, void *dst, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
