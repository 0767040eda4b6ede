/* SPDX-License-Identifier: BSD-3-Clause */
/* Filter layer tests: the worked examples of doc/format/filters.md as exact bytes, every
 * SIMD kernel against the portable one and a bit-by-bit reference, inverse
 * round trips, and pipeline round trips (src never modified).
 * With B2_FILTERS_BENCH=1 in the environment it also prints kernel speeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "filters.h"
#include "simd_kernels.h"
#include "b2_common.h"
#include "check.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rnd();
}

typedef void (*kern_fn)(int32_t, int32_t, const uint8_t *, uint8_t *);

/* Kernels of each level that this CPU can run (index = level), from the
 * kernel tables: hw_level is the highest level both the CPU and the build have. */
static int hw_level;
#define NLEVELS (B2_SIMD_AVX512 + 1)
static const char *level_name[NLEVELS];
static kern_fn shuf_k[NLEVELS], unshuf_k[NLEVELS], bshuf_k[NLEVELS], bunshuf_k[NLEVELS];

static void load_levels(void)
{
    b2_simd_force_level(-1);
    hw_level = 0;
    for (int l = 0; l <= b2_simd_level() && b2_filter_kernels_at(l); l++) {
        const b2_filter_kernels *k = b2_filter_kernels_at(l);
        shuf_k[l] = k->shuffle, unshuf_k[l] = k->unshuffle;
        bshuf_k[l] = k->bitshuffle, bunshuf_k[l] = k->bitunshuffle;
        level_name[l] = b2_simd_level_name(l);
        hw_level = l;
    }
}
/* Dispatchers with the level capped through the environment. */
static void bunshuf_dispatch(int32_t ts, int32_t n, const uint8_t *s, uint8_t *d)
{
    b2_bitunshuffle(ts, n, s, d, 0);
}

static void set_level(int level) { b2_simd_force_level(level); }

/* ---- bit-by-bit references written straight from the spec formulas ---- */
static void ref_shuffle(int32_t s, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t q = s > 0 ? n / s : 0;
    memcpy(out, in, (size_t)n);
    if (s <= 1)
        return;
    for (int32_t i = 0; i < q; i++)
        for (int32_t j = 0; j < s; j++)
            out[j * q + i] = in[i * s + j];
}

static void ref_bitshuffle(int32_t ts, int32_t n, const uint8_t *in, uint8_t *out)
{
    int32_t e8 = (n / ts) / 8 * 8;
    memcpy(out, in, (size_t)n);
    memset(out, 0, (size_t)e8 * ts);
    for (int32_t i = 0; i < e8; i++)
        for (int32_t j = 0; j < ts; j++)
            for (int b = 0; b < 8; b++) {
                size_t k = ((size_t)(j * 8 + b)) * e8 + i;
                if (in[(size_t)i * ts + j] >> b & 1)
                    out[k / 8] |= (uint8_t)(1u << (k % 8));
            }
}

static int hexeq(const uint8_t *got, const char *hex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 3 * i, "%2x", &v) != 1 || got[i] != v)
            return 0;
    }
    return 1;
}

/* Run a forward kernel at every available level and its inverse, against the
 * expected hex bytes. */
static void example(const char *what, kern_fn *fwd, kern_fn *inv, int32_t unit,
                    const uint8_t *in, int32_t n, const char *hex)
{
    uint8_t out[256], back[256];
    for (int l = 0; l <= hw_level; l++) {
        memset(out, 0xEE, sizeof out);
        fwd[l](unit, n, in, out);
        CHECK(hexeq(out, hex, (size_t)n), "%s forward (%s)", what, level_name[l]);
        memset(back, 0xEE, sizeof back);
        inv[l](unit, n, out, back);
        CHECK(!memcmp(back, in, (size_t)n), "%s inverse (%s)", what, level_name[l]);
    }
}

