/* SPDX-License-Identifier: BSD-3-Clause */
/* zfp plugin codecs (doc/format/plugins.md): 33 fixed accuracy, 34 fixed precision, 35
 * fixed rate, on the system libzfp (1.0, the release the reference vectors were
 * made with). Each block is one zfp stream of the block shape as the zfp field
 * (zfp's x is the last, fastest-varying C dimension), with no zfp header: the
 * mode and its parameter come from the meta byte and must be rebuilt for
 * decoding exactly as for encoding. Stream lengths are multiples of libzfp's
 * stream word: one byte in Debian's build, as in the reference's, which byte
 * identity with its chunks relies on.
 *
 * Without libzfp (B2_WITH_ZFP=OFF) both entry points refuse, naming zfp. */
#include "codecs.h"

static const char *mode_name(int compcode)
{
    return compcode == B2_CODEC_ZFP_ACC ? "zfp_acc" : compcode == B2_CODEC_ZFP_PREC ? "zfp_prec"
                                                                                     : "zfp_rate";
}

#if defined(B2_HAVE_ZFP)

#include <math.h>
#include <stdlib.h>
#include <zfp.h>

#define ZW_MAX_DIM 4 /* zfp fields have 1..4 dimensions */

/* What the block is for zfp: scalar type, zfp's sizes and the block's bytes. */
typedef struct zw_block {
    zfp_type type;
    int ndim;
    size_t n[ZW_MAX_DIM]; /* nx, ny, nz, nw: the block shape reversed */
    int64_t nbytes;
} zw_block;

/* Check the geometry and typesize of u and describe the block. */
static int describe(const b2_codec_use *u, zw_block *b)
{
    const b2_block_geometry *g = u->geom;
    const char *name = mode_name(u->compcode);
    B2_FAIL_IF(!g || g->ndim <= 0, B2_ERR_INVALID_PARAM,
               "codec id %d (%s) needs the block shape (a b2nd array's metalayer, or "
               "b2_dctx_set_geometry / cparams.geometry for a lone chunk)",
               u->compcode, name);
    B2_FAIL_IF(g->ndim > ZW_MAX_DIM, B2_ERR_UNSUPPORTED,
               "codec id %d (%s): zfp takes 1 to 4 dimensions, the block has %d", u->compcode,
               name, g->ndim);
    B2_FAIL_IF(u->typesize != 4 && u->typesize != 8, B2_ERR_UNSUPPORTED,
               "codec id %d (%s): zfp takes float32 or float64 items (typesize 4 or 8), not "
               "typesize %d",
               u->compcode, name, (int)u->typesize);
    b->type = u->typesize == 4 ? zfp_type_float : zfp_type_double;
    b->ndim = g->ndim;
    b->nbytes = u->typesize;
    for (int i = 0; i < g->ndim; i++) {
        int32_t d = g->blockshape[i];
        /* the frame layer only hands out 1..INT32_MAX; keep the product bounded */
        B2_FAIL_IF(d <= 0 || b->nbytes > INT32_MAX / d, B2_ERR_INVALID_PARAM,
                   "codec id %d (%s): block shape dimension %d (%d) is out of range",
                   u->compcode, name, i, (int)d);
        b->nbytes *= d;
        b->n[g->ndim - 1 - i] = (size_t)d;
    }
    return B2_OK;
}

/* Set the mode the meta byte names, with the reference's arithmetic. */
static void set_mode(zfp_stream *zs, const b2_codec_use *u, const zw_block *b)
{
    switch (u->compcode) {
    case B2_CODEC_ZFP_ACC:
        /* meta is a signed decimal exponent: tolerance 10^meta */
        zfp_stream_set_accuracy(zs, pow(10.0, (double)(int8_t)u->meta));
        break;
    case B2_CODEC_ZFP_PREC: {
        /* meta counts bit planes beyond a floor that grows with the dimensions */
        unsigned prec = (unsigned)u->meta + 3u + 2u * (unsigned)b->ndim;
        zfp_stream_set_precision(zs, prec > ZFP_MAX_PREC ? ZFP_MAX_PREC : prec);
        break;
    }
    default: {
        /* meta is the percentage of the raw bits kept. Same operations in the same
         * order as the reference, so the rounding to bits per block agrees; zfp
         * raises too low a rate to its minimum itself. */
        double ratio = (double)u->meta / 100.0;
        double rate = ratio * u->typesize * 8;
        zfp_stream_set_rate(zs, rate, b->type, (unsigned)b->ndim, zfp_false);
        break;
    }
    }
}

