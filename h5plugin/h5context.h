/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread state of the filter, kept between calls (internal to the plugin). */
#ifndef B2_H5CONTEXT_H
#define B2_H5CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "b2_chunk.h"
#include "h5common.h"

/* What one thread's filter calls reuse: a decoding context (its threads'
 * scratch), a compression context for the last parameters seen, and two
 * growable buffers. */
typedef struct b2_h5_ctx {
    b2_dctx *dctx;
    b2_cctx *cctx;
    b2_cparams cparams; /* cctx's parameters */
    uint8_t *buf[2];
    size_t cap[2];
} b2_h5_ctx;

/* This thread's state, created on first use with nthreads decoding threads
 * (updated when it changed). NULL when out of memory: callers then work without. */
B2_HIDDEN b2_h5_ctx *b2_h5_ctx_get(int nthreads);

/* A compression context for cp, reused while the parameters stay the same. */
B2_HIDDEN b2_cctx *b2_h5_ctx_cctx(b2_h5_ctx *c, const b2_cparams *cp);

/* Buffer i (0 or 1) of at least n bytes, kept for later calls; NULL when out of memory. */
B2_HIDDEN uint8_t *b2_h5_ctx_buffer(b2_h5_ctx *c, int i, size_t n);

#endif
