/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal filter layer: byte shuffle, bit shuffle, delta, trunc_prec, and the
 * 6-slot pipeline applied to one block (doc/format/filters.md). None of these functions
 * writes into its source buffer unless it says "in place". */
#ifndef B2_FILTERS_H
#define B2_FILTERS_H

#include <stdint.h>
#include "b2_chunk.h"
#include "b2_internal.h"

/* ---- byte shuffle (shuffle.c + SIMD kernels): n bytes, unit bytes per element ---- */
B2_HIDDEN void b2_shuffle(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_unshuffle(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
/* Portable versions, always built (the dispatchers fall back to them; tests compare). */
B2_HIDDEN void b2_shuffle_generic(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_unshuffle_generic(int32_t unit, int32_t n, const uint8_t *src, uint8_t *dst);

/* Part kernels: n whole elements of a block whose q-byte planes start at
 * `planes`. Shuffle scatters n contiguous elements at in into the planes at
 * element offset i0 (out = planes + i0); unshuffle gathers them (in = planes +
 * i0) into n contiguous elements at out; unit 1 is a plain copy of n bytes.
 * The *_kernel calls give the one for this CPU's level, so callers walking
 * many rows of one block dispatch once (kernels accept n >= 0). */
typedef void (*b2_part_fn)(int32_t unit, int32_t q, int32_t n, const uint8_t *in, uint8_t *out);
B2_HIDDEN b2_part_fn b2_shuffle_part_kernel(int32_t unit);
B2_HIDDEN b2_part_fn b2_unshuffle_part_kernel(int32_t unit);
B2_HIDDEN void b2_shuffle_part_generic(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                       uint8_t *out);
B2_HIDDEN void b2_unshuffle_part_generic(int32_t unit, int32_t q, int32_t n, const uint8_t *in,
                                         uint8_t *out);

/* Planes kernels: unshuffle elements [i0, i0+n) of a block whose unit byte
 * planes lie anywhere (pl[j] is plane j's first byte) into n contiguous elements
 * at out. The decoder points planes that a block stores raw straight at the
 * chunk, so they are never copied first. */
#define B2_PLANES_MAX 256 /* larger units take the part kernels */
typedef void (*b2_planes_fn)(int32_t unit, const uint8_t *const *pl, int32_t i0, int32_t n,
                             uint8_t *out);
B2_HIDDEN b2_planes_fn b2_unshuffle_planes_kernel(int32_t unit);
B2_HIDDEN void b2_unshuffle_planes_generic(int32_t unit, const uint8_t *const *pl, int32_t i0,
                                           int32_t n, uint8_t *out);

/* ---- bit shuffle (bitshuffle.c + SIMD kernels) ---- */
B2_HIDDEN void b2_bitshuffle(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst);
/* legacy_v2: chunk format version 2 rule (doc/format/filters.md §3.4). */
B2_HIDDEN void b2_bitunshuffle(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst,
                               int legacy_v2);
B2_HIDDEN void b2_bitshuffle_generic(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_bitunshuffle_generic(int32_t typesize, int32_t n, const uint8_t *src,
                                       uint8_t *dst, int legacy_v2);
/* Version-2 (Blosc 1.x) rule: 1 when a block of n bytes was left unshuffled. */
B2_HIDDEN int b2_bitshuffle_legacy_untouched(int32_t typesize, int32_t n);
/* Version-2 rule: zero the n % typesize spare bytes Blosc 1.x never wrote. */
B2_HIDDEN void b2_bitshuffle_legacy_clear(int32_t typesize, int32_t n, uint8_t *dst);

/* ---- delta (delta.c). ref == NULL: this is block 0 (running XOR); otherwise ref
 * points at the decoded block 0 of the chunk (at least n bytes). Tail bytes past
 * the last whole word are copied unchanged. ---- */
B2_HIDDEN void b2_delta_encode(const uint8_t *ref, int32_t typesize, int32_t n,
                               const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_decode(const uint8_t *ref, int32_t typesize, int32_t n,
                               const uint8_t *src, uint8_t *dst);
/* The portable kernels behind them (the SIMD ones are in simd_kernels.h). */
typedef void (*b2_delta_fn)(const uint8_t *ref, int32_t typesize, int32_t n, const uint8_t *src,
                            uint8_t *dst);
B2_HIDDEN void b2_delta_encode_generic(const uint8_t *ref, int32_t typesize, int32_t n,
                                       const uint8_t *src, uint8_t *dst);
B2_HIDDEN void b2_delta_decode_generic(const uint8_t *ref, int32_t typesize, int32_t n,
                                       const uint8_t *src, uint8_t *dst);
/* XOR word size u of the delta filter: the typesize if 1, 2, 4 or 8, else 8 if
 * the typesize is a multiple of 8, else 1. */
static inline int32_t b2_delta_unit(int32_t typesize)
{
    if (typesize == 1 || typesize == 2 || typesize == 4 || typesize == 8)
        return typesize;
    if (typesize > 0 && typesize % 8 == 0)
        return 8;
    return 1;
}

/* ---- trunc_prec (trunc_prec.c): meta is the signed precision byte. Returns 0 or
 * B2_ERR_FILTER for a typesize other than 4/8 or an out-of-range precision. ---- */
B2_HIDDEN int b2_trunc_prec(int8_t meta, int32_t typesize, int32_t n,
                            const uint8_t *src, uint8_t *dst);

/* ---- registered plugin filters (doc/format/plugins.md) ---- */
/* bytedelta (bytedelta.c): typesize streams of n / typesize bytes each; buggy
 * selects the decoder of id 34. Return 0 or B2_ERR_FILTER for a typesize
 * outside 1..255. */
B2_HIDDEN int b2_bytedelta_encode(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN int b2_bytedelta_decode(int32_t typesize, int32_t n, const uint8_t *src, uint8_t *dst,
                                  int buggy);
/* int_trunc (int_trunc.c): meta is the signed bits byte; n = 0 only validates.
 * Returns 0 or B2_ERR_FILTER for a typesize other than 1/2/4/8 or a bad meta. */
B2_HIDDEN int b2_int_trunc(int8_t meta, int32_t typesize, int32_t n, const uint8_t *src,
                           uint8_t *dst);

/* ndcell (ndcell.c, filter 32): reorders a block of geom's shape cell by cell
 * (cells of side meta, read unsigned: 1..255; partial at the far edges);
 * n must be the whole block, holding at least meta^ndim items.
 * ndmean (ndmean.c, filter 33, lossy): float32/float64 blocks; each cell (side
 * meta, signed: 1..127, cut to the block) becomes its mean, the cells written
 * in ndcell's order; backward scatters them back.
 * All return 0 or B2_ERR_FILTER with a message (no geometry, n not the block
 * size, bad meta or typesize). n = 0 with NULL buffers only validates: without
 * a geometry (cparams checked before a frame's b2nd metalayer exists) just meta
 * and typesize, with one the block shape too. */
B2_HIDDEN int b2_ndcell_forward(int8_t meta, int32_t typesize, const b2_block_geometry *geom,
                                int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN int b2_ndcell_backward(int8_t meta, int32_t typesize, const b2_block_geometry *geom,
                                 int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN int b2_ndmean_forward(int8_t meta, int32_t typesize, const b2_block_geometry *geom,
                                int32_t n, const uint8_t *src, uint8_t *dst);
B2_HIDDEN int b2_ndmean_backward(int8_t meta, int32_t typesize, const b2_block_geometry *geom,
                                 int32_t n, const uint8_t *src, uint8_t *dst);

/* ---- pipeline (pipeline.c) ---- */
typedef struct b2_pipeline {
    uint8_t filters[6];
    uint8_t metas[6];
    int32_t typesize;  /* header typesize (after the cap to 1) */
    int version;       /* chunk format version: 2 selects the old bitunshuffle, 3 ignores slot 5 */
    const b2_block_geometry *geom; /* for ndcell/ndmean; NULL: none known */
    const b2_registry *reg;        /* user filters (ids 160..255): searched before the
                                      process table; NULL: the process table alone */
} b2_pipeline;

/* Whether any slot holds a filter (so a block needs processing at all). */
B2_HIDDEN int b2_pipeline_active(const b2_pipeline *p);
/* The shuffle unit when applying (forward) or undoing the pipeline is exactly one
 * byte shuffle of a unit above 1 (what coders may fuse with the caller's rows), else 0. */
B2_HIDDEN int32_t b2_pipeline_single_shuffle(const b2_pipeline *p, int forward);
/* Whether undoing the pipeline is exactly one bit unshuffle (of the typesize). */
B2_HIDDEN int b2_pipeline_single_bitshuffle(const b2_pipeline *p);
/* Check that every filter id is known and its parameters usable for encoding. */
B2_HIDDEN int b2_pipeline_check(const b2_pipeline *p);
/* Check only that every filter id is one this pipeline can run (built in, or a
 * registered user filter); B2_ERR_UNSUPPORTED naming the id and slot if not. */
B2_HIDDEN int b2_pipeline_check_ids(const b2_pipeline *p);

/* Forward filters on one block of n bytes. delta_ref as for b2_delta_encode.
 * tmp_a and tmp_b are scratch buffers of n bytes; *out receives src itself (no
 * active filters) or one of the scratch buffers. Returns 0 or a negative error. */
B2_HIDDEN int b2_pipeline_forward(const b2_pipeline *p, const uint8_t *src, int32_t n,
                                  const uint8_t *delta_ref, uint8_t *tmp_a, uint8_t *tmp_b,
                                  const uint8_t **out);
/* Undo the filters (slots 5..0, trunc_prec skipped) on one block: src holds the n
 * joined stream bytes and may be overwritten; tmp is n bytes of scratch; the
 * result is written to dst. Returns 0 or a negative error. */
B2_HIDDEN int b2_pipeline_backward(const b2_pipeline *p, uint8_t *src, int32_t n,
                                   const uint8_t *delta_ref, uint8_t *tmp, uint8_t *dst);

#endif
