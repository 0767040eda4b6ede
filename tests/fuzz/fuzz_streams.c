/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: one codec or filter on a raw stream, without a chunk around it,
 * so the fuzzer reaches each decoder with any bytes at all. Byte 0 picks the
 * kernel, bytes 1-7 its parameters, the rest is the stream:
 *   0 ndlz decoder (meta 4/8, a 2-D block of 1..256 x 1..256 bytes), or with
 *     byte 1 bit 1 an encode/decode round trip (lossless: exact)
 *   1 zfp decoders (ids 33-35, meta, float32/64, 1..4-D blocks of 1..16 per side),
 *     or a round trip (lossy: it must decode)
 *   2 ndcell backward, and forward then backward (exact)
 *   3 ndmean backward, and forward then backward (lossy)
 *   4 bytedelta decoders (fixed and buggy), and encode then decode (exact)
 *   5 int_trunc  6 trunc_prec (forward only: their decoding is a copy)
 *   7 blosclz decoder, whole and prefix (the same bytes), and a round trip
 *   8 byte shuffle and bit shuffle: every SIMD kernel this CPU runs against the
 *     portable one (the same bytes), and each unshuffle undoing its shuffle
 *   9 delta decode against block 0, and encode then decode (exact)
 * Each plugin filter and codec is reached here on raw streams, and inside
 * chunks by fuzz_chunk (with a drawn geometry), fuzz_b2nd and fuzz_roundtrip. */
#include <math.h>
#include <string.h>

#include "codecs.h"
#include "filters.h"
#include "fuzz_common.h"
#include "simd_kernels.h"

#define MAX_STREAM (1 << 20)

/* The block shape bytes p[0..] give (ndim 1..4 from sel, extents 1..16). */
static int64_t geometry(unsigned sel, const uint8_t *p, b2_block_geometry *g)
{
    g->ndim = 1 + (int)(sel & 3);
    int64_t items = 1;
    for (int d = 0; d < g->ndim; d++) {
        g->blockshape[d] = 1 + (p[d] & 15);
        items *= g->blockshape[d];
    }
    return items;
}

/* The stream padded with zeros (or cut) to n bytes. */
static uint8_t *fit(const uint8_t *s, size_t len, size_t n)
{
    uint8_t *b = fuzz_calloc(n);
    if (b)
        memcpy(b, s, len < n ? len : n);
    return b;
}

static void run_ndlz(const uint8_t *q, const uint8_t *s, size_t len)
{
    b2_block_geometry g = {2, {1 + q[1], 1 + q[2]}};
    b2_codec_use u = {.compcode = B2_CODEC_NDLZ, .fmt = B2_CODEC_FORMAT_PLUGIN, .clevel = 5,
                      .meta = q[0] & 1 ? 8 : 4, .typesize = 1, .geom = &g};
    int n = g.blockshape[0] * g.blockshape[1];
    uint8_t *out = malloc((size_t)n), *in = NULL, *enc = NULL;
    if (!out)
        return;
    if (!(q[0] & 2)) {
        b2_ndlz_decompress(&u, s, (int)len, out, n);
    } else if ((in = fit(s, len, (size_t)n)) && (enc = malloc((size_t)n + 64))) {
        int c = b2_ndlz_compress(&u, in, n, enc, n + 64);
        if (c > 0) {
            int rc = b2_ndlz_decompress(&u, enc, c, out, n);
            FUZZ_CHECK(rc == n && !memcmp(out, in, (size_t)n), "ndlz round trip");
        }
    }
    free(out);
    free(in);
    free(enc);
}

static void run_zfp(const uint8_t *q, const uint8_t *s, size_t len)
{
    b2_block_geometry g;
    int ts = q[2] & 1 ? 8 : 4;
    int64_t n = geometry(q[2] >> 1, q + 3, &g) * ts;
    b2_codec_use u = {.compcode = B2_CODEC_ZFP_ACC + q[0] % 3, .fmt = B2_CODEC_FORMAT_PLUGIN,
                      .clevel = 5, .meta = q[1], .typesize = ts, .geom = &g};
    uint8_t *out = malloc((size_t)n), *in = NULL, *enc = NULL;
    if (!out)
        return;
    if (!(q[0] & 0x80)) {
        b2_zfp_decompress(&u, s, (int)len, out, (int)n);
    } else if ((in = fit(s, len, (size_t)n)) && (enc = malloc((size_t)n * 2 + 1024))) {
        /* finite values only: what zfp does with NaN and infinities is its own affair */
        for (int64_t i = 0; i < n; i += ts) {
            double v = ts == 4 ? (double)*(float *)(void *)(in + i) : *(double *)(void *)(in + i);
            if (!isfinite(v))
                memset(in + i, 0, (size_t)ts);
        }
        int c = b2_zfp_compress(&u, in, (int)n, enc, (int)n * 2 + 1024);
        if (c > 0)
            FUZZ_CHECK(b2_zfp_decompress(&u, enc, c, out, (int)n) == (int)n, "zfp round trip");
    }
    free(out);
    free(in);
    free(enc);
}