static void test_examples(void)
{
    uint8_t in[64];
    for (int i = 0; i < 64; i++)
        in[i] = (uint8_t)(i + 1);
    const uint8_t i16[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    example("shuffle 4 x int16", shuf_k, unshuf_k, 2, i16, 8, "00 02 04 06 01 03 05 07");
    example("shuffle 19 bytes ts2", shuf_k, unshuf_k, 2, in, 19,
            "01 03 05 07 09 0b 0d 0f 11 02 04 06 08 0a 0c 0e 10 12 13");
    example("shuffle 10 bytes ts4", shuf_k, unshuf_k, 4, in, 10, "01 05 02 06 03 07 04 08 09 0a");
    uint8_t v16[32];
    for (int i = 0; i < 16; i++) {
        v16[2 * i] = (uint8_t)(i + 1);
        v16[2 * i + 1] = (uint8_t)i;
    }
    example("shuffle chunk 16 x int16", shuf_k, unshuf_k, 2, v16, 32,
            "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 "
            "00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f");

    example("bitshuffle 4 x int16", bshuf_k, bunshuf_k, 2, i16, 8, "00 01 02 03 04 05 06 07");
    const uint8_t e8[16] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0xff, 0xff};
    example("bitshuffle 8 x int16", bshuf_k, bunshuf_k, 2, e8, 16,
            "d5 e6 f8 80 80 80 80 80 80 80 80 80 80 80 80 80");
    example("bitshuffle 19 bytes ts2", bshuf_k, bunshuf_k, 2, in, 19,
            "ff aa cc f0 00 00 00 00 00 55 66 78 80 00 00 00 11 12 13");
    example("bitshuffle chunk 16 x int16", bshuf_k, bunshuf_k, 2, v16, 32,
            "55 55 66 66 78 78 80 7f 00 80 00 00 00 00 00 00 "
            "aa aa cc cc f0 f0 00 ff 00 00 00 00 00 00 00 00");

    /* Version-2 rule: 9 elements -> untouched; 8 elements + spare -> transposed. */
    uint8_t out[32];
    b2_bitunshuffle(2, 19, in, out, 1);
    CHECK(!memcmp(out, in, 19), "legacy bitunshuffle of 9 elements is a copy");
    uint8_t shuffled[17];
    b2_bitshuffle(2, 17, in, shuffled);
    b2_bitunshuffle(2, 17, shuffled, out, 1);
    CHECK(!memcmp(out, in, 16) && out[16] == 0,
          "legacy bitunshuffle of 8 elements + spare byte (spare written as zero)");

    /* Delta, doc/format/filters.md §4.1 (typesize 4, two blocks of 8 int32). */
    const uint32_t b0[8] = {10, 11, 13, 13, 100, 101, 102, 103};
    const uint32_t b1[8] = {10, 12, 13, 13, 99, 101, 102, 104};
    const uint32_t y0[8] = {10, 1, 6, 0, 105, 1, 3, 1};
    const uint32_t y1[8] = {0, 7, 0, 0, 7, 0, 0, 15};
    uint8_t x0[32], x1[32], e0[32], e1[32], d[32];
    for (int i = 0; i < 8; i++) {
        b2_store_le32(x0 + 4 * i, b0[i]);
        b2_store_le32(x1 + 4 * i, b1[i]);
        b2_store_le32(e0 + 4 * i, y0[i]);
        b2_store_le32(e1 + 4 * i, y1[i]);
    }
    b2_delta_encode(NULL, 4, 32, x0, d);
    CHECK(!memcmp(d, e0, 32), "delta block 0 example");
    b2_delta_decode(NULL, 4, 32, e0, d);
    CHECK(!memcmp(d, x0, 32), "delta block 0 decode");
    b2_delta_encode(x0, 4, 32, x1, d);
    CHECK(!memcmp(d, e1, 32), "delta block 1 example");
    b2_delta_decode(x0, 4, 32, e1, d);
    CHECK(!memcmp(d, x1, 32), "delta block 1 decode");

    /* trunc_prec, doc/format/filters.md §5. */
    const uint8_t f[6] = {0x0b, 0x30, 0x55, 0x7a, 0xAB, 0xCD};
    uint8_t t[8];
    CHECK(b2_trunc_prec(10, 4, 6, f, t) == 0 && hexeq(t, "00 20 55 7a ab cd", 6), "trunc p=10");
    CHECK(b2_trunc_prec(-10, 4, 4, f, t) == 0 && hexeq(t, "00 30 55 7a", 4), "trunc p=-10");
    const uint8_t g[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(b2_trunc_prec(20, 8, 8, g, t) == 0 && hexeq(t, "00 00 00 00 05 06 07 08", 8), "trunc ts8 p=20");
    /* Edges: valid 1..M and -(M-1)..-1. */
    const struct { int8_t p; int32_t ts; int ok; } edge[] = {
        {0, 4, 0}, {23, 4, 1}, {24, 4, 0}, {-22, 4, 1}, {-23, 4, 0}, {1, 4, 1}, {-1, 4, 1},
        {0, 8, 0}, {52, 8, 1}, {53, 8, 0}, {-51, 8, 1}, {-52, 8, 0}, {-128, 8, 0}, {127, 8, 0},
        {10, 2, 0}, {10, 16, 0}, {10, 1, 0},
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        int rc = b2_trunc_prec(edge[i].p, edge[i].ts, 8, g, t);
        CHECK(edge[i].ok ? rc == 0 : rc == B2_ERR_FILTER, "trunc edge p=%d ts=%d rc=%d",
              edge[i].p, edge[i].ts, rc);
    }
    CHECK(b2_trunc_prec(23, 4, 8, g, t) == 0 && !memcmp(t, g, 8), "trunc p=M keeps everything");
}

/* Sizes that hit vector boundaries, odd tails and n < unit. */
static const int32_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100,
                                127, 128, 129, 255, 256, 257, 511, 512, 777, 1000, 1024, 2048,
                                4099, 8192, 12345, 65536, 65543};
