/* SPDX-License-Identifier: BSD-3-Clause */
/* Chunk placement (frame layer, object sub-layer; internal): where a frame's
 * chunks go and how they leave it.
 *
 * The store (frame_store.h) says where bytes live; the placement says which
 * bytes a chunk takes: the chunks section, rewritten in place (memory frames,
 * the reference's layout); past the frame's end, committed by one header write
 * (files and user I/O, crash-safe); or a file of its own (sparse frames). The
 * handle's writes go through s->place, so the kinds differ in frame_place.c
 * and in these few properties, not in a branch at every write. */
#ifndef B2_FRAME_PLACE_H
#define B2_FRAME_PLACE_H

#include <stdint.h>

#include "b2_frame.h"
#include "b2_internal.h"

typedef struct frame_place {
    const char *kind; /* "memory", "file" (files and user I/O), "sparse" */
    /* The frame's bytes are the handle's own buffer: exact length, no other
     * writer, updates compact the chunks section in place. */
    int in_place;
    /* Nothing live is overwritten: new bytes go past the frame's end and one
     * header write commits them (schunk_write.c). */
    int crash_safe;
    /* Each chunk is a file of its own (a sparse frame, as its header says):
     * there is no chunks section to read, compact or count dead bytes in. */
    int chunk_files;
    /* Store the bytes of a new regular chunk; *entry: its index entry. */
    int (*put)(b2_schunk *s, const void *chunk, int32_t cbytes, int64_t *entry);
    /* Regular chunk pos (c stored bytes, or -1: read them) leaves the index:
     * account for its bytes. */
    int (*drop)(b2_schunk *s, int64_t pos, int32_t c);
    /* Once an index without entry old is committed: free what held it. */
    int (*after_commit)(b2_schunk *s, int64_t old);
    /* Write index, trailer and header from the handle's state. */
    int (*commit)(b2_schunk *s, int runlength_index);
    /* Write the frame anew while it holds no chunk (the header changed size). */
    int (*rewrite_empty)(b2_schunk *s);
    /* Metalayer content of unchanged size at header position pos. */
    int (*write_meta)(b2_schunk *s, int64_t pos, const void *content, int32_t len);
} frame_place;

/* The placement of a frame of storage kind storage (enum b2_frame_storage). */
B2_HIDDEN const frame_place *b2_frame_place_for(int storage);

#endif
