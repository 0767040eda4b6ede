/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal pieces of the b2nd layer (not installed). */
#ifndef B2_ND_INTERNAL_H
#define B2_ND_INTERNAL_H

#include "b2_internal.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"
#include "b2_chunk_experimental.h"
#include "b2nd_api.h"

/* Derived geometry of an array (doc/format/b2nd.md §2). All products are checked. */
typedef struct b2_nd_geom {
    int ndim;
    int32_t typesize;
    int64_t shape[B2_ND_MAX_DIM];
    int32_t chunkshape[B2_ND_MAX_DIM];
    int32_t blockshape[B2_ND_MAX_DIM];
    int32_t extchunkshape[B2_ND_MAX_DIM];   /* chunkshape rounded up to whole blocks */
    int64_t chunks_in_array[B2_ND_MAX_DIM]; /* ceil(shape / chunkshape) */
    int32_t blocks_in_chunk[B2_ND_MAX_DIM]; /* ceil(chunkshape / blockshape) */
    int64_t nitems;         /* product of shape */
    int64_t nchunks;        /* product of chunks_in_array (0 if any shape is 0) */
    int32_t chunknitems;    /* product of chunkshape */
    int32_t blocknitems;    /* product of blockshape */
    int32_t extchunknitems; /* product of extchunkshape */
    int32_t nblocks;        /* blocks per chunk */
    int32_t chunk_bytes;    /* extchunknitems * typesize: nbytes of every chunk */
    int32_t block_bytes;    /* blocknitems * typesize: Blosc2 blocksize */
} b2_nd_geom;

/* ---- b2_nd_geometry.c ---- */
/* Validate shapes (ndim <= 16, no negatives, chunk/block > 0 where shape > 0, no
 * overflow, chunk bytes within one Blosc2 buffer) and derive everything. */
B2_HIDDEN int b2_nd_geom_init(b2_nd_geom *g, int ndim, const int64_t *shape,
                             const int32_t *chunkshape, const int32_t *blockshape,
                             int32_t typesize);
/* Same validation as b2_nd_geom_init without the typesize limits. */
B2_HIDDEN int b2_nd_shapes_check(int ndim, const int64_t *shape, const int32_t *chunkshape,
                                const int32_t *blockshape);
/* The C-order fast-path condition of doc/format/b2nd.md §3: a full interior chunk decodes straight
 * to C order. */
B2_HIDDEN int b2_nd_geom_chunk_is_c_order(const b2_nd_geom *g);

/* What one call reading an array uses for itself, so that threads may read one
 * array at once: a reader of the super-chunk (its scratch, frame_reader.h) and
 * a decoding context, the lent one when no other call is using it. */
struct frame_rd;
typedef struct nd_reader {
    struct frame_rd *r;
    b2_dctx *d;     /* the lent context, or r's */
    int lent;       /* d is the lent context: give it back when done */
    int64_t before; /* d's blocks decoded at the start */
} nd_reader;

/* ---- b2_nd_storage.c: the only code that talks to the super-chunk ---- */
/* Take a reader for one call (B2_ERR_NOMEM when none can be made). */
B2_HIDDEN int b2_nd_st_reader(b2_nd_array *a, nd_reader *x);
/* Give it back, counting the blocks it decoded for the array. */
B2_HIDDEN void b2_nd_st_reader_done(b2_nd_array *a, nd_reader *x);
B2_HIDDEN int64_t b2_nd_st_nchunks(b2_nd_array *a);
/* Special kind of chunk i (enum b2_special); B2_ERR_CORRUPT unless it has the
 * padded chunk size. */
B2_HIDDEN int b2_nd_st_chunk_special(b2_nd_array *a, int64_t i);
/* malloc'ed copy of chunk i (a complete chunk; specials rebuilt). */
B2_HIDDEN int b2_nd_st_get_chunk(b2_nd_array *a, int64_t i, uint8_t **chunk, int32_t *cbytes);
/* Chunk i's stored bytes without a copy, valid until x's next view. */
B2_HIDDEN int b2_nd_st_chunk_view(b2_nd_array *a, nd_reader *x, int64_t i, const uint8_t **chunk,
                                  int32_t *cbytes);