static const int32_t units[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 32,
                                33, 64, 255, 2048, 2049 /* the largest unit bit shuffle strips take, and one more */};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define NUNITS (int)(sizeof units / sizeof units[0])

static void test_kernels_vs_reference(void)
{
    size_t cap = 70000;
    uint8_t *in = malloc(cap), *want = malloc(cap), *got = malloc(cap), *back = malloc(cap);
    int combos = 0;
    for (int ui = 0; ui < NUNITS; ui++)
        for (int si = 0; si < NSIZES; si++) {
            int32_t u = units[ui], n = sizes[si];
            fill_random(in, (size_t)n);
            combos++;
            for (int pass = 0; pass < 2; pass++) {  /* byte shuffle, bit shuffle */
                kern_fn *fwd = pass ? bshuf_k : shuf_k, *inv = pass ? bunshuf_k : unshuf_k;
                (pass ? ref_bitshuffle : ref_shuffle)(u, n, in, want);
                for (int l = 0; l <= hw_level + 1; l++) {
                    /* l <= hw_level: the kernel itself; hw_level + 1: dispatcher at each cap */
                    int via = l > hw_level;
                    for (int cap_l = via ? 0 : l; cap_l <= (via ? hw_level : l); cap_l++) {
                        memset(got, 0xA5, (size_t)n + 1);
                        memset(back, 0x5A, (size_t)n + 1);
                        if (via) {
                            set_level(cap_l);
                            (pass ? b2_bitshuffle : b2_shuffle)(u, n, in, got);
                            (pass ? bunshuf_dispatch : b2_unshuffle)(u, n, got, back);
                        } else {
                            fwd[l](u, n, in, got);
                            inv[l](u, n, got, back);
                        }
                        CHECK(!memcmp(got, want, (size_t)n) && got[n] == 0xA5,
                              "%s unit %d n %d level %s%s", pass ? "bitshuffle" : "shuffle", u, n,
                              level_name[cap_l], via ? " (dispatch)" : "");
                        CHECK(!memcmp(back, in, (size_t)n) && back[n] == 0x5A,
                              "%s inverse unit %d n %d level %s%s", pass ? "bitshuffle" : "shuffle",
                              u, n, level_name[cap_l], via ? " (dispatch)" : "");
                    }
                }
            }
        }
    b2_simd_force_level(-1);
    printf("kernels vs reference: %d (unit, n) combos, levels generic..%s\n", combos,
           level_name[hw_level]);
    free(in), free(want), free(got), free(back);
}

static void test_delta(void)
{
    size_t cap = 5000;
    uint8_t *ref = malloc(cap), *in = malloc(cap), *enc = malloc(cap), *dec = malloc(cap);
    const int32_t tss[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 40};
    int rounds = 0;
    for (size_t t = 0; t < sizeof tss / sizeof tss[0]; t++)
        for (int r = 0; r < 40; r++) {
            int32_t ts = tss[t], n = (int32_t)(rnd() % 4000);
            int32_t u = (ts == 1 || ts == 2 || ts == 4 || ts == 8) ? ts : ts % 8 == 0 ? 8 : 1;
            fill_random(ref, (size_t)n);
            fill_random(in, (size_t)n);
            for (int withref = 0; withref < 2; withref++) {
                const uint8_t *R = withref ? ref : NULL;
                b2_delta_encode(R, ts, n, in, enc);
                /* Check against the formula, word by word (bytewise XOR). */
                int32_t m = n / u, ok = 1;
                for (int32_t i = 0; i < m * u; i++) {
                    uint8_t prev = withref ? ref[i] : (i >= u ? in[i - u] : 0);
                    ok &= enc[i] == (uint8_t)(in[i] ^ prev);
                }
                ok &= !memcmp(enc + m * u, in + m * u, (size_t)(n - m * u));
                CHECK(ok, "delta encode ts %d n %d ref %d", ts, n, withref);
                b2_delta_decode(R, ts, n, enc, dec);
                CHECK(!memcmp(dec, in, (size_t)n), "delta round trip ts %d n %d ref %d", ts, n,
                      withref);
                rounds++;
            }
        }
    printf("delta: %d round trips\n", rounds);
    free(ref), free(in), free(enc), free(dec);
}

