/* SPDX-License-Identifier: BSD-3-Clause */
/* zfp codecs 33 (fixed accuracy), 34 (fixed precision), 35 (fixed rate) by hand:
 * one-block chunks of a smooth field for ranks 1-4, float and double, in every
 * mode (accuracy within its tolerance, fixed-rate streams of the exact size);
 * hostile streams (truncated, cut, corrupted, wrong size) refused or decoded
 * without touching memory outside the buffers (run it under ASan); no geometry,
 * wrong typesize, rank or block shape refused.
 *
 * Built without libzfp (-DB2_WITH_ZFP=OFF) it checks instead that zfp chunks,
 * written or read (the plugin vectors n06..n11), fail with an error naming zfp. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_chunk.h"
#include "b2_nd.h"
#include "codecs.h"
#include "manifest.h"
#include "check.h"
#include "b2_chunk_experimental.h"

static const char *mode_name[] = {"acc", "prec", "rate"};

/* A smooth field over a block of shape bs (C order), as float or double. */
static uint8_t *smooth_field(int ndim, const int32_t *bs, int typesize, size_t *nbytes)
{
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= (size_t)bs[i];
    uint8_t *p = malloc(n * (size_t)typesize);
    for (size_t k = 0; k < n; k++) {
        size_t r = k;
        double v = 0.5;
        for (int i = ndim - 1; i >= 0; i--) {
            double x = (double)(r % (size_t)bs[i]) / bs[i];
            r /= (size_t)bs[i];
            v += sin(2.0 * x + 0.3 * i) * cos(1.5 * x - 0.2 * i) / (i + 1);
        }
        if (typesize == 4)
            ((float *)p)[k] = (float)v;
        else
            ((double *)p)[k] = v;
    }
    *nbytes = n * (size_t)typesize;
    return p;
}

static void zfp_params(b2_cparams *p, int codec, uint8_t meta, int ndim, const int32_t *bs,
                       int typesize)
{
    b2_cparams_init(p);
    p->codec = codec;
    p->codec_meta = meta;
    p->clevel = 5;
    p->typesize = typesize;
    p->splitmode = B2_SPLIT_NEVER;
    p->nthreads = 1;
    memset(p->filters, 0, sizeof p->filters); /* the reference refuses shuffles with zfp */
    p->geometry.ndim = ndim;
    int32_t block = typesize;
    for (int i = 0; i < ndim; i++) {
        p->geometry.blockshape[i] = bs[i];
        block *= bs[i];
    }
    p->blocksize = block;
}

/* Compress n bytes with p into a new buffer; returns the chunk length or an error. */
static int compress_chunk(const b2_cparams *p, const void *src, size_t n, uint8_t **out)
{
    size_t cap = b2_chunk_compress_bound(n);
    *out = malloc(cap);
    b2_cctx *c = b2_cctx_new(p);
    int len = c ? b2_chunk_compress(c, src, n, *out, cap) : B2_ERR_INVALID_PARAM;
    b2_cctx_free(c);
    return len;
}

#if defined(B2_HAVE_ZFP)
#include <zfp.h>

static double value_at(const uint8_t *p, int typesize, size_t k)
{
    return typesize == 4 ? ((const float *)p)[k] : ((const double *)p)[k];
}

/* The one stream of a one-block, unsplit chunk (header 32 + bstarts 4 + csize 4). */
static const uint8_t *stream_of(const uint8_t *chunk, int len, int *slen)
{
    int32_t pos = (int32_t)b2_load_le32(chunk + 32);
    *slen = (int)b2_load_le32(chunk + pos);
    return pos + 4 + *slen <= len ? chunk + pos + 4 : NULL;
}

