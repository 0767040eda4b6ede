/* SPDX-License-Identifier: BSD-3-Clause */
/* libb2 b2nd: N-dimensional arrays stored in a super-chunk (b2_frame.h) that carries
 * a "b2nd" metalayer (doc/format/b2nd.md). Each chunk of the super-chunk is one padded
 * N-d chunk of the array; each Blosc2 block inside it is one padded N-d block.
 *
 * Coordinates are int64 element indices; boxes are half-open [start, stop).
 * Buffers handed in or out are C-order (row-major) with no padding.
 *
 * Threads: a b2_nd_array may be used by one thread at a time, except that any
 * number of threads may read one at once with b2_nd_get_slice_cbuffer,
 * b2_nd_to_cbuffer and the property getters while none writes, resizes or
 * changes its settings (set_nthreads, set_dctx, set_registry); a context lent
 * with b2_nd_set_dctx serves one such read at a time, the others decode with
 * their own. As for frames, b2_nd_last_error of a shared array may show another
 * thread's failure; b2_last_error_message() is the calling thread's own.
 *
 * Functions returning int give a value >= 0 or a negative B2_ERR_* code
 * (b2_common.h). */
#ifndef B2_ND_H
#define B2_ND_H

#include "b2_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

#define B2_ND_MAX_DIM 16          /* c-blosc2 3.x limit (2.x readers stop at 8) */
#define B2_ND_META_NAME "b2nd"
#define B2_ND_META_LEGACY_NAME "caterva"
#define B2_ND_META_VERSION 0      /* format version c-blosc2 writes */
#define B2_ND_DTYPE_NUMPY 0       /* dtype_format: NumPy typestr */

/* ---- creating arrays ---- */

/* How to create an array. chunkshape/blockshape entries of 0 are filled by the
 * default rule (b2_nd_default_shapes); dtype NULL means "|S<typesize>". cparams
 * NULL means defaults; its typesize is replaced by typesize and its blocksize by
 * the block's byte size (a format requirement). */
/* A user metalayer stored after "b2nd" when an array is created. */
typedef struct b2_nd_user_meta {
    const char *name;
    const void *content;
    int32_t len;
} b2_nd_user_meta;

typedef struct b2_nd_params {
    int ndim;
    int64_t shape[B2_ND_MAX_DIM];
    int32_t chunkshape[B2_ND_MAX_DIM];
    int32_t blockshape[B2_ND_MAX_DIM];
    int32_t typesize;
    const char *dtype;
    const b2_cparams *cparams;
    int nmetalayers;                   /* at most 15 (16 metalayers in all) */
    const b2_nd_user_meta *metalayers;
} b2_nd_params;

/* Where a new array lives: B2_STORAGE_MEMORY (path ignored), B2_STORAGE_FILE (a
 * contiguous frame file) or B2_STORAGE_SPARSE (a new sframe directory). */
typedef struct b2_nd_storage {
    int kind;
    const char *path;
} b2_nd_storage;

/* How the chunks of a new array are initialised. */
enum b2_nd_fill {
    B2_ND_FILL_ZEROS = 0,  /* zero-special chunks (also "empty") */
    B2_ND_FILL_UNINIT = 1, /* uninit-special chunks: content unspecified */
    B2_ND_FILL_NANS = 2,   /* NaN-special chunks; typesize 4 or 8 */
    B2_ND_FILL_VALUE = 3,  /* each chunk a repeated-value chunk of the given value */
};

typedef struct b2_nd_array b2_nd_array;

/* New array filled as fill says (value: typesize bytes, only for B2_ND_FILL_VALUE). */
B2_API int b2_nd_create(const b2_nd_params *p, const b2_nd_storage *st, int fill,
                       const void *value, b2_nd_array **out);
/* New array holding the C-order buffer src of exactly nitems*typesize bytes. */
B2_API int b2_nd_from_cbuffer(const b2_nd_params *p, const b2_nd_storage *st,
                             const void *src, size_t len, b2_nd_array **out);
/* Copy of src into st with new chunk/block shapes (0 entries: the default rule);
 * with src's own shapes the compressed chunks and metalayers are copied as they are. */
B2_API int b2_nd_copy(b2_nd_array *src, const int32_t *chunkshape, const int32_t *blockshape,
                     const b2_nd_storage *st, b2_nd_array **out);

/* ---- opening and saving ---- */

/* Open a frame file or sframe directory holding a b2nd (or caterva) array. */
B2_API int b2_nd_open(const char *path, int flags, b2_nd_array **out);
/* Open an array from a contiguous frame in memory (copy: as b2_open_options.copy_buffer). */
B2_API int b2_nd_open_buffer(const void *buf, size_t len, int copy, b2_nd_array **out);
/* Wrap an open super-chunk; on success the array owns s (freed by b2_nd_free). */
B2_API int b2_nd_from_schunk(b2_schunk *s, b2_nd_array **out);
/* Serialize the array as one contiguous frame into a malloc'ed buffer. */
B2_API int b2_nd_to_frame_buffer(b2_nd_array *a, uint8_t **out, size_t *len);
/* Write the array as a new frame file or sframe directory (st->kind FILE or SPARSE). */
B2_API int b2_nd_save(b2_nd_array *a, const b2_nd_storage *st);
/* Free the array and its super-chunk (NULL is fine). */
B2_API void b2_nd_free(b2_nd_array *a);
/* b2_schunk_refresh with the shapes: 1 if changed, else 0. B2_ERR_CORRUPT when caught between
 * the commits of a writer's resize: call it again before reading. */