/* ---- pipeline ---- */
static void run_pipeline(const char *what, const uint8_t *filters, const uint8_t *metas,
                         int32_t ts, int32_t n, int lossy)
{
    b2_pipeline p = {.typesize = ts, .version = 5};
    memcpy(p.filters, filters, 6);
    memcpy(p.metas, metas, 6);
    CHECK(b2_pipeline_check(&p) == 0, "%s: check", what);
    uint8_t *blk0 = malloc((size_t)n + 1), *src = malloc((size_t)n + 1),
            *copy = malloc((size_t)n + 1), *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1),
            *work = malloc((size_t)n + 1), *tmp = malloc((size_t)n + 1), *dst = malloc((size_t)n + 1),
            *dec0 = malloc((size_t)n + 1);
    fill_random(blk0, (size_t)n);
    /* Smooth-ish data so trunc_prec keeps most bits. */
    for (int32_t i = 0; i < n; i++)
        src[i] = (uint8_t)(blk0[i] ^ (rnd() % 4 == 0 ? rnd() : 0));
    memcpy(copy, src, (size_t)n);

    /* Block 0 (no ref), then a second block delta-coded against decoded block 0. */
    const uint8_t *out = NULL;
    int rc = b2_pipeline_forward(&p, blk0, n, NULL, a, b, &out);
    CHECK(rc == 0, "%s: forward block 0 rc %d", what, rc);
    memcpy(work, out, (size_t)n);
    rc = b2_pipeline_backward(&p, work, n, NULL, tmp, dec0);
    CHECK(rc == 0, "%s: backward block 0", what);
    if (!lossy)
        CHECK(!memcmp(dec0, blk0, (size_t)n), "%s: block 0 round trip", what);

    rc = b2_pipeline_forward(&p, src, n, dec0, a, b, &out);
    CHECK(rc == 0 && (out == a || out == b || !b2_pipeline_active(&p)), "%s: forward", what);
    CHECK(!memcmp(src, copy, (size_t)n), "%s: src unchanged by forward", what);
    memcpy(work, out, (size_t)n);
    dst[n] = 0x77;
    rc = b2_pipeline_backward(&p, work, n, dec0, tmp, dst);
    CHECK(rc == 0 && dst[n] == 0x77, "%s: backward", what);
    if (!lossy) {
        CHECK(!memcmp(dst, src, (size_t)n), "%s: round trip n %d", what, n);
    } else {
        /* Applying the (idempotent) lossy forward again must give the same bytes. */
        const uint8_t *out2;
        b2_pipeline_forward(&p, dst, n, dec0, a, b, &out2);
        memcpy(work, out2, (size_t)n);
        uint8_t *dst2 = malloc((size_t)n + 1);
        b2_pipeline_backward(&p, work, n, dec0, tmp, dst2);
        CHECK(!memcmp(dst, dst2, (size_t)n), "%s: lossy result is stable", what);
        free(dst2);
    }
    free(blk0), free(src), free(copy), free(a), free(b), free(work), free(tmp), free(dst);
    free(dec0);
}