/* ndcell (mean 0) or ndmean (mean 1): backward on the stream, and a round trip. */
static void run_cells(int mean, const uint8_t *q, const uint8_t *s, size_t len)
{
    b2_block_geometry g;
    int32_t ts = mean ? (q[1] & 1 ? 8 : 4) : 1 + (q[1] & 15);
    int64_t n = geometry(q[2], q + 3, &g) * ts;
    int8_t meta = (int8_t)q[0];
    uint8_t *in = fit(s, len, (size_t)n), *a = fuzz_malloc((size_t)n), *b = fuzz_malloc((size_t)n);
    if (in && a && b) {
        if (mean) {
            b2_ndmean_backward(meta, ts, &g, (int32_t)n, in, a);
            if (b2_ndmean_forward(meta, ts, &g, (int32_t)n, in, a) == 0)
                FUZZ_CHECK(b2_ndmean_backward(meta, ts, &g, (int32_t)n, a, b) == 0, "ndmean back");
        } else {
            b2_ndcell_backward(meta, ts, &g, (int32_t)n, in, a);
            if (b2_ndcell_forward(meta, ts, &g, (int32_t)n, in, a) == 0)
                FUZZ_CHECK(b2_ndcell_backward(meta, ts, &g, (int32_t)n, a, b) == 0 &&
                               !memcmp(b, in, (size_t)n),
                           "ndcell round trip");
        }
    }
    free(in);
    free(a);
    free(b);
}

static void run_bytedelta(const uint8_t *q, const uint8_t *s, size_t len)
{
    int32_t ts = q[0], n = (int32_t)len;
    uint8_t *a = fuzz_malloc(len), *b = fuzz_malloc(len);
    if (a && b) {
        b2_bytedelta_decode(ts, n, s, a, q[1] & 1);
        if (b2_bytedelta_encode(ts, n, s, a) == 0)
            FUZZ_CHECK(b2_bytedelta_decode(ts, n, a, b, 0) == 0 && !memcmp(b, s, len),
                       "bytedelta round trip");
    }
    free(a);
    free(b);
}

static void run_trunc(int prec, const uint8_t *q, const uint8_t *s, size_t len)
{
    static const int32_t sizes[4] = {1, 2, 4, 8};
    int32_t ts = prec ? (q[1] & 1 ? 8 : 4) : sizes[q[1] & 3];
    int32_t n = (int32_t)(len / (size_t)ts * (size_t)ts);
    uint8_t *a = fuzz_malloc(len);
    if (a) {
        if (prec)
            b2_trunc_prec((int8_t)q[0], ts, n, s, a);
        else
            b2_int_trunc((int8_t)q[0], ts, n, s, a);
    }
    free(a);
}

static void run_blosclz(const uint8_t *q, const uint8_t *s, size_t len)
{
    int cap = (int)fuzz_le(q + 1, 2) + 1, need = (int)(fuzz_le(q + 3, 2) % (uint64_t)(cap + 1));
    uint8_t *a = malloc((size_t)cap), *b = malloc((size_t)cap);
    if (a && b && !(q[0] & 1)) {
        int whole = b2_blosclz_decompress(s, (int)len, a, cap);
        int pre = b2_blosclz_decompress_prefix(s, (int)len, b, cap, need);
        if (whole >= 0 && pre >= 0)
            FUZZ_CHECK(pre >= (need < whole ? need : whole) && pre <= whole &&
                           !memcmp(a, b, (size_t)pre),
                       "blosclz prefix decoding differs");
    } else if (a && b) {
        uint8_t *enc = malloc(len + 64);
        int c = enc ? b2_blosclz_compress(1 + q[5] % 9, s, (int)len, enc, (int)len + 64) : 0;
        if (c > 0) {
            uint8_t *dec = fuzz_malloc(len);
            FUZZ_CHECK(dec && b2_blosclz_decompress(enc, c, dec, (int)len) == (int)len &&
                           !memcmp(dec, s, len),
                       "blosclz round trip");
            free(dec);
        }
        free(enc);
    }
    free(a);
    free(b);
}

