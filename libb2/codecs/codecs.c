/* SPDX-License-Identifier: BSD-3-Clause */
/* Codec dispatch and thin wrappers around the system LZ4 and Zstd libraries,
 * with the level mappings of doc/format/codecs.md §3-4 (zlib streams: zlib.c). */
#include <stdlib.h>
#include <lz4.h>
#include <lz4hc.h>
#include <zstd.h>
#include "b2_common.h"
#include "codecs.h"
#include "registry.h"

void b2_codec_state_init(b2_codec_state *st) { memset(st, 0, sizeof *st); }

void b2_codec_state_free(b2_codec_state *st)
{
    ZSTD_freeCCtx(st->zstd_cctx);
    ZSTD_freeDCtx(st->zstd_dctx);
    ZSTD_freeCDict(st->zstd_cdict);
    if (st->lz4_stream)
        LZ4_freeStream(st->lz4_stream);
    if (st->lz4hc_stream)
        LZ4_freeStreamHC(st->lz4hc_stream);
    b2_zlib_state_free(st);
    memset(st, 0, sizeof *st);
}

int b2_codec_set_dict(b2_codec_state *st, int compcode, const uint8_t *dict, int dict_len)
{
    ZSTD_freeCDict(st->zstd_cdict);
    st->zstd_cdict = NULL;
    st->dict = dict;
    st->dict_len = dict ? dict_len : 0;
    if (dict && compcode == B2_CODEC_ZSTD) {
        /* The reference digests the dictionary at level 1 whatever the clevel. */
        st->zstd_cdict = ZSTD_createCDict(dict, (size_t)dict_len, 1);
        if (!st->zstd_cdict)
            return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    return B2_OK;
}

void *b2_codec_ddict_new(int fmt, const uint8_t *dict, int dict_len)
{
    /* Digesting once per chunk instead of once per stream matters: a chunk has
     * hundreds of streams and the dictionary up to 32 KiB. */
    return fmt == 4 && dict ? ZSTD_createDDict(dict, (size_t)dict_len) : NULL;
}

void b2_codec_ddict_free(void *ddict) { ZSTD_freeDDict(ddict); }

int b2_codec_format_of(int compcode)
{
    switch (compcode) {
    case B2_CODEC_BLOSCLZ: return 0;
    case B2_CODEC_LZ4:
    case B2_CODEC_LZ4HC: return 1;
    case B2_CODEC_ZLIB: return 3;
    case B2_CODEC_ZSTD: return 4;
    case B2_CODEC_NDLZ:
    case B2_CODEC_ZFP_ACC:
    case B2_CODEC_ZFP_PREC:
    case B2_CODEC_ZFP_RATE: return B2_CODEC_FORMAT_PLUGIN;
    default: return b2_is_user_id(compcode) ? B2_CODEC_FORMAT_PLUGIN : -1;
    }
}

int b2_codec_is_known(int compcode)
{
    return !b2_is_user_id(compcode) && b2_codec_format_of(compcode) >= 0;
}

int b2_codec_needs_geometry(int compcode)
{
    return compcode >= B2_CODEC_NDLZ && compcode <= B2_CODEC_ZFP_RATE;
}

static int zstd_level(int clevel)
{
    /* 2*clevel-1, and the library maximum for 9 (doc/format/codecs.md §3.5: 8 really is 15). */
    return clevel >= 9 ? ZSTD_maxCLevel() : 2 * clevel - 1;
}

static int compress_lz4(b2_codec_state *st, int hc, int clevel, const uint8_t *src,
                        int srclen, uint8_t *dst, int maxout)
{
    if (!st->dict) {
        if (hc)
            return LZ4_compress_HC((const char *)src, (char *)dst, srclen, maxout, clevel);
        return LZ4_compress_fast((const char *)src, (char *)dst, srclen, maxout, 10 - clevel);
    }
    /* With a dictionary every stream starts from the dictionary alone. */
    if (hc) {
        if (!st->lz4hc_stream && !(st->lz4hc_stream = LZ4_createStreamHC()))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        LZ4_resetStreamHC_fast(st->lz4hc_stream, clevel);
        LZ4_loadDictHC(st->lz4hc_stream, (const char *)st->dict, st->dict_len);
        return LZ4_compress_HC_continue(st->lz4hc_stream, (const char *)src, (char *)dst,
                                        srclen, maxout);
    }
    if (!st->lz4_stream && !(st->lz4_stream = LZ4_createStream()))
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    LZ4_resetStream_fast(st->lz4_stream);
    LZ4_loadDict(st->lz4_stream, (const char *)st->dict, st->dict_len);
    return LZ4_compress_fast_continue(st->lz4_stream, (const char *)src, (char *)dst, srclen,
                                      maxout, 10 - clevel);
}

static int compress_zstd(b2_codec_state *st, int clevel, const uint8_t *src, int srclen,
                         uint8_t *dst, int maxout)
{
    if (!st->zstd_cctx && !(st->zstd_cctx = ZSTD_createCCtx()))
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    size_t r = st->zstd_cdict
        ? ZSTD_compress_usingCDict(st->zstd_cctx, dst, (size_t)maxout, src, (size_t)srclen,
                                   st->zstd_cdict)
        : ZSTD_compressCCtx(st->zstd_cctx, dst, (size_t)maxout, src, (size_t)srclen,
                            zstd_level(clevel));
    return ZSTD_isError(r) ? 0 : (int)r;
}

/* The call a user codec gets for use u. */
static b2_plugin_call user_call(const b2_codec_use *u)
{
    return (b2_plugin_call){.meta = u->meta, .typesize = u->typesize, .blocksize = u->blocksize,
                            .clevel = u->clevel, .geom = u->geom};
}

int b2_codec_compress(b2_codec_state *st, const b2_codec_use *u, const uint8_t *src,
                      int srclen, uint8_t *dst, int maxout)
{
    if (maxout <= 0)
        return 0;
    int r, clevel = u->clevel, compcode = u->compcode;
    switch (compcode) {
    case B2_CODEC_BLOSCLZ: r = b2_blosclz_compress(clevel, src, srclen, dst, maxout); break;
    case B2_CODEC_LZ4: r = compress_lz4(st, 0, clevel, src, srclen, dst, maxout); break;
    case B2_CODEC_LZ4HC: r = compress_lz4(st, 1, clevel, src, srclen, dst, maxout); break;
    case B2_CODEC_ZLIB: r = b2_zlib_compress(st, clevel, src, srclen, dst, maxout); break;
    case B2_CODEC_ZSTD: r = compress_zstd(st, clevel, src, srclen, dst, maxout); break;
    case B2_CODEC_NDLZ: r = b2_ndlz_compress(u, src, srclen, dst, maxout); break;
    case B2_CODEC_ZFP_ACC:
    case B2_CODEC_ZFP_PREC:
    case B2_CODEC_ZFP_RATE: r = b2_zfp_compress(u, src, srclen, dst, maxout); break;
    default:
        if (u->user) {
            r = b2_user_codec_compress(u->user, user_call(u), src, srclen, dst, maxout);
            break;
        }
        return B2_FAIL(B2_ERR_BAD_CODEC, "codec id %d", compcode);
    }
    /* A plugin's refusal (missing geometry, bad meta, no libzfp) is an error, not
     * "incompressible": the chunk would otherwise silently go memcpy. */
    if (r < 0)
        return r == B2_ERR_NOMEM || b2_codec_format_of(compcode) == B2_CODEC_FORMAT_PLUGIN ? r : 0;
    return r > maxout ? 0 : r;
}

int b2_codec_decompress_prefix(b2_codec_state *st, const b2_codec_use *u, const uint8_t *src,
                               int srclen, uint8_t *dst, int dstlen, int need)
{
    int r;
    if (need >= dstlen)
        return b2_codec_decompress(st, u, src, srclen, dst, dstlen);
    if (u->fmt == 0) {
        r = b2_blosclz_decompress_prefix(src, srclen, dst, dstlen, need);
    } else if (u->fmt == 1 && !st->dict) {
        r = LZ4_decompress_safe_partial((const char *)src, (char *)dst, srclen, need, dstlen);
        if (r < 0)
            return B2_FAIL(B2_ERR_CORRUPT, "lz4: malformed input at byte %d of %d", -r - 1, srclen);
    } else {
        return b2_codec_decompress(st, u, src, srclen, dst, dstlen);
    }
    if (r >= 0 && r < need)
        return B2_FAIL(B2_ERR_CORRUPT, "stream ends after %d bytes, %d needed", r, need);
    return r;
}

int b2_codec_decompress(b2_codec_state *st, const b2_codec_use *u, const uint8_t *src,
                        int srclen, uint8_t *dst, int dstlen)
{
    switch (u->fmt) {
    case 0:
        return b2_blosclz_decompress(src, srclen, dst, dstlen);
    case 1: {
        int r = st->dict
            ? LZ4_decompress_safe_usingDict((const char *)src, (char *)dst, srclen, dstlen,
                                            (const char *)st->dict, st->dict_len)
            : LZ4_decompress_safe((const char *)src, (char *)dst, srclen, dstlen);
        return r < 0 ? B2_FAIL(B2_ERR_CORRUPT, "lz4: malformed input at byte %d of %d", -r - 1, srclen)
                     : r;
    }
    case 3:
        return b2_zlib_decompress(st, src, srclen, dst, dstlen);
    case 4: {
        if (!st->zstd_dctx && !(st->zstd_dctx = ZSTD_createDCtx()))
            return B2_FAIL_CODE(B2_ERR_NOMEM);
        size_t r = st->zstd_ddict
            ? ZSTD_decompress_usingDDict(st->zstd_dctx, dst, (size_t)dstlen, src, (size_t)srclen,
                                         st->zstd_ddict)
            : st->dict
            ? ZSTD_decompress_usingDict(st->zstd_dctx, dst, (size_t)dstlen, src, (size_t)srclen,
                                        st->dict, (size_t)st->dict_len)
            : ZSTD_decompressDCtx(st->zstd_dctx, dst, (size_t)dstlen, src, (size_t)srclen);
        if (ZSTD_isError(r))
            return B2_FAIL(B2_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(r));
        return (int)r;
    }
    case B2_CODEC_FORMAT_PLUGIN:
        switch (u->compcode) {
        case B2_CODEC_NDLZ: return b2_ndlz_decompress(u, src, srclen, dst, dstlen);
        case B2_CODEC_ZFP_ACC:
        case B2_CODEC_ZFP_PREC:
        case B2_CODEC_ZFP_RATE: return b2_zfp_decompress(u, src, srclen, dst, dstlen);
        default:
            if (u->user)
                return b2_user_codec_decompress(u->user, user_call(u), src, srclen, dst, dstlen);
            break;
        }
        return B2_FAIL(B2_ERR_UNSUPPORTED, "codec id %d has no decoder here", u->compcode);
    default:
        return B2_FAIL(B2_ERR_UNSUPPORTED, "codec format %d", u->fmt);
    }
}