static void test_pipeline(void)
{
    static const struct {
        const char *name;
        uint8_t f[6], m[6];
        int32_t ts;
        int lossy;
    } cases[] = {
        {"none", {0, 0, 0, 0, 0, 0}, {0}, 4, 0},
        {"shuffle", {0, 0, 0, 0, 0, 1}, {0}, 4, 0},
        {"shuffle meta 3", {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 3}, 8, 0},
        {"bitshuffle", {0, 0, 0, 0, 0, 2}, {0}, 8, 0},
        {"delta+shuffle", {0, 0, 0, 0, 3, 1}, {0}, 4, 0},
        {"bitshuffle+delta", {0, 0, 0, 0, 2, 3}, {0}, 2, 0},
        {"shuffle,delta,bitshuffle", {1, 0, 3, 0, 0, 2}, {0}, 4, 0},
        {"delta,shuffle,bitshuffle,shuffle", {3, 1, 2, 1, 0, 0}, {0, 0, 0, 2, 0, 0}, 8, 0},
        {"six filters", {1, 2, 3, 1, 2, 3}, {5, 0, 0, 0, 0, 0}, 12, 0},
        {"odd typesize", {0, 3, 0, 2, 0, 1}, {0}, 7, 0},
        {"trunc+shuffle", {0, 0, 0, 0, 4, 1}, {0, 0, 0, 0, 10, 0}, 4, 1},
        {"trunc,shuffle,delta", {4, 1, 0, 3, 0, 0}, {0xF6, 0, 0, 0, 0, 0}, 8, 1},
    };
    const int32_t ns[] = {32, 1000, 4096, 4099, 65536 + 7};
    int runs = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            run_pipeline(cases[c].name, cases[c].f, cases[c].m, cases[c].ts, ns[k], cases[c].lossy);
            runs++;
        }

    /* Refusals. */
    b2_pipeline p = {.filters = {0, 0, 0, 0, 0, 5}, .typesize = 4, .version = 5};
    uint8_t buf[64] = {0}, a[64], b[64], t[64], d[64];
    const uint8_t *out;
    CHECK(b2_pipeline_check(&p) == B2_ERR_UNSUPPORTED, "id 5 refused by check");
    CHECK(b2_pipeline_forward(&p, buf, 64, NULL, a, b, &out) == B2_ERR_UNSUPPORTED, "id 5 forward");
    CHECK(b2_pipeline_backward(&p, buf, 64, NULL, t, d) == B2_ERR_UNSUPPORTED, "id 5 backward");
    p.filters[5] = 32; /* ndcell needs a block geometry */
    p.metas[5] = 2;
    CHECK(b2_pipeline_check(&p) == 0, "id 32 checked without a geometry");
    CHECK(b2_pipeline_backward(&p, buf, 64, NULL, t, d) == B2_ERR_FILTER, "id 32 backward");
    p.metas[5] = 0;
    p.filters[5] = 34; /* bytedelta_buggy: decode only */
    CHECK(b2_pipeline_backward(&p, buf, 64, NULL, t, d) == 0, "id 34 backward");
    CHECK(b2_pipeline_check(&p) == B2_ERR_UNSUPPORTED, "id 34 refused for encoding");
    CHECK(b2_pipeline_forward(&p, buf, 64, NULL, a, b, &out) == B2_ERR_UNSUPPORTED, "id 34 forward");
    p.filters[5] = 255;
    CHECK(b2_pipeline_check(&p) == B2_ERR_UNSUPPORTED, "id 255 refused");
    /* Version 3 ignores slot 5 entirely. */
    p.version = 3;
    CHECK(b2_pipeline_check(&p) == 0 && !b2_pipeline_active(&p), "version 3 slot 5 ignored");
    for (int i = 0; i < 64; i++)
        buf[i] = (uint8_t)i;
    CHECK(b2_pipeline_backward(&p, buf, 64, NULL, t, d) == 0 && !memcmp(d, buf, 64),
          "version 3 backward is a copy");
    /* trunc_prec parameters. */
    b2_pipeline q = {.filters = {0, 0, 0, 0, 4, 1}, .metas = {0, 0, 0, 0, 0, 0}, .typesize = 4,
                     .version = 5};
    CHECK(b2_pipeline_check(&q) == B2_ERR_FILTER, "trunc meta 0 refused");
    q.metas[4] = 23;
    CHECK(b2_pipeline_check(&q) == 0, "trunc meta 23 ts 4 ok");
    q.typesize = 2;
    CHECK(b2_pipeline_check(&q) == B2_ERR_FILTER, "trunc ts 2 refused");
    CHECK(b2_pipeline_forward(&q, buf, 64, NULL, a, b, &out) == B2_ERR_FILTER, "trunc ts 2 forward");
    CHECK(b2_pipeline_backward(&q, buf, 64, NULL, t, d) == 0, "trunc skipped on decode");
    /* Version 2 uses the legacy bitunshuffle: 9 elements of 2 bytes come back as is. */
    b2_pipeline v2 = {.filters = {0, 0, 0, 0, 0, 2}, .typesize = 2, .version = 2};
    uint8_t w[18];
    memcpy(w, buf, 18);
    CHECK(b2_pipeline_backward(&v2, w, 18, NULL, t, d) == 0 && !memcmp(d, buf, 18),
          "version 2 bitunshuffle rule");
    printf("pipeline: %d round trips + refusal checks\n", runs);
}