B2_API int b2_nd_refresh(b2_nd_array *a);

/* ---- properties ---- */

/* Message of the last failing call on this array ("" if none; see b2_common.h);
 * b2_nd_open... failures leave theirs in b2_last_error_message(). */
B2_API const char *b2_nd_last_error(const b2_nd_array *a);
/* Number of dimensions (0 for a scalar array). */
B2_API int b2_nd_ndim(const b2_nd_array *a);
B2_API const int64_t *b2_nd_shape(const b2_nd_array *a);       /* ndim entries */
B2_API const int32_t *b2_nd_chunkshape(const b2_nd_array *a);  /* ndim entries */
B2_API const int32_t *b2_nd_blockshape(const b2_nd_array *a);  /* ndim entries */
B2_API int32_t b2_nd_typesize(const b2_nd_array *a);   /* element width (from the frame) */
B2_API const char *b2_nd_dtype(const b2_nd_array *a);  /* label; never NULL */
B2_API int64_t b2_nd_nitems(const b2_nd_array *a);      /* product of shape */
B2_API b2_schunk *b2_nd_schunk(b2_nd_array *a);         /* underlying super-chunk */
/* Threads used by later reads and writes of this array (<= 0 means 1); the bytes
 * written do not depend on it. */
B2_API int b2_nd_set_nthreads(b2_nd_array *a, int nthreads);
/* Memory limit for later reads (<= 0: the default), on the super-chunk and the
 * array's context; for a larger index open the frame with a limit, then b2_nd_from_schunk. */
B2_API int b2_nd_set_memory_limit(b2_nd_array *a, int64_t bytes);

/* ---- reading and writing ---- */

/* Copy the whole array in C order into dst (capacity cap >= nitems*typesize). */
B2_API int b2_nd_to_cbuffer(b2_nd_array *a, void *dst, size_t cap);
/* Copy the box [start, stop) in C order into dst; only the blocks that intersect
 * the box are decoded. */
B2_API int b2_nd_get_slice_cbuffer(b2_nd_array *a, const int64_t *start, const int64_t *stop,
                                  void *dst, size_t cap);
/* Overwrite the box [start, stop) from the C-order buffer src (len bytes, exactly
 * the box's size); touched chunks are recompressed whole. */
B2_API int b2_nd_set_slice_cbuffer(b2_nd_array *a, const int64_t *start, const int64_t *stop,
                                  const void *src, size_t len);

/* Copy the selection sel[d][0..nsel[d]) of every dimension d into dst in C order
 * (NumPy's a[np.ix_(...)], negatives from the end), decoding only the blocks needed. */
B2_API int b2_nd_get_orthogonal_selection(b2_nd_array *a, const int64_t *const *sel,
                                         const int64_t *nsel, void *dst, size_t cap);
/* Write the C-order buffer src (shape nsel, len bytes) to the orthogonal selection;
 * of repeated indices the value last in C order wins. Touched chunks are recompressed. */
B2_API int b2_nd_set_orthogonal_selection(b2_nd_array *a, const int64_t *const *sel,
                                         const int64_t *nsel, const void *src, size_t len);

/* ---- changing the shape (c-blosc2 semantics, doc/format/b2nd.md §7) ---- */

/* Resize to new_shape, growing or shrinking at start (NULL: the ends; inside a
 * dimension: multiples of the chunkshape). New items read as zero. */
B2_API int b2_nd_resize(b2_nd_array *a, const int64_t *new_shape, const int64_t *start);
/* Insert the C-order buffer src (whole slabs across the other dimensions) along
 * axis at position pos. */
B2_API int b2_nd_insert(b2_nd_array *a, const void *src, size_t len, int axis, int64_t pos);
/* Append src along axis (an insert at shape[axis]). */
B2_API int b2_nd_append(b2_nd_array *a, const void *src, size_t len, int axis);
/* Delete [start, start+n) along axis (start and n multiples of the chunkshape
 * unless the range ends the dimension). */
B2_API int b2_nd_delete(b2_nd_array *a, int axis, int64_t start, int64_t n);
/* New array (in st) holding the box [start, stop) of src, with the given chunk
 * and block shapes (NULL: src's; 0 entries: default rule). */
B2_API int b2_nd_get_slice(b2_nd_array *src, const int64_t *start, const int64_t *stop,
                          const int32_t *chunkshape, const int32_t *blockshape,
                          const b2_nd_storage *st, b2_nd_array **out);
/* a and b joined along axis: into a new array *out in st, or (out NULL) a grows in
 * place; chunks are copied compressed when the grids line up. */
B2_API int b2_nd_concatenate(b2_nd_array *a, b2_nd_array *b, int axis, const b2_nd_storage *st,
                            b2_nd_array **out);
/* New array in st: a with extent-1 dimensions at the result's positions axes
 * (NumPy's expand_dims); the compressed chunks are copied, not shared. */
B2_API int b2_nd_expand_dims(b2_nd_array *a, const int *axes, int naxes, const b2_nd_storage *st,
                            b2_nd_array **out);
/* Copy of a without its dimensions of extent 1 (chunk/block extents dropped with
 * them), stored in st. */
B2_API int b2_nd_squeeze(b2_nd_array *a, const b2_nd_storage *st, b2_nd_array **out);

#ifdef __cplusplus
}
#endif
#endif
