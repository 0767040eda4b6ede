/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame layer's reader API for the layers above it (b2nd/): what one read
 * call takes from a super-chunk, without the handle's insides
 * (frame_internal.h stays private to frame/).
 *
 * A call takes a reader, reads chunks through it and gives it back; readers
 * are per call, so threads reading one handle at once never share a decoding
 * context or a buffer. */
#ifndef B2_FRAME_READER_H
#define B2_FRAME_READER_H

#include <stdint.h>

#include "b2_chunk.h"
#include "b2_frame_experimental.h"
#include "b2_internal.h"

typedef struct frame_rd frame_rd; /* defined in frame_internal.h */

/* An idle reader of s, or a new one; NULL (recorded) when out of memory. */
B2_HIDDEN frame_rd *b2_frame_rd_get(b2_schunk *s);
/* Give r back to s (NULL is fine). */
B2_HIDDEN void b2_frame_rd_put(b2_schunk *s, frame_rd *r);
/* r's decoding context (made with s's threads, registry and geometry). */
B2_HIDDEN b2_dctx *b2_frame_rd_dctx(frame_rd *r);
/* Chunk i's bytes, as b2_schunk_chunk_view gives them (an error is kept in s
 * too) but in r's buffers: the view stays valid while r is held (schunk.c). */
B2_HIDDEN int b2_frame_rd_chunk_view(b2_schunk *s, frame_rd *r, int64_t i, const uint8_t **chunk,
                                     int32_t *cbytes);

#endif