/* ---- optional speed report ---- */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double mbps(kern_fn f, int32_t ts, const uint8_t *in, uint8_t *out, int32_t n)
{
    double best = 1e9;
    int reps = n < (1 << 20) ? (1 << 22) / n : 1;
    for (int r = 0; r < 7; r++) {
        double t0 = now();
        for (int k = 0; k < reps; k++)
            f(ts, n, in, out);
        double dt = (now() - t0) / reps;
        if (dt < best)
            best = dt;
    }
    return n / best / 1e6;
}

/* B2_FILTERS_BENCH=1 times 4 MB buffers; a larger value is the size in bytes. */
static void bench(const char *arg)
{
    int32_t n = atoi(arg) > 1 ? atoi(arg) : 4 << 20;
    uint8_t *in = malloc((size_t)n), *out = malloc((size_t)n), *tmp = malloc((size_t)n);
    fill_random(in, (size_t)n);
    for (int32_t ts = 4; ts <= 8; ts += 4)
        for (int l = 0; l <= hw_level; l++) {
            shuf_k[l](ts, n, in, tmp);
            bshuf_k[l](ts, n, in, out);
            printf("bench %d bytes ts %d %-7s: shuffle %6.0f unshuffle %6.0f bitshuffle %6.0f "
                   "bitunshuffle %6.0f MB/s\n", n, ts, level_name[l],
                   mbps(shuf_k[l], ts, in, out, n), mbps(unshuf_k[l], ts, tmp, out, n),
                   mbps(bshuf_k[l], ts, in, out, n), mbps(bunshuf_k[l], ts, tmp, out, n));
        }
    free(in), free(out), free(tmp);
}

/* Row parts (what decoders write straight into strided destinations): every
 * unit 1..16 and 24, every SIMD level, parts at odd offsets and lengths that
 * are not multiples of a vector, against the whole-block kernels. */
static void test_parts(void)
{
    int32_t units[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24};
    uint32_t x = 7;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        int32_t unit = units[u];
        for (int32_t q = 1; q <= 300; q += 37) {
            int32_t n = q * unit;
            uint8_t *in = malloc((size_t)n), *sh = malloc((size_t)n), *un = malloc((size_t)n);
            uint8_t *part = malloc((size_t)n + 1), *planes = malloc((size_t)n);
            for (int32_t i = 0; i < n; i++)
                in[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
            b2_shuffle_generic(unit, n, in, sh);
            for (int l = 0; l <= hw_level; l++) {
                set_level(l);
                for (int32_t i0 = 0; i0 < q; i0 += 1 + q / 5) {
                    for (int32_t cnt = 0; i0 + cnt <= q; cnt += 1 + cnt / 2 + (cnt > 40) * 13) {
                        part[(size_t)cnt * unit] = 0xA5;
                        b2_unshuffle_part_kernel(unit)(unit, q, cnt, sh + i0, part);
                        CHECK(!memcmp(part, in + (size_t)i0 * unit, (size_t)cnt * unit) &&
                                  part[(size_t)cnt * unit] == 0xA5,
                              "unshuffle part unit %d q %d [%d,+%d) %s", unit, q, i0, cnt,
                              level_name[l]);
                        memcpy(planes, sh, (size_t)n);
                        memset(un, 0, (size_t)n);
                        for (int32_t j = 0; j < unit; j++) /* clear the part's bytes */
                            memset(planes + (size_t)j * q + i0, 0, (size_t)cnt);
                        b2_shuffle_part_kernel(unit)(unit, q, cnt, in + (size_t)i0 * unit, planes + i0);
                        CHECK(!memcmp(planes, sh, (size_t)n), "shuffle part unit %d q %d [%d,+%d) %s",
                              unit, q, i0, cnt, level_name[l]);
                    }
                }
            }
            b2_simd_force_level(-1);
            free(in);
            free(sh);
            free(un);
            free(part);
            free(planes);
        }
    }
}

int main(void)
{
    load_levels();
    printf("hardware SIMD level: %s\n", level_name[hw_level]);
    test_examples();
    test_kernels_vs_reference();
    test_delta();
    test_pipeline();
    test_parts();
    if (getenv("B2_FILTERS_BENCH"))
        bench(getenv("B2_FILTERS_BENCH"));
    return b2t_summary(NULL);
}
