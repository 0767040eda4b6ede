/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal declarations of the chunk encoder (doc/format/chunk.md §13): the
 * parameters' pipeline, blocksize tuning, the split rule, dictionary building and
 * special-chunk headers. */
#ifndef B2_CHUNK_ENCODE_H
#define B2_CHUNK_ENCODE_H

#include "b2_chunk_experimental.h"
#include "b2_internal.h"
#include "filters.h"

/* The typesize a header stores: sizes past B2_MAX_TYPESIZE are stored as 1. */
static inline int32_t b2_header_typesize(int32_t t) { return t > B2_MAX_TYPESIZE ? 1 : t; }

/* The filter pipeline parameters p describe, as the header will store it
 * (chunk_params.c; p->geometry and p->registry are pointed at, not copied). */
B2_HIDDEN void b2_cparams_pipeline(const b2_cparams *p, b2_pipeline *pl);

/* Split decision of doc/format/chunk.md §13.3 for a given typesize and block size (the
 * typesize is whatever the caller's step uses: requested T or header t). */
B2_HIDDEN int b2_tune_split(const b2_cparams *p, int64_t typesize, int64_t blocksize);

/* Effective blocksize (doc/format/chunk.md §13.2) for nbytes with parameters p; always a
 * multiple of the requested typesize when larger than it, and <= nbytes when
 * nbytes > 0. Parameters are assumed valid (b2_cparams_check). */
B2_HIDDEN int32_t b2_tune_blocksize(const b2_cparams *p, int32_t nbytes);

/* Dictionary for one chunk (doc/format/codecs.md §6). samples holds the nbytes of filtered
 * blocks laid end to end; nblocks and split describe the chunk. On success writes
 * up to B2_MAX_DICT_SIZE bytes to dict and returns its size; returns 0 when no
 * useful dictionary can be made, or a negative error. */
B2_HIDDEN int b2_dict_build(int codec, const uint8_t *samples, int32_t nbytes,
                            int32_t nblocks, int32_t typesize, int split, uint8_t *dict);

/* Special-value chunk with the blocksize chosen as for parameters p (the header
 * typesize comes from p->typesize; the value, for B2_SPECIAL_VALUE, has
 * p->typesize bytes). Returns cbytes or a negative error. */
B2_HIDDEN int b2_chunk_make_special_ex(const b2_cparams *p, int special, int32_t nbytes,
                                       const void *value, void *dst, size_t dstcap);

#endif