/* Every rank, both types, every mode: round trip through a one-block chunk. */
static void test_round_trips(void)
{
    static const int32_t shapes[4][4] = {{100}, {12, 10}, {8, 6, 5}, {4, 5, 6, 4}};
    for (int ndim = 1; ndim <= 4; ndim++) {
        const int32_t *bs = shapes[ndim - 1];
        for (int ts = 4; ts <= 8; ts += 4) {
            size_t n;
            uint8_t *in = smooth_field(ndim, bs, ts, &n);
            uint8_t *back = malloc(n);
            size_t nvals = n / (size_t)ts, nzblocks = 1;
            for (int i = 0; i < ndim; i++)
                nzblocks *= ((size_t)bs[i] + 3) / 4;
            for (int m = 0; m < 3; m++) {
                int codec = B2_CODEC_ZFP_ACC + m;
                /* 10^-3; 20 planes past the floor; a quarter of the bits */
                uint8_t meta = m == 0 ? (uint8_t)-3 : m == 1 ? 20 : 25;
                b2_cparams p;
                zfp_params(&p, codec, meta, ndim, bs, ts);
                uint8_t *c;
                int len = compress_chunk(&p, in, n, &c);
                int slen = 0;
                const uint8_t *st = len > 0 ? stream_of(c, len, &slen) : NULL;
                CHECK(st && slen > 0 && slen < (int)n, "rank %d f%d %s: compressed %d (%s)", ndim,
                      ts, mode_name[m], len, b2_last_error_message());
                if (m == 2 && st) {
                    /* fixed rate: each 4^d block takes round(4^d * 25% * bits) bits,
                     * the stream rounded up to libzfp's word */
                    size_t bits = (size_t)floor((1 << 2 * ndim) * (0.25 * ts * 8) + 0.5);
                    size_t words = (nzblocks * bits + stream_word_bits - 1) / stream_word_bits;
                    CHECK((size_t)slen == words * stream_word_bits / 8,
                          "rank %d f%d rate: stream %d bytes", ndim, ts, slen);
                }
                b2_dctx *d = b2_dctx_new(1);
                b2_dctx_set_geometry(d, &p.geometry);
                int r = len > 0 ? b2_chunk_decompress(d, c, (size_t)len, back, n) : -1;
                CHECK(r == (int)n, "rank %d f%d %s: decode %d (%s)", ndim, ts, mode_name[m], r,
                      b2_last_error_message());
                double err = 0;
                for (size_t k = 0; r == (int)n && k < nvals; k++)
                    err = fmax(err, fabs(value_at(in, ts, k) - value_at(back, ts, k)));
                double bound = m == 0 ? 1e-3 : m == 1 ? 1e-4 : 0.05;
                CHECK(r == (int)n && err <= bound, "rank %d f%d %s: max error %g > %g", ndim, ts,
                      mode_name[m], err, bound);
                /* items: the block is decoded whole, the items picked from it */
                if (r == (int)n) {
                    uint8_t item[3 * 8];
                    int64_t at = (int64_t)nvals / 2;
                    int g = b2_chunk_getitem(d, c, (size_t)len, at, 3, item, sizeof item);
                    CHECK(g == 3 * ts && !memcmp(item, back + at * ts, (size_t)(3 * ts)),
                          "rank %d f%d %s: getitem %d", ndim, ts, mode_name[m], g);
                }
                b2_dctx_free(d);
                free(c);
            }
            free(back);
            free(in);
        }
    }
}

/* Accuracy: the error stays within 10^meta for a range of exponents, and the
 * stream shrinks as the tolerance grows. */
static void test_accuracy_tolerance(void)
{
    int32_t bs[2] = {32, 32};
    size_t n;
    uint8_t *in = smooth_field(2, bs, 8, &n), *back = malloc(n);
    int last = 1 << 30;
    for (int e = -9; e <= -1; e += 2) {
        b2_cparams p;
        zfp_params(&p, B2_CODEC_ZFP_ACC, (uint8_t)(int8_t)e, 2, bs, 8);
        uint8_t *c;
        int len = compress_chunk(&p, in, n, &c);
        b2_dctx *d = b2_dctx_new(1);
        b2_dctx_set_geometry(d, &p.geometry);
        int r = len > 0 ? b2_chunk_decompress(d, c, (size_t)len, back, n) : len;
        double err = 0, tol = pow(10, e);
        for (size_t k = 0; r == (int)n && k < n / 8; k++)
            err = fmax(err, fabs(((double *)in)[k] - ((double *)back)[k]));
        CHECK(r == (int)n && err <= tol && len < last, "accuracy 1e%d: %d bytes, error %g", e, len,
              err);
        last = len;
        b2_dctx_free(d);
        free(c);
    }
    free(back);
    free(in);
}