typedef b2_block_fn shuf_fn;

static void run_shuffles(const uint8_t *q, const uint8_t *s, size_t len)
{
    int32_t unit = 1 + q[0], n = (int32_t)len;
    size_t cap = len;
    uint8_t *ref = fuzz_malloc(cap), *got = fuzz_malloc(cap), *back = fuzz_malloc(cap);
    if (!ref || !got || !back)
        goto out;
    /* every level this CPU runs, the portable one first */
    shuf_fn sh[B2_SIMD_AVX512 + 1], un[B2_SIMD_AVX512 + 1], bs[B2_SIMD_AVX512 + 1];
    shuf_fn bu[B2_SIMD_AVX512 + 1];
    int levels = 0;
    for (int l = 0; l <= b2_simd_level(); l++) {
        const b2_filter_kernels *k = b2_filter_kernels_at(l);
        if (!k)
            break;
        sh[levels] = k->shuffle, un[levels] = k->unshuffle, bs[levels] = k->bitshuffle;
        bu[levels++] = k->bitunshuffle;
    }
    const shuf_fn *fwd = q[1] & 1 ? bs : sh, *bwd = q[1] & 1 ? bu : un;
    fwd[0](unit, n, s, ref);
    bwd[0](unit, n, ref, back);
    FUZZ_CHECK(!memcmp(back, s, len), "unshuffle does not undo shuffle");
    for (int l = 1; l < levels; l++) {
        fwd[l](unit, n, s, got);
        FUZZ_CHECK(!memcmp(got, ref, len), "a SIMD shuffle differs from the portable one");
        bwd[l](unit, n, s, got);
        bwd[0](unit, n, s, back);
        FUZZ_CHECK(!memcmp(got, back, len), "a SIMD unshuffle differs from the portable one");
    }
    if (!(q[1] & 1) && unit > 1 && unit <= B2_PLANES_MAX && n >= unit) {
        /* unshuffle of elements [i0, i0 + k) from planes of e elements, and the part kernels */
        int32_t e = n / unit, i0 = (int32_t)(fuzz_le(q + 2, 2) % (uint64_t)e);
        int32_t k = (int32_t)(fuzz_le(q + 4, 2) % (uint64_t)(e - i0 + 1));
        const uint8_t *pl[B2_PLANES_MAX];
        for (int32_t j = 0; j < unit; j++)
            pl[j] = s + (size_t)j * (size_t)e;
        b2_unshuffle_planes_generic(unit, pl, i0, k, ref);
        b2_unshuffle_planes_kernel(unit)(unit, pl, i0, k, got);
        FUZZ_CHECK(!memcmp(got, ref, (size_t)k * (size_t)unit), "planes kernel differs");
        b2_unshuffle_part_generic(unit, e, k, s + i0, ref);
        b2_unshuffle_part_kernel(unit)(unit, e, k, s + i0, got);
        FUZZ_CHECK(!memcmp(got, ref, (size_t)k * (size_t)unit), "unshuffle part kernel differs");
        memset(ref, 0, cap);
        memset(got, 0, cap);
        b2_shuffle_part_generic(unit, e, k, s, ref + i0);
        b2_shuffle_part_kernel(unit)(unit, e, k, s, got + i0);
        FUZZ_CHECK(!memcmp(got, ref, len), "shuffle part kernel differs");
    }
out:
    free(ref);
    free(got);
    free(back);
}

