/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal declarations of the chunk decoder (doc/format/chunk.md §4-§11): the
 * context, a validated chunk (its view) and the block decoding shared by whole-
 * chunk (chunk_decompress.c), item (chunk_getitem.c) and row (chunk_decode_rows.c)
 * calls. */
#ifndef B2_CHUNK_DECODE_H
#define B2_CHUNK_DECODE_H

#include <stdlib.h>
#include "chunk_internal.h"
#include "pool.h"
#include "b2_chunk_experimental.h"

/* Per-thread decoding state: codec library contexts and block scratch. */
typedef struct b2_dworker {
    b2_codec_state cs;
    uint8_t *scratch;
    size_t cap;
} b2_dworker;

struct b2_dctx {
    int nthreads;
    int64_t blocks_decoded; /* updated atomically: workers share it */
    b2_dworker *workers;    /* nthreads entries */
    uint8_t *ref;           /* decoded block 0 of a delta chunk (rows decoding) */
    size_t refcap;
    uint8_t *item;          /* getitem's block buffer, kept between calls */
    size_t itemcap;
    b2_pool *pool;          /* threads kept between calls (created on first use) */
    b2_block_geometry geom; /* for the n-dimensional plugins (ndim 0: none) */
    const b2_registry *reg; /* user filters and codecs before the process table (not owned) */
    int64_t mem_limit;      /* working memory per chunk (b2_dctx_set_memory_limit; 0: default) */
    b2_postfilter_fn post;  /* b2_dctx_set_postfilter (NULL: none) */
    void *post_user;
    int64_t nchunk;         /* passed to the postfilter (b2_dctx_set_nchunk) */
    b2_errinfo err;         /* last failure of a call on this context */
};

/* A validated chunk being decoded (read-only while blocks decode in parallel). */
typedef struct chunk_view {
    const uint8_t *src;
    int32_t bound;      /* bytes that may be read: min(cbytes, size) */
    b2_chunk_info info;
    b2_pipeline pipe;
    int filtered;       /* some filter must be undone */
    int has_delta;
    const uint8_t *dict;
    int32_t dict_len;
    void *ddict;        /* digested dictionary (zstd), owned: b2_view_close frees it */
    int32_t data_start; /* first byte after bstarts and the dictionary */
    int32_t unshuffle_unit; /* > 1: the only filter to undo is a byte shuffle of this unit */
    int bitunshuffle_only;  /* the only filter to undo is a bit shuffle */
    b2_codec_use codec;     /* blocksize set per block */
} chunk_view;

/* Worker w's scratch grown to n bytes (contents not kept); NULL without memory. */
static inline uint8_t *b2_dworker_scratch(b2_dworker *w, size_t n)
{
    if (w->cap < n) {
        uint8_t *p = realloc(w->scratch, n);
        if (!p)
            return NULL;
        w->scratch = p;
        w->cap = n;
    }
    return w->scratch;
}

/* Point a worker's codec state at the chunk's dictionary (or at none). */
static inline void b2_dworker_use_dict(b2_dworker *w, const chunk_view *v)
{
    w->cs.dict = v->dict;
    w->cs.dict_len = v->dict_len;
    w->cs.zstd_ddict = v->ddict;
}

/* Bytes of block j (the last one may be a leftover). */
static inline int32_t b2_view_block_size(const chunk_view *v, int32_t j)
{
    const b2_chunk_info *in = &v->info;
    return (j == in->nblocks - 1 && in->leftover) ? in->leftover : in->eff_blocksize;
}

/* The unit when block j is split into one stream per byte plane and a byte
 * shuffle of that unit is the only filter to undo (streams = planes), else 0. */
static inline int32_t b2_view_split_unshuffle_unit(const chunk_view *v, int32_t j,
                                                    int32_t bsize)
{
    const b2_chunk_info *in = &v->info;
    int32_t unit = v->unshuffle_unit;
    if (unit < 2 || unit > B2_PLANES_MAX || !in->split || unit != in->typesize ||
        (j == in->nblocks - 1 && in->leftover) || bsize % unit)
        return 0;
    return unit;
}

/* Free what a view owns; safe on a zeroed view b2_view_open never filled. */
static inline void b2_view_close(chunk_view *v) { b2_codec_ddict_free(v->ddict); }

/* ---- chunk_view.c: validation before any block ---- */
/* Validate everything outside the blocks' streams (doc/format/chunk.md §9 steps
 * 1-12) into v, with the context's geometry, registry and memory limit. */
B2_HIDDEN int b2_view_open(const uint8_t *src, size_t size, const b2_dctx *d, chunk_view *v);
/* b2_view_open for the item- and block-addressed calls (no VL-block chunks). */
B2_HIDDEN int b2_view_open_fixed(const uint8_t *src, size_t size, const b2_dctx *d,
                                 chunk_view *v);

/* ---- chunk_block.c: one block ---- */
/* Block j's streams into out; pl and need as documented at the definition. */
B2_HIDDEN int b2_block_decode_streams(const chunk_view *v, b2_dworker *w, int32_t j,
                                      int32_t bsize, uint8_t *out, const uint8_t **pl,
                                      int32_t need);
/* Block j decoded into out (ref: decoded block 0, the delta reference, or NULL). */
B2_HIDDEN int b2_block_decode(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                              uint8_t *out, const uint8_t *ref);
/* n bytes of a special chunk's content from byte offset of the chunk into dst. */
B2_HIDDEN void b2_block_fill_special(const chunk_view *v, int64_t offset, uint8_t *dst,
                                     int64_t n);
/* The context's postfilter (if any) on block j of size bytes at blk. */
B2_HIDDEN int b2_block_postfilter(const chunk_view *v, b2_dctx *d, const b2_dworker *w,
                                  int32_t j, int64_t offset, int32_t size, uint8_t *blk);
/* Block j of a fixed-block chunk, special ones included, through the postfilter. */
B2_HIDDEN int b2_block_out(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                           uint8_t *out, const uint8_t *ref);
/* Block 0 of a delta chunk decoded once into the context's buffer (*ref). */
B2_HIDDEN int b2_block_decode_ref(const chunk_view *v, b2_dctx *d, const uint8_t **ref);
/* A VL-block chunk's table checked, with each block's output offset (offs[nblocks+1]). */
B2_HIDDEN int b2_vl_layout(const chunk_view *v, int64_t *offs);
/* VL block j decoded into out. */
B2_HIDDEN int b2_vl_block_decode(const chunk_view *v, b2_dctx *d, b2_dworker *w, int32_t j,
                                 uint8_t *out);

/* ---- chunk_dctx.c: the context's threads ---- */
typedef void (*b2_dworker_fn)(void *job, b2_dworker *w);
/* Run fn(job, worker) on nt workers of the context's pool (the caller is worker 0)
 * and wait for all; fn shares the work through an atomic counter. */
B2_HIDDEN void b2_dctx_run(b2_dctx *d, int nt, b2_dworker_fn fn, void *job);

#endif