B2_HIDDEN int b2_nd_st_update_chunk(b2_nd_array *a, int64_t i, const uint8_t *chunk, int32_t cbytes);
B2_HIDDEN int b2_nd_st_insert_chunk(b2_nd_array *a, int64_t i, const uint8_t *chunk, int32_t cbytes);
B2_HIDDEN int b2_nd_st_delete_chunk(b2_nd_array *a, int64_t i);
/* Rewrite the array's metalayer (same length) from a->meta. */
B2_HIDDEN int b2_nd_st_write_meta(b2_nd_array *a);

/* ---- the array object ---- */
struct b2_nd_array {
    b2_errinfo err;    /* last failure of a call on this array */
    b2_nd_meta meta;
    b2_nd_geom g;
    char meta_name[8]; /* "b2nd" or "caterva": where the shape lives */
    b2_schunk *sc;
    b2_dctx *lent;     /* a context lent with b2_nd_set_dctx, or NULL (readers' own) */
    int lent_busy;     /* atomic: a read is using lent; concurrent ones use their reader's */
    b2_cctx *cctx;     /* created on the first write */
    b2_cparams cparams;
    int64_t blocks_decoded;     /* atomic: blocks this array's reads decoded */
    int64_t blocks_read_lazily; /* atomic: of those, from bytes read block by block (for tests) */
    int64_t mem_limit;          /* b2_nd_set_memory_limit (0: default) */
    b2_postfilter_fn post;      /* b2_nd_set_postfilter: on a read's context per chunk */
    void *post_user;
};

/* ---- b2_nd_slice.c ---- */
/* Compress a full padded chunk (g->chunk_bytes at buf) with the array's cparams
 * into a malloc'ed chunk. */
B2_HIDDEN int b2_nd_compress_chunk(b2_nd_array *a, const uint8_t *buf, uint8_t **chunk,
                                  int32_t *cbytes);
/* An empty super-chunk for a new array: in memory (st NULL or memory), a file or
 * a sparse directory, chunks defaulting to cp. */
B2_HIDDEN int b2_nd_new_schunk(const b2_nd_storage *st, const b2_cparams *cp, b2_schunk **out);
/* Validate p, fill in defaults, and create an array holding no chunks yet. */
B2_HIDDEN int b2_nd_create_bare(const b2_nd_params *p, const b2_nd_storage *st, b2_nd_array **out);
/* Chunk n's stored bytes (no copy; valid until x's next view) and its header,
 * checked to decode to exactly one padded chunk of the array. */
B2_HIDDEN int b2_nd_view_chunk(b2_nd_array *a, nd_reader *x, int64_t n, const uint8_t **chunk,
                               int32_t *cbytes, b2_chunk_info *info);
/* Decode blocks list[0..n) (list NULL: every block) of chunk nchunk, which is not
 * special, through fn/ud (b2_chunk_decompress_rows). On disk, when the blocks are at
 * most a quarter of the chunk, only their compressed bytes are read. */
B2_HIDDEN int b2_nd_decode_blocks(b2_nd_array *a, nd_reader *x, int64_t nchunk, const int32_t *list,
                                  int32_t n, b2_block_rows_fn fn, void *ud);
/* A copy of a in st (NULL: memory) with the same metalayers, vlmetalayers and
 * compressed chunks, the array's own metalayer replaced by meta[0..meta_len) when
 * meta is given; *out the new array (NULL: only stored, as b2_nd_save). */
B2_HIDDEN int b2_nd_clone(b2_nd_array *a, const b2_nd_storage *st, const uint8_t *meta,
                          int32_t meta_len, b2_nd_array **out);
/* Chunk i of an array being assembled: a malloc'ed complete chunk. */
typedef int (*b2_nd_chunk_fn)(void *ud, int64_t i, uint8_t **chunk, int32_t *cbytes);
/* b2_nd_clone with other chunks: nchunks of them, from chunk_of (meta, which
 * then gives their shapes, should be given). */
B2_HIDDEN int b2_nd_clone_with(b2_nd_array *a, const b2_nd_storage *st, const uint8_t *meta,
                               int32_t meta_len, int64_t nchunks, b2_nd_chunk_fn chunk_of,
                               void *ud, b2_nd_array **out);
/* Rebuild a->g from a->meta and the typesize. */
B2_HIDDEN int b2_nd_array_refresh_geom(b2_nd_array *a);

/* Product of n int64 values into *out; 0 if any is 0; -1 on overflow of limit. */
B2_HIDDEN int b2_nd_mul_checked(int64_t a, int64_t b, int64_t limit, int64_t *out);

/* The bodies of the public functions b2nd_api.c generates. */
B2_ND_HANDLE_API(B2_HANDLE_BODY)

#endif
