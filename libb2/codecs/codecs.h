/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal codec layer: BloscLZ (our own) and wrappers around the system LZ4,
 * Zstd and libdeflate libraries (and zlib, for zlib's own bytes). One call
 * compresses or decompresses one stream.
 *
 * Compression contract (doc/format/codecs.md §2): returns the compressed length (1..maxout),
 * or 0 for "not compressible / does not fit in maxout" (the chunk layer then
 * stores the stream raw), or a negative B2_ERR_* on a real failure.
 * Decompression contract: returns the number of bytes produced (the chunk layer
 * requires it to equal the expected size) or a negative B2_ERR_*. */
#ifndef B2_CODECS_H
#define B2_CODECS_H

#include <stdint.h>
#include "b2_chunk.h"
#include "b2_internal.h"

/* What one codec call needs besides the bytes. The plugin codecs (ids 32..35)
 * and user codecs also read the meta byte, the typesize and the block geometry. */
typedef struct b2_codec_use {
    int compcode;         /* codec id (header byte 22; derived from fmt for Blosc1) */
    int fmt;              /* codec format, flags >> 5 (6: a plugin, see compcode) */
    int clevel;           /* 1..9, compression only */
    uint8_t meta;         /* compcode_meta, header byte 23 */
    int32_t typesize;     /* header typesize */
    int32_t blocksize;    /* bytes of the block the stream belongs to */
    const b2_block_geometry *geom; /* NULL or ndim 0: none known */
    const b2_user_codec *user;     /* user codecs (ids 160..255): the resolved entry */
} b2_codec_use;

/* ---- BloscLZ (blosclz_compress.c, blosclz_decompress.c) ---- */

/* Compress exactly as c-blosc2 3.3's BloscLZ encoder does (doc/format/blosclz.md §5). */
B2_HIDDEN int b2_blosclz_compress(int clevel, const uint8_t *src, int srclen,
                                  uint8_t *dst, int maxout);
/* The encoder's versions (blosclz_compress.c, x86/blosclz_*.c, arm/blosclz_neon.c):
 * the same bytes, the match scan 8, 16, 32 or 64 bytes a step. _at gives the one of a SIMD
 * level (NULL when this build lacks it); callers need the CPU to allow it. */
typedef int (*b2_blosclz_compress_fn)(int clevel, const uint8_t *src, int srclen, uint8_t *dst,
                                      int maxout);
B2_HIDDEN b2_blosclz_compress_fn b2_blosclz_compress_at(int level);
B2_HIDDEN int b2_blosclz_compress_generic(int clevel, const uint8_t *src, int srclen,
                                          uint8_t *dst, int maxout);
#ifdef B2_HAVE_X86_SIMD
B2_HIDDEN int b2_blosclz_compress_sse2(int clevel, const uint8_t *src, int srclen, uint8_t *dst,
                                       int maxout);
B2_HIDDEN int b2_blosclz_compress_avx2(int clevel, const uint8_t *src, int srclen, uint8_t *dst,
                                       int maxout);
B2_HIDDEN int b2_blosclz_compress_avx512(int clevel, const uint8_t *src, int srclen,
                                         uint8_t *dst, int maxout);
#endif
#ifdef B2_HAVE_ARM_SIMD
B2_HIDDEN int b2_blosclz_compress_neon(int clevel, const uint8_t *src, int srclen, uint8_t *dst,
                                       int maxout);
#endif
/* Safe decoder (doc/format/blosclz.md §2-3): never reads or writes out of bounds. */
B2_HIDDEN int b2_blosclz_decompress(const uint8_t *src, int srclen, uint8_t *dst, int dstcap);
/* The same, stopping once at least need bytes are decoded (returns how many). */
B2_HIDDEN int b2_blosclz_decompress_prefix(const uint8_t *src, int srclen, uint8_t *dst, int dstcap,
                                           int need);

/* ---- plugin codecs (doc/format/plugins.md): the same contracts as below ---- */
/* ndlz (ndlz*.c, format in ndlz.h): 2-D blocks of one byte per item, meta 4 or
 * 8. Encoding needs libxxhash (B2_HAVE_NDLZ); without it, it fails with
 * B2_ERR_UNSUPPORTED naming ndlz and xxhash. Decoding is always built. */
B2_HIDDEN int b2_ndlz_compress(const b2_codec_use *u, const uint8_t *src, int srclen,
                               uint8_t *dst, int maxout);
B2_HIDDEN int b2_ndlz_decompress(const b2_codec_use *u, const uint8_t *src, int srclen,
                                 uint8_t *dst, int dstlen);
/* zfp (zfp.c): ids 33..35, float32/float64 blocks of 1..4 dimensions. Built
 * without libzfp they fail with B2_ERR_UNSUPPORTED naming zfp. */
B2_HIDDEN int b2_zfp_compress(const b2_codec_use *u, const uint8_t *src, int srclen,
                              uint8_t *dst, int maxout);
B2_HIDDEN int b2_zfp_decompress(const b2_codec_use *u, const uint8_t *src, int srclen,
                                uint8_t *dst, int dstlen);

/* ---- generic dispatch (codecs.c) ---- */

/* Library contexts a chunk context keeps between calls, created on first use. */
typedef struct b2_codec_state {
    void *zstd_cctx, *zstd_dctx;
    void *zstd_cdict;             /* digested dictionary for compression */
    const uint8_t *dict;          /* current dictionary (not owned), or NULL */
    int dict_len;
    const void *zstd_ddict;       /* digested form of dict for zstd decoding (not owned) */
    void *lz4_stream, *lz4hc_stream;
    void *zdeflate;               /* zlib.c: libdeflate compressor (or z_stream) for zdeflate_level */
    void *zinflate;               /* zlib.c: libdeflate decompressor */
    int zdeflate_level;
} b2_codec_state;

/* ---- zlib streams (zlib.c): libdeflate decodes; encodes too unless built with
 * B2_ZLIB_ENCODER=zlib. The same contracts as b2_codec_compress/decompress. ---- */
B2_HIDDEN int b2_zlib_compress(b2_codec_state *st, int clevel, const uint8_t *src,
                               int srclen, uint8_t *dst, int maxout);
B2_HIDDEN int b2_zlib_decompress(b2_codec_state *st, const uint8_t *src, int srclen,
                                 uint8_t *dst, int dstlen);
B2_HIDDEN void b2_zlib_state_free(b2_codec_state *st);

B2_HIDDEN void b2_codec_state_init(b2_codec_state *st);
B2_HIDDEN void b2_codec_state_free(b2_codec_state *st);
/* Use dict (not copied; must outlive the calls) for the following calls; NULL clears.
 * For zstd compression a digested dictionary at level 1 is built, as the reference does. */
B2_HIDDEN int b2_codec_set_dict(b2_codec_state *st, int compcode, const uint8_t *dict, int dict_len);

/* Digested decompression dictionary for codec format fmt (zstd only; NULL for the
 * others or when out of memory, and decoding then uses the raw bytes). It only
 * reads dict, may be shared by threads, and is freed with b2_codec_ddict_free. */
B2_HIDDEN void *b2_codec_ddict_new(int fmt, const uint8_t *dict, int dict_len);
B2_HIDDEN void b2_codec_ddict_free(void *ddict);

#define B2_CODEC_FORMAT_PLUGIN 6 /* flags >> 5 of plugin and user codecs */

/* Codec format number (flags bits 5-7) for a codec id, or -1 (user ids 160..255
 * give 6 whether registered or not). */
B2_HIDDEN int b2_codec_format_of(int compcode);
/* Whether a codec id is one this build encodes and decodes (built-ins and
 * plugins; user codecs are looked up in registries instead). */
B2_HIDDEN int b2_codec_is_known(int compcode);
/* Whether the codec is one of the n-dimensional plugins (needs u->geom). */
B2_HIDDEN int b2_codec_needs_geometry(int compcode);

/* Compress one stream with u->compcode at u->clevel (user codecs: u->user). */
B2_HIDDEN int b2_codec_compress(b2_codec_state *st, const b2_codec_use *u, const uint8_t *src,
                                int srclen, uint8_t *dst, int maxout);
/* Decompress one stream of format u->fmt (u->compcode for plugins) into dst
 * (dstlen bytes). */
B2_HIDDEN int b2_codec_decompress(b2_codec_state *st, const b2_codec_use *u, const uint8_t *src,
                                  int srclen, uint8_t *dst, int dstlen);
/* Decode at least the first need bytes of such a stream, and as little more as
 * the codec allows (blosclz and lz4 stop early; the others decode it all).
 * Returns the bytes decoded (>= need) or a negative B2_ERR_*. Only what was
 * decoded is checked: a damaged tail goes unnoticed. */
B2_HIDDEN int b2_codec_decompress_prefix(b2_codec_state *st, const b2_codec_use *u,
                                         const uint8_t *src, int srclen, uint8_t *dst, int dstlen,
                                         int need);

#endif