static void run_delta(const uint8_t *q, const uint8_t *s, size_t len)
{
    int32_t ts = 1 + (q[0] & 15), n = (int32_t)(len / 2);
    uint8_t *a = fuzz_malloc(len), *b = fuzz_malloc(len);
    if (a && b) {
        const uint8_t *ref = q[1] & 1 ? s + n : NULL; /* block 0's decoded bytes, or none */
        b2_delta_decode(ref, ts, n, s, a);
        b2_delta_encode(ref, ts, n, s, a);
        b2_delta_decode(ref, ts, n, a, b);
        FUZZ_CHECK(!memcmp(b, s, (size_t)n), "delta round trip");
    }
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 || size - 8 > MAX_STREAM)
        return 0;
    const uint8_t *q = data + 1, *s = data + 8;
    size_t len = size - 8;
    switch (data[0] % 10) {
    case 0: run_ndlz(q, s, len); break;
    case 1: run_zfp(q, s, len); break;
    case 2: run_cells(0, q, s, len); break;
    case 3: run_cells(1, q, s, len); break;
    case 4: run_bytedelta(q, s, len); break;
    case 5: run_trunc(0, q, s, len); break;
    case 6: run_trunc(1, q, s, len); break;
    case 7: run_blosclz(q, s, len); break;
    case 8: run_shuffles(q, s, len); break;
    default: run_delta(q, s, len); break;
    }
    return 0;
}

/* Seeds: for each kernel, parameters and a stream of float data; for the
 * decoders, also streams their encoders made. */
static int seed(const char *outdir, const char *name, const uint8_t *q, const uint8_t *s, size_t n)
{
    uint8_t *b = malloc(8 + n);
    if (!b)
        return 0;
    memcpy(b, q, 8);
    memcpy(b + 8, s, n);
    int ok = fuzz_write_seed(outdir, name, b, 8 + n);
    free(b);
    return ok;
}

int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    (void)argc, (void)argv;
    int n = 0;
    float v[1024];
    for (int i = 0; i < 1024; i++)
        v[i] = (float)(i % 29) * 0.5f + (float)(i / 32);
    uint8_t enc[8192];
    char name[32];
    static const uint8_t params[10][8] = {
        {0, 2, 31, 31},       /* ndlz 4x4 cells, 32 x 32 bytes, round trip */
        {1, 0x81, 0xfe, 2, 7, 7},    /* zfp_acc, float32, 2-D 8x8, round trip */
        {2, 2, 0, 1, 7, 7},   /* ndcell side 2, 1-byte items, 2-D */
        {3, 2, 0, 1, 7, 7},   /* ndmean side 2, float32 */
        {4, 4},               /* bytedelta, typesize 4 */
        {5, 0xfc, 2},         /* int_trunc 4 bits, typesize 4 */
        {6, 10, 0},           /* trunc_prec 10 bits, float32 */
        {7, 1, 0xff, 0x0f, 0, 1, 5}, /* blosclz round trip */
        {8, 3, 0, 5, 0, 100}, /* shuffle of 4-byte items; planes from item 5 */
        {9, 3, 1},            /* delta, 4-byte items, against block 0 */
    };
    for (int k = 0; k < 10; k++) {
        snprintf(name, sizeof name, "k%d", k);
        n += seed(outdir, name, params[k], (const uint8_t *)v, sizeof v);
    }
    /* encoded streams for the decoders */
    b2_block_geometry g2 = {2, {32, 32}};
    b2_codec_use u = {.compcode = B2_CODEC_NDLZ, .fmt = B2_CODEC_FORMAT_PLUGIN, .clevel = 5,
                      .meta = 4, .typesize = 1, .geom = &g2};
    int c = b2_ndlz_compress(&u, (const uint8_t *)v, 1024, enc, sizeof enc);
    uint8_t qn[8] = {0, 0, 31, 31};
    if (c > 0)
        n += seed(outdir, "ndlz_stream", qn, enc, (size_t)c);
    b2_block_geometry g8 = {2, {8, 8}};
    for (int m = 0; m < 3; m++) {
        u = (b2_codec_use){.compcode = B2_CODEC_ZFP_ACC + m, .fmt = B2_CODEC_FORMAT_PLUGIN,
                           .clevel = 5, .meta = m == 0 ? 0xfe : m == 1 ? 10 : 50, .typesize = 4,
                           .geom = &g8};
        c = b2_zfp_compress(&u, (const uint8_t *)v, 256, enc, sizeof enc);
        uint8_t qz[8] = {1, (uint8_t)m, u.meta, 2, 7, 7};
        snprintf(name, sizeof name, "zfp%d_stream", m);
        if (c > 0)
            n += seed(outdir, name, qz, enc, (size_t)c);
    }
    c = b2_blosclz_compress(5, (const uint8_t *)v, sizeof v, enc, sizeof enc);
    uint8_t qb[8] = {7, 0, 0xff, 0x0f, 0, 2};
    if (c > 0)
        n += seed(outdir, "blosclz_stream", qb, enc, (size_t)c);
    return n;
}