static zfp_field *make_field(const zw_block *b, void *data)
{
    switch (b->ndim) {
    case 1: return zfp_field_1d(data, b->type, b->n[0]);
    case 2: return zfp_field_2d(data, b->type, b->n[0], b->n[1]);
    case 3: return zfp_field_3d(data, b->type, b->n[0], b->n[1], b->n[2]);
    default: return zfp_field_4d(data, b->type, b->n[0], b->n[1], b->n[2], b->n[3]);
    }
}

/* A zfp stream in the mode of u over a field on data, and a bitstream on buf
 * (cap bytes) when buf is given. */
typedef struct zw_ctx {
    zfp_stream *zs;
    zfp_field *field;
    bitstream *bs;
} zw_ctx;

static void ctx_free(zw_ctx *c)
{
    if (c->field)
        zfp_field_free(c->field);
    if (c->zs)
        zfp_stream_close(c->zs);
    if (c->bs)
        stream_close(c->bs);
}

static int ctx_open(zw_ctx *c, const b2_codec_use *u, const zw_block *b, void *data)
{
    c->bs = NULL;
    c->zs = zfp_stream_open(NULL);
    c->field = make_field(b, data);
    if (!c->zs || !c->field) {
        ctx_free(c);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    set_mode(c->zs, u, b);
    return B2_OK;
}

static int ctx_attach(zw_ctx *c, void *buf, size_t cap)
{
    if (!(c->bs = stream_open(buf, cap)))
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    zfp_stream_set_bit_stream(c->zs, c->bs);
    zfp_stream_rewind(c->zs);
    return B2_OK;
}

int b2_zfp_compress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                    int maxout)
{
    zw_block b;
    int rc = describe(u, &b);
    if (rc < 0)
        return rc;
    /* The reference refuses blocks thinner than one zfp cell (4 per dimension). */
    for (int i = 0; i < b.ndim; i++)
        B2_FAIL_IF(u->geom->blockshape[i] < 4, B2_ERR_UNSUPPORTED,
                   "codec id %d (%s): block dimension %d is %d, zfp needs at least 4",
                   u->compcode, mode_name(u->compcode), i, (int)u->geom->blockshape[i]);
    /* A split stream or a partial block is not the field: stored raw, as the
     * reference does. */
    if ((int64_t)srclen != b.nbytes)
        return 0;

    zw_ctx c;
    if ((rc = ctx_open(&c, u, &b, (void *)src)) < 0)
        return rc;
    /* zfp's writer has no bounds check: give it room for its worst case. */
    size_t cap = zfp_stream_maximum_size(c.zs, c.field);
    uint8_t *buf = cap ? malloc(cap) : NULL;
    if (!buf) {
        ctx_free(&c);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    size_t size = 0;
    if ((rc = ctx_attach(&c, buf, cap)) == B2_OK)
        size = zfp_compress(c.zs, c.field);
    ctx_free(&c);
    /* zfp failing (size 0) or not shrinking the block: stored raw (reference). */
    if (rc == B2_OK && size > 0 && size < (size_t)srclen && size <= (size_t)maxout) {
        memcpy(dst, buf, size);
        rc = (int)size;
    }
    free(buf);
    return rc;
}

/* Decoding hostile input. zfp's bit reader has no end check: on a truncated or
 * corrupt stream it keeps fetching words past the buffer. What bounds it is the
 * mode: a block never takes more than the per-block maximum that
 * zfp_stream_maximum_size adds up (the decoder reads at most as many bits as the
 * encoder can write), and a fixed-rate block takes exactly maxbits. So the stream
 * is copied into an aligned, zero-padded buffer of that maximum size before zfp
 * sees it (zfp also reads whole words, which the chunk's bytes do not guarantee
 * to be aligned or complete), fixed-rate streams must have exactly their size,
 * and a stream zfp reads past its end is refused afterwards. */
int b2_zfp_decompress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                      int dstlen)
{
    zw_block b;
    int rc = describe(u, &b);
    if (rc < 0)
        return rc;
    const char *name = mode_name(u->compcode);
    B2_FAIL_IF((int64_t)dstlen != b.nbytes, B2_ERR_CORRUPT,
               "codec id %d (%s): a stream of %d bytes, but the block shape holds %lld",
               u->compcode, name, dstlen, (long long)b.nbytes);
    B2_FAIL_IF(srclen <= 0, B2_ERR_CORRUPT, "codec id %d (%s): empty stream", u->compcode, name);

    zw_ctx c;
    if ((rc = ctx_open(&c, u, &b, dst)) < 0)
        return rc;
    size_t wbytes = stream_word_bits / 8;
    size_t have = ((size_t)srclen + wbytes - 1) / wbytes * wbytes;
    size_t cap = zfp_stream_maximum_size(c.zs, c.field);
    if (have > cap) {
        ctx_free(&c);
        return B2_FAIL(B2_ERR_CORRUPT, "codec id %d (%s): a %d-byte stream is longer than zfp's "
                       "largest for this block (%zu)", u->compcode, name, srclen, cap);
    }
    if (u->compcode == B2_CODEC_ZFP_RATE) {
        unsigned maxbits;
        zfp_stream_params(c.zs, NULL, &maxbits, NULL, NULL);
        uint64_t bits = (uint64_t)zfp_field_blocks(c.field) * maxbits;
        uint64_t want = (bits + stream_word_bits - 1) / stream_word_bits * wbytes;
        if ((uint64_t)have != want) {
            size_t nblocks = zfp_field_blocks(c.field); /* before ctx_free frees the field */
            ctx_free(&c);
            return B2_FAIL(B2_ERR_CORRUPT, "codec id %d (%s): the stream has %d bytes, %zu blocks "
                           "of %u bits take %llu", u->compcode, name, srclen, nblocks, maxbits,
                           (unsigned long long)want);
        }
    }
    uint8_t *buf = malloc(cap);
    if (!buf) {
        ctx_free(&c);
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    }
    memcpy(buf, src, (size_t)srclen);
    memset(buf + srclen, 0, cap - (size_t)srclen);
    size_t used = 0;
    if ((rc = ctx_attach(&c, buf, cap)) == B2_OK)
        used = zfp_decompress(c.zs, c.field);
    ctx_free(&c);
    free(buf);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(used == 0, B2_ERR_CODEC, "codec id %d (%s): zfp_decompress failed", u->compcode,
               name);
    B2_FAIL_IF(used != have, B2_ERR_CORRUPT,
               "codec id %d (%s): truncated or corrupt stream (zfp read %zu bytes of %d)",
               u->compcode, name, used, srclen);
    return dstlen;
}

#else /* !B2_HAVE_ZFP */

static int no_zfp(int compcode)
{
    return B2_FAIL(B2_ERR_UNSUPPORTED, "codec id %d (%s): this build has no zfp (-DB2_WITH_ZFP=OFF)",
                   compcode, mode_name(compcode));
}

int b2_zfp_compress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                    int maxout)
{
    (void)src, (void)srclen, (void)dst, (void)maxout;
    return no_zfp(u->compcode);
}

int b2_zfp_decompress(const b2_codec_use *u, const uint8_t *src, int srclen, uint8_t *dst,
                      int dstlen)
{
    (void)src, (void)srclen, (void)dst, (void)dstlen;
    return no_zfp(u->compcode);
}

#endif