/* A multi-block chunk decodes the same with 2 threads (no state shared). */
static void test_threads(void)
{
    int32_t bs[3] = {8, 8, 8}, whole[3] = {32, 8, 8};
    size_t n;
    uint8_t *in = smooth_field(3, whole, 4, &n), *a = malloc(n), *b = malloc(n);
    b2_cparams p;
    zfp_params(&p, B2_CODEC_ZFP_PREC, 12, 3, bs, 4);
    uint8_t *c;
    int len = compress_chunk(&p, in, n, &c);
    b2_dctx *d1 = b2_dctx_new(1), *d2 = b2_dctx_new(2);
    b2_dctx_set_geometry(d1, &p.geometry);
    b2_dctx_set_geometry(d2, &p.geometry);
    int r1 = len > 0 ? b2_chunk_decompress(d1, c, (size_t)len, a, n) : len;
    int r2 = len > 0 ? b2_chunk_decompress(d2, c, (size_t)len, b, n) : len;
    CHECK(r1 == (int)n && r2 == (int)n && !memcmp(a, b, n), "4 blocks, 1 vs 2 threads: %d %d", r1,
          r2);
    b2_dctx_free(d1);
    b2_dctx_free(d2);
    free(c);
    free(a);
    free(b);
    free(in);
}

/* Streams cut short, grown, or with flipped bits, given straight to the codec
 * with exactly-sized heap copies, so ASan sees any read past them. */
static void test_hostile_streams(void)
{
    int32_t bs[2] = {16, 12};
    size_t n;
    uint8_t *in = smooth_field(2, bs, 4, &n), *out = malloc(n);
    for (int m = 0; m < 3; m++) {
        b2_cparams p;
        zfp_params(&p, B2_CODEC_ZFP_ACC + m, m == 0 ? (uint8_t)-4 : m == 1 ? 16 : 30, 2, bs, 4);
        uint8_t *c;
        int len = compress_chunk(&p, in, n, &c), slen = 0;
        const uint8_t *st = len > 0 ? stream_of(c, len, &slen) : NULL;
        CHECK(st != NULL, "%s: chunk %d", mode_name[m], len);
        if (!st) {
            free(c);
            continue;
        }
        b2_codec_use u = {.compcode = B2_CODEC_ZFP_ACC + m, .fmt = B2_CODEC_FORMAT_PLUGIN,
                          .meta = p.codec_meta, .typesize = 4, .blocksize = (int32_t)n,
                          .geom = &p.geometry};
        uint8_t *s = malloc((size_t)slen + 64);
        memcpy(s, st, (size_t)slen);
        CHECK(b2_zfp_decompress(&u, s, slen, out, (int)n) == (int)n, "%s: whole stream",
              mode_name[m]);
        /* every shorter length, each in a buffer of exactly that size */
        int refused = 0;
        for (int cut = 1; cut < slen; cut++) {
            uint8_t *t = malloc((size_t)(slen - cut));
            memcpy(t, st, (size_t)(slen - cut));
            int r = b2_zfp_decompress(&u, t, slen - cut, out, (int)n);
            refused += r == B2_ERR_CORRUPT && strstr(b2_last_error_message(), "zfp") != NULL;
            free(t);
        }
        CHECK(refused == slen - 1, "%s: %d of %d truncations refused", mode_name[m], refused,
              slen - 1);
        /* longer than the stream (trailing bytes) */
        memset(s + slen, 0xA5, 64);
        CHECK(b2_zfp_decompress(&u, s, slen + 1, out, (int)n) == B2_ERR_CORRUPT,
              "%s: a trailing byte accepted", mode_name[m]);
        /* flipped bits: an error or some values, never a bad access */
        srand(7 + m);
        for (int k = 0; k < 300; k++) {
            memcpy(s, st, (size_t)slen);
            for (int f = 0; f <= k % 4; f++)
                s[rand() % slen] ^= (uint8_t)(1u << (rand() % 8));
            uint8_t *t = malloc((size_t)slen);
            memcpy(t, s, (size_t)slen);
            int r = b2_zfp_decompress(&u, t, slen, out, (int)n);
            CHECK(r == (int)n || r == B2_ERR_CORRUPT, "%s: corrupted stream gave %d", mode_name[m],
                  r);
            free(t);
        }
        /* all ones: every block claims the most bits (accuracy/precision) */
        memset(s, 0xFF, (size_t)slen);
        int r = b2_zfp_decompress(&u, s, slen, out, (int)n);
        CHECK(r == B2_ERR_CORRUPT || (m == 2 && r == (int)n), "%s: all-ones stream gave %d",
              mode_name[m], r);
        /* an output that is not the block */
        CHECK(b2_zfp_decompress(&u, st, slen, out, (int)n - 4) == B2_ERR_CORRUPT,
              "%s: short output accepted", mode_name[m]);
        free(s);
        free(c);
    }
    free(out);
    free(in);
}

