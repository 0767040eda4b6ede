/* SPDX-License-Identifier: BSD-3-Clause */
/* zlib streams (codec format 3, RFC 1950): libdeflate decodes them all, and
 * encodes them unless the build asks for zlib's own bytes
 * (-DB2_ZLIB_ENCODER=zlib defines B2_ZLIB_ENCODER_ZLIB). Both write plain
 * zlib streams that any inflate (the reference's too) reads; only libdeflate's
 * bytes differ from the reference's. */
#include <stdlib.h>
#include <libdeflate.h>
#ifdef B2_ZLIB_ENCODER_ZLIB
#include <zlib.h>
#endif
#include "b2_internal.h"
#include "codecs.h"

#ifdef B2_ZLIB_ENCODER_ZLIB
/* One z_stream per context, reset between streams: the same bytes as
 * compress2(), without allocating ~270 KiB of deflate state and clearing its
 * hash table once per stream. */
static int compress_zlib(b2_codec_state *st, int clevel, const uint8_t *src, int srclen,
                         uint8_t *dst, int maxout)
{
    z_stream *z = st->zdeflate;
    if (z && st->zdeflate_level != clevel) {
        deflateEnd(z);
        free(z);
        z = st->zdeflate = NULL;
    }
    if (!z) {
        if (!(z = calloc(1, sizeof *z)))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        if (deflateInit(z, clevel) != Z_OK) {
            free(z);
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        }
        st->zdeflate = z;
        st->zdeflate_level = clevel;
    } else if (deflateReset(z) != Z_OK) {
        return 0;
    }
    z->next_in = (Bytef *)(uintptr_t)src;
    z->avail_in = (uInt)srclen;
    z->next_out = dst;
    z->avail_out = (uInt)maxout;
    return deflate(z, Z_FINISH) == Z_STREAM_END ? (int)z->total_out : 0;
}
#else
/* Blosc clevel -> libdeflate level (0..12). libdeflate's levels parse better
 * than zlib's same-numbered ones but its lowest ones lose a little on shuffled
 * floats, so: the lowest level whose chunks are no larger than zlib's at that
 * clevel on the shared benchmark files (../shared/bench, shuffle and
 * bitshuffle) - in total, and file by file where a level up to 9 does it (two
 * files stay within 0.7% at clevels 3-7). At clevel 9 level 9 is 0.1% short in
 * total with bitshuffle, but 10-12 are slower than zlib 9. Compression is
 * 1.4-18x zlib's there (doc/speed.md, "zlib through libdeflate", has the table). */
static const int deflate_level[10] = {0, 5, 5, 6, 6, 6, 7, 8, 9, 9};
#endif

int b2_zlib_compress(b2_codec_state *st, int clevel, const uint8_t *src, int srclen,
                     uint8_t *dst, int maxout)
{
    clevel = clevel < 0 ? 0 : clevel > 9 ? 9 : clevel;
#ifdef B2_ZLIB_ENCODER_ZLIB
    return compress_zlib(st, clevel, src, srclen, dst, maxout);
#else
    /* One compressor per context, made again only when the level changes: the
     * higher levels' match finders take up to ~1 MiB. */
    int level = deflate_level[clevel];
    if (st->zdeflate && st->zdeflate_level != level) {
        libdeflate_free_compressor(st->zdeflate);
        st->zdeflate = NULL;
    }
    if (!st->zdeflate) {
        if (!(st->zdeflate = libdeflate_alloc_compressor(level)))
            return B2_FAIL(B2_ERR_NOMEM, "libdeflate: no compressor for level %d", level);
        st->zdeflate_level = level;
    }
    /* 0 when the stream does not fit in maxout: the chunk layer stores the block */
    return (int)libdeflate_zlib_compress(st->zdeflate, src, (size_t)srclen, dst, (size_t)maxout);
#endif
}

int b2_zlib_decompress(b2_codec_state *st, const uint8_t *src, int srclen, uint8_t *dst,
                       int dstlen)
{
    if (!st->zinflate && !(st->zinflate = libdeflate_alloc_decompressor()))
        return B2_FAIL(B2_ERR_NOMEM, "libdeflate: no decompressor");
    /* As inflate() did: the stream may end before dstlen (the size decoded is
     * returned, and the chunk layer rejects a short block), bytes after the
     * stream's end are ignored, and the Adler-32 trailer is checked. */
    size_t got = 0;
    enum libdeflate_result r =
        libdeflate_zlib_decompress(st->zinflate, src, (size_t)srclen, dst, (size_t)dstlen, &got);
    switch (r) {
    case LIBDEFLATE_SUCCESS: return (int)got;
    case LIBDEFLATE_INSUFFICIENT_SPACE:
        return B2_FAIL(B2_ERR_CORRUPT, "zlib: the stream of %d bytes decodes to more than %d",
                       srclen, dstlen);
    default:
        return B2_FAIL(B2_ERR_CORRUPT, "zlib: invalid or truncated stream of %d bytes (libdeflate %d)",
                       srclen, (int)r);
    }
}

void b2_zlib_state_free(b2_codec_state *st)
{
#ifdef B2_ZLIB_ENCODER_ZLIB
    if (st->zdeflate)
        deflateEnd(st->zdeflate);
    free(st->zdeflate);
#else
    if (st->zdeflate)
        libdeflate_free_compressor(st->zdeflate);
#endif
    if (st->zinflate)
        libdeflate_free_decompressor(st->zinflate);
    st->zdeflate = st->zinflate = NULL;
}
