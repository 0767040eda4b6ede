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

/* ---- settings: registry and a lent context ---- */

/* Decode later reads with a caller-owned context (its threads and scratch are
 * reused across arrays); NULL returns to the array's own. The caller keeps it
 * alive while the array uses it and frees it, and uses it nowhere else while
 * the array may (a context is one thread's at a time). */
B2_API int b2_nd_set_dctx(b2_nd_array *a, b2_dctx *dctx);
/* User filters and codecs (b2_plugin.h) for later reads and writes, searched
 * before the process table (NULL: the process table alone); also set on the
 * super-chunk and on a context lent with b2_nd_set_dctx. Not copied: it must
 * outlive a. Arrays made from cparams start with cparams->registry; opened ones
 * with none. */
B2_API int b2_nd_set_registry(b2_nd_array *a, const b2_registry *registry);

/* ---- default shapes ---- */

/* Complete p's zero chunk/block shape entries with the default rule: fill from
 * the last dimension backwards up to a target size (chunk 4 MiB, block 256 KiB),
 * preferring divisors of the shape. Returns B2_OK or an error for a bad shape. */
B2_API int b2_nd_default_shapes(b2_nd_params *p);

/* ---- the "b2nd" metalayer ---- */

/* Decoded metalayer. dtype is malloc'ed and NUL-terminated (dtype_len bytes before
 * the NUL), or NULL for the legacy layouts without dtype (dtype_format is then -1). */
typedef struct b2_nd_meta {
    int version;
    int ndim;
    int64_t shape[B2_ND_MAX_DIM];
    int32_t chunkshape[B2_ND_MAX_DIM];
    int32_t blockshape[B2_ND_MAX_DIM];
    int dtype_format;
    char *dtype;
    int32_t dtype_len;
} b2_nd_meta;

/* Decode and validate metalayer bytes (the 7-element b2nd form, the same without
 * dtype, or the 5-element caterva form). Validates markers, ndim <= 16, no negative
 * sizes, chunk/block > 0 where shape > 0, no product overflow. On success the caller
 * owns m->dtype (b2_nd_meta_clear). */
B2_API int b2_nd_meta_decode(const void *buf, size_t len, b2_nd_meta *m);
/* Encode m in the exact fixed-width layout c-blosc2 writes (int64 shape, int32
 * chunk/block shapes, str32 dtype; "|u1" when m->dtype is NULL). *out is malloc'ed. */
B2_API int b2_nd_meta_encode(const b2_nd_meta *m, uint8_t **out, int32_t *len);
/* Length of the encoded metalayer: 12 + 19*ndim + dtype_len. */
B2_API int32_t b2_nd_meta_encoded_len(int ndim, size_t dtype_len);
/* Free m->dtype and reset it to NULL (m may be reused). */
B2_API void b2_nd_meta_clear(b2_nd_meta *m);

/* ---- NumPy dtype strings ---- */

/* Item size implied by a NumPy typestr ("<i4" -> 4, "|S7" -> 7, "<U3" -> 12, "|V5" -> 5,
 * big-endian ">f8" -> 8); 0 when it cannot be known from the string (structured or
 * other opaque descriptions, kept as labels); B2_ERR_INVALID_PARAM if malformed. */
B2_API int32_t b2_nd_dtype_itemsize(const char *dtype);
/* Write the default dtype c-blosc2 uses for typesize ("|S<typesize>") into buf
 * (capacity cap). Returns its length. */
B2_API int b2_nd_dtype_default(int32_t typesize, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