/* What the codec refuses: no geometry, typesize 2, rank 5, blocks thinner than a
 * zfp cell; split streams are stored raw, as the reference stores them. */
static void test_refusals(void)
{
    int32_t bs[2] = {8, 8};
    size_t n;
    uint8_t *in = smooth_field(2, bs, 4, &n), *back = malloc(n);
    b2_cparams p;
    zfp_params(&p, B2_CODEC_ZFP_ACC, (uint8_t)-3, 2, bs, 4);
    uint8_t *c;
    int len = compress_chunk(&p, in, n, &c);
    CHECK(len > 0 && len < (int)n, "8x8 float: %d", len);
    /* decoding without geometry */
    b2_dctx *d = b2_dctx_new(1);
    int r = len > 0 ? b2_chunk_decompress(d, c, (size_t)len, back, n) : 0;
    CHECK(r == B2_ERR_INVALID_PARAM && strstr(b2_last_error_message(), "zfp_acc") &&
              strstr(b2_last_error_message(), "block shape"),
          "no geometry: %d (%s)", r, b2_last_error_message());
    /* with the geometry set and cleared again */
    b2_dctx_set_geometry(d, &p.geometry);
    CHECK(len > 0 && b2_chunk_decompress(d, c, (size_t)len, back, n) == (int)n, "with geometry");
    b2_dctx_set_geometry(d, NULL);
    CHECK(len > 0 && b2_chunk_decompress(d, c, (size_t)len, back, n) < 0, "geometry cleared");
    b2_dctx_free(d);
    free(c);

    /* encoding without geometry */
    b2_cparams q = p;
    q.geometry.ndim = 0;
    len = compress_chunk(&q, in, n, &c);
    CHECK(len == B2_ERR_INVALID_PARAM, "compress without geometry: %d", len);
    free(c);
    /* typesize 2 */
    q = p;
    q.typesize = 2;
    len = compress_chunk(&q, in, n, &c);
    CHECK(len == B2_ERR_UNSUPPORTED && strstr(b2_last_error_message(), "typesize 2"),
          "typesize 2: %d (%s)", len, b2_last_error_message());
    free(c);
    /* rank 5 */
    int32_t bs5[5] = {4, 4, 4, 4, 4};
    size_t n5;
    uint8_t *in5 = smooth_field(5, bs5, 4, &n5);
    zfp_params(&q, B2_CODEC_ZFP_RATE, 50, 5, bs5, 4);
    len = compress_chunk(&q, in5, n5, &c);
    CHECK(len == B2_ERR_UNSUPPORTED && strstr(b2_last_error_message(), "has 5"),
          "rank 5: %d (%s)", len, b2_last_error_message());
    free(c);
    free(in5);
    /* a block dimension under 4 */
    int32_t thin[2] = {3, 16};
    size_t nt;
    uint8_t *tin = smooth_field(2, thin, 8, &nt);
    zfp_params(&q, B2_CODEC_ZFP_PREC, 10, 2, thin, 8);
    len = compress_chunk(&q, tin, nt, &c);
    CHECK(len == B2_ERR_UNSUPPORTED && strstr(b2_last_error_message(), "at least 4"),
          "3x16 block: %d (%s)", len, b2_last_error_message());
    free(c);
    free(tin);
    /* split into byte streams: each stream is stored raw, and decodes */
    q = p;
    q.splitmode = B2_SPLIT_ALWAYS;
    len = compress_chunk(&q, in, n, &c);
    d = b2_dctx_new(1);
    b2_dctx_set_geometry(d, &q.geometry);
    r = len > 0 ? b2_chunk_decompress(d, c, (size_t)len, back, n) : len;
    CHECK(r == (int)n && !memcmp(in, back, n), "split streams stored raw: %d", r);
    b2_dctx_free(d);
    free(c);
    free(back);
    free(in);
}

