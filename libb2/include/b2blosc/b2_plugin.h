/* SPDX-License-Identifier: BSD-3-Clause */
/* libb2 user filters and codecs: an application adds its own filter (a forward
 * and a backward function) or codec (a compress and a decompress function)
 * under an id in 160..255, the range Blosc2 keeps for user plugins. Chunks
 * record the id like any other (a filter id in a pipeline slot with its meta
 * byte; a codec id in header byte 22 with codec format 6 in the flags and its
 * meta in byte 23), so a reader must register the same functions under the same
 * id to decode them; an unregistered id fails with B2_ERR_UNSUPPORTED naming it.
 *
 * Two places hold registrations:
 *  - the process table (b2_register_filter / b2_register_codec): seen by every
 *    context of the process. Entries stay until the process exits; registering
 *    is thread-safe and may run while other threads compress and decompress.
 *  - a b2_registry the caller makes and attaches where it is needed:
 *    b2_cparams.registry (compression, frames and arrays created from those
 *    cparams) and b2_open_options.registry (frames opened from storage); the
 *    registry calls and the set_registry setters of contexts, frames and arrays
 *    are experimental (b2_plugin_experimental.h and the *_experimental.h of
 *    each layer).
 * A lookup tries the attached registry first, then the process table.
 *
 * The HDF5 filter only sees the process table: a program linking libb2 and the
 * filter statically (b2_h5_register) registers its ids with b2_register_*; the
 * dynamic plugin libH5Zb2.so carries its own private copy of libb2, whose table
 * no application can reach. */
#ifndef B2_PLUGIN_H
#define B2_PLUGIN_H

#include "b2_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define B2_USER_ID_FIRST 160  /* lowest id an application may register */
#define B2_USER_ID_LAST 255   /* highest */
#define B2_PLUGIN_NAME_MAX 31 /* longest name, bytes (the name is copied) */

struct b2_block_geometry; /* b2_chunk.h */

/* What a user function is told about the data besides the bytes. */
typedef struct b2_plugin_call {
    int id;            /* the filter or codec id (160..255) */
    uint8_t meta;      /* filter: its slot's meta byte; codec: header byte 23 */
    int32_t typesize;  /* the chunk header's typesize (1..255) */
    int32_t blocksize; /* bytes of the block the data belongs to */
    int clevel;        /* codec compression: 1..9; 0 in every other call */
    const struct b2_block_geometry *geom; /* block shape, NULL when none is known */
    void *user;        /* the pointer given at registration */
} b2_plugin_call;

/* A filter direction: transform n bytes from src into dst (n bytes; distinct
 * buffers). Return 0, or a negative B2_ERR_* code (any other negative value is
 * reported as B2_ERR_FILTER). Called concurrently from the worker threads of
 * one call and from any number of contexts: keep no unsynchronised state. */
typedef int (*b2_filter_fn)(const b2_plugin_call *c, const uint8_t *src, uint8_t *dst,
                            int32_t n);
/* Codec compression of srclen bytes into dst (room for dstcap bytes). Return
 * the compressed length (1..dstcap; more is reported as an error), 0 for "does
 * not compress / does not fit" (the stream is then stored raw), or a negative
 * B2_ERR_* code (other negative values are reported as B2_ERR_CODEC). Thread rules as for filters. Streams
 * are whole blocks unless the chunk is split (B2_SPLIT_ALWAYS; automatic
 * splitting never splits user codecs), then blocksize / typesize bytes. */
typedef int (*b2_codec_compress_fn)(const b2_plugin_call *c, const uint8_t *src, int32_t srclen,
                                    uint8_t *dst, int32_t dstcap);
/* Codec decompression of srclen bytes into exactly dstlen bytes at dst. Return
 * dstlen, or a negative B2_ERR_* code (others are reported as B2_ERR_CORRUPT).
 * src is untrusted input: never read or write outside the two buffers. */
typedef int (*b2_codec_decompress_fn)(const b2_plugin_call *c, const uint8_t *src,
                                      int32_t srclen, uint8_t *dst, int32_t dstlen);

/* A user filter. Both directions are required: a lossy filter whose decoding
 * is nothing gives a backward function that copies. */
typedef struct b2_user_filter {
    int id;              /* 160..255 */
    const char *name;    /* 1..31 bytes, not a name already taken */
    b2_filter_fn forward;
    b2_filter_fn backward;
    void *user;          /* handed to both functions */
} b2_user_filter;

/* A user codec. */
typedef struct b2_user_codec {
    int id;              /* 160..255 */
    const char *name;    /* 1..31 bytes, not a name already taken */
    b2_codec_compress_fn compress;
    b2_codec_decompress_fn decompress;
    void *user;          /* handed to both functions */
} b2_user_codec;

/* ---- the process table ---- */

/* Register a filter (id 160..255) for the whole process; registering an id again
 * succeeds only with an identical entry, else B2_ERR_EXISTS. */
B2_API int b2_register_filter(const b2_user_filter *f);
/* Register a codec for the whole process (same rules as b2_register_filter). */
B2_API int b2_register_codec(const b2_user_codec *c);

/* A set of user filters and codecs that contexts search before the process
 * table (b2_plugin_experimental.h makes and fills one). */
typedef struct b2_registry b2_registry;

#ifdef __cplusplus
}
#endif
#endif
