/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal declarations of the chunk layer (shared by decoder and encoder). */
#ifndef B2_CHUNK_INTERNAL_H
#define B2_CHUNK_INTERNAL_H

#include "b2_chunk_experimental.h"
#include "b2_internal.h"
#include "codecs.h"
#include "filters.h"
#include "b2_chunk_experimental.h"

/* Whether the pipeline of a parsed header contains a DELTA slot. */
static inline int b2_info_has_delta(const b2_chunk_info *info)
{
    for (int i = 0; i < B2_MAX_FILTERS; i++)
        if (info->filters[i] == B2_FILTER_DELTA)
            return 1;
    return 0;
}

/* Fill a pipeline description from a parsed header. */
static inline void b2_info_pipeline(const b2_chunk_info *info, b2_pipeline *p)
{
    memcpy(p->filters, info->filters, 6);
    memcpy(p->metas, info->filters_meta, 6);
    p->typesize = info->typesize;
    p->version = info->version;
}

/* ---- chunk_rows.c: blocks as rows of the caller's memory ---- */
/* Drop unit dimensions, check that every row lies inside a block of bsize bytes,
 * and merge trailing dimensions contiguous on both sides into the run. */
B2_HIDDEN int b2_rows_normalize(b2_block_rows *r, int32_t bsize);
/* Whether every row (of a normalized r) starts and ends on a whole unit. */
B2_HIDDEN int b2_rows_aligned(const b2_block_rows *r, int32_t unit);
/* Bytes covered by the rows of a normalized r. */
B2_HIDDEN int64_t b2_rows_bytes(const b2_block_rows *r);
/* One past the last block byte the rows touch (after b2_rows_normalize). */
B2_HIDDEN int64_t b2_rows_end(const b2_block_rows *r);
/* Call fn(op, offset in the block, caller's row, run) for every row. */
typedef void (*row_fn)(const void *op, int64_t off, uint8_t *user, int64_t len);
B2_HIDDEN void b2_rows_walk(const b2_block_rows *r, row_fn fn, const void *op);

#endif