#else /* !B2_HAVE_ZFP */

/* Writing a zfp chunk fails naming zfp and the build option. */
static void test_no_zfp_compress(void)
{
    int32_t bs[2] = {8, 8};
    size_t n;
    uint8_t *in = smooth_field(2, bs, 4, &n);
    for (int m = 0; m < 3; m++) {
        b2_cparams p;
        zfp_params(&p, B2_CODEC_ZFP_ACC + m, 10, 2, bs, 4);
        uint8_t *c;
        int len = compress_chunk(&p, in, n, &c);
        const char *msg = b2_last_error_message();
        char want[64];
        snprintf(want, sizeof want, "codec id %d (zfp_%s)", B2_CODEC_ZFP_ACC + m, mode_name[m]);
        CHECK(len == B2_ERR_UNSUPPORTED && strstr(msg, want) && strstr(msg, "B2_WITH_ZFP=OFF"),
              "compress %s without zfp: %d (%s)", want, len, msg);
        free(c);
    }
    free(in);
}

/* Reading the reference's zfp arrays: those holding zfp streams fail naming zfp
 * (one whose blocks were all stored raw still decodes). */
static int test_no_zfp_vectors(void)
{
    jnode *man = test_plugin_manifest();
    if (!man)
        return 0;
    char path[4096];
    const jnode *vecs = json_get(man, "vectors");
    int nzfp = 0, refused = 0;
    for (size_t i = 0; vecs && i < vecs->nkids; i++) {
        const jnode *v = &vecs->kids[i];
        int codec = (int)json_num(v, "params.codec_id", -1);
        if (codec < B2_CODEC_ZFP_ACC || codec > B2_CODEC_ZFP_RATE)
            continue;
        nzfp++;
        test_plugin_path(v, "path", path, sizeof path);
        b2_nd_array *a = NULL;
        int rc = b2_nd_open(path, B2_OPEN_READONLY, &a);
        CHECK(rc == 0, "%s: open %d", path, rc);
        size_t len = (size_t)json_num(v, "expected.length", 0);
        uint8_t *out = malloc(len + 1);
        rc = rc == 0 ? b2_nd_to_cbuffer(a, out, len) : rc;
        const char *msg = b2_nd_last_error(a);
        if (rc < 0) {
            refused++;
            CHECK(rc == B2_ERR_UNSUPPORTED && strstr(msg, "zfp") && strstr(msg, "B2_WITH_ZFP=OFF"),
                  "%s: %d (%s)", path, rc, msg);
        }
        free(out);
        b2_nd_free(a);
    }
    json_free(man);
    printf("without zfp: %d of %d zfp vectors refused\n", refused, nzfp);
    CHECK(nzfp == 6 && refused == 5, "5 of the 6 zfp vectors hold zfp streams: %d of %d refused",
          refused, nzfp);
    return 1;
}

#endif

int main(void)
{
#if defined(B2_HAVE_ZFP)
    test_round_trips();
    test_accuracy_tolerance();
    test_threads();
    test_hostile_streams();
    test_refusals();
#else
    test_no_zfp_compress();
    if (!test_no_zfp_vectors())
        return b2t_failures ? 1 : 77;
#endif
    return b2t_summary("zfp codecs");
}
