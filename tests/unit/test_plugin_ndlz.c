/* SPDX-License-Identifier: BSD-3-Clause */
/* ndlz (codec 32) by hand; the reference's own streams are checked by
 * test_plugin_filters (vectors n04, n05).
 *   - streams worked out by hand: a literal cell, a run cell, a cell match, an
 *     edge cell; the decoder reads them in every build
 *   - round trips of random and structured 2-D blocks through the codec and
 *     through chunks: block shapes that are and are not multiples of the cell,
 *     cells of 4 and 8, typesize 1 and wider types as split streams
 *   - hostile streams (every truncation, byte corruptions, bad tokens, offsets
 *     outside the stream, a wrong header) are refused without crashing (the
 *     sanitizer build runs this too)
 *   - missing or wrong geometry and meta are refused with a message
 *   - without libxxhash, encoding refuses naming ndlz and xxhash */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codecs.h"
#include "check.h"
#include "b2_chunk_experimental.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static b2_codec_use use_of(int meta, b2_block_geometry *g, int32_t b0, int32_t b1)
{
    g->ndim = 2;
    g->blockshape[0] = b0;
    g->blockshape[1] = b1;
    return (b2_codec_use){.compcode = B2_CODEC_NDLZ, .fmt = B2_CODEC_FORMAT_PLUGIN, .clevel = 5,
                          .meta = (uint8_t)meta, .typesize = 1, .blocksize = b0 * b1, .geom = g};
}

static int has(const char *msg, const char *word) { return strstr(msg, word) != NULL; }

/* The 9-byte header of a b0 x b1 stream. */
static int header(uint8_t *s, int32_t b0, int32_t b1)
{
    s[0] = 2;
    for (int i = 0; i < 4; i++) {
        s[1 + i] = (uint8_t)(b0 >> 8 * i);
        s[5 + i] = (uint8_t)(b1 >> 8 * i);
    }
    return 9;
}

/* ---- streams worked out by hand ---- */

/* An 8 x 6 block of 4x4 cells: cell (0,0) distinct bytes (literal), cell (1,0)
 * the same again (cell match, 16 back from its token), the right column edge
 * cells 4 x 2 (literals of 8 bytes). */
static void test_hand_streams(void)
{
    enum { B0 = 8, B1 = 6 };
    uint8_t block[B0 * B1], s[64], out[B0 * B1];
    for (int y = 0; y < B0; y++)
        for (int x = 0; x < B1; x++)
            block[y * B1 + x] = (uint8_t)(x < 4 ? 1 + (y % 4) * 4 + x : 100 + y * 2 + (x - 4));
    int n = header(s, B0, B1);
    s[n++] = 0x00; /* cell (0,0) */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            s[n++] = block[y * B1 + x];
    s[n++] = 0x00; /* cell (0,1): rows 0..3, columns 4..5 */
    for (int y = 0; y < 4; y++)
        for (int x = 4; x < 6; x++)
            s[n++] = block[y * B1 + x];
    int cell10 = n;
    s[n++] = 0xC0; /* cell (1,0) = cell (0,0), whose bytes start at 10 */
    s[n++] = (uint8_t)(cell10 - 10);
    s[n++] = 0;
    s[n++] = 0x00; /* cell (1,1) */
    for (int y = 4; y < 8; y++)
        for (int x = 4; x < 6; x++)
            s[n++] = block[y * B1 + x];
    b2_block_geometry g;
    b2_codec_use u = use_of(4, &g, B0, B1);
    memset(out, 0xEE, sizeof out);
    int r = b2_ndlz_decompress(&u, s, n, out, B0 * B1);
    CHECK(r == B0 * B1 && !memcmp(out, block, sizeof block), "hand stream decodes (%d: %s)", r,
          b2_last_error_message());
#ifdef B2_HAVE_NDLZ
    /* The encoder wants room for a whole literal record (17 bytes) before each
     * cell: with maxout 48 it gives up at the last cell, as the reference does,
     * though the stream would end at 47. */
    uint8_t enc[2 * B0 * B1];
    r = b2_ndlz_compress(&u, block, B0 * B1, enc, B0 * B1);
    CHECK(r == 0, "hand stream with maxout 48: %d", r);
    r = b2_ndlz_compress(&u, block, B0 * B1, enc, sizeof enc);
    CHECK(r == n && !memcmp(enc, s, (size_t)n), "hand stream: encoder gives %d bytes, want %d", r,
          n);
#endif

    /* 8x8 cells: one cell of a single value is a run record of 2 bytes; a
     * 9 x 9 block then has three literal edge cells (8x1, 1x8, 1x1) */
    enum { C0 = 9, C1 = 9 };
    uint8_t b9[C0 * C1], o9[C0 * C1];
    for (int i = 0; i < C0 * C1; i++)
        b9[i] = (i / C1 < 8 && i % C1 < 8) ? 7 : (uint8_t)i;
    n = header(s, C0, C1);
    s[n++] = 0x40;
    s[n++] = 7;
    s[n++] = 0x00;
    for (int y = 0; y < 8; y++)
        s[n++] = b9[y * C1 + 8];
    s[n++] = 0x00;
    for (int x = 0; x < 8; x++)
        s[n++] = b9[8 * C1 + x];
    s[n++] = 0x00;
    s[n++] = b9[8 * C1 + 8];
    u = use_of(8, &g, C0, C1);
    r = b2_ndlz_decompress(&u, s, n, o9, C0 * C1);
    CHECK(r == C0 * C1 && !memcmp(o9, b9, sizeof b9), "run + edge cells decode (%d: %s)", r,
          b2_last_error_message());
#ifdef B2_HAVE_NDLZ
    uint8_t e9[2 * C0 * C1];
    r = b2_ndlz_compress(&u, b9, C0 * C1, e9, sizeof e9);
    CHECK(r == n && !memcmp(e9, s, (size_t)n), "run + edge cells: encoder gives %d, want %d", r, n);
#endif
}

/* ---- round trips ---- */
#ifdef B2_HAVE_NDLZ

enum { KIND_RANDOM, KIND_BITS, KIND_ROWS, KIND_TILES, KIND_SPARSE, NKINDS };

static void fill(uint8_t *p, int32_t b0, int32_t b1, int kind)
{
    int64_t n = (int64_t)b0 * b1;
    uint8_t pat[6][8];
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < 8; j++)
            pat[k][j] = (uint8_t)(rnd() & 3);
    for (int64_t i = 0; i < n; i++) {
        int32_t y = (int32_t)(i / b1), x = (int32_t)(i % b1);
        switch (kind) {
        case KIND_RANDOM: p[i] = (uint8_t)rnd(); break;
        case KIND_BITS: p[i] = (uint8_t)(rnd() & 1); break;
        case KIND_ROWS: /* rows of cells picked from a few patterns: row matches */
            p[i] = x % 4 == 0 ? pat[rnd() % 6][0] : pat[(y + x / 4) % 6][x % 8];
            break;
        case KIND_TILES: p[i] = (uint8_t)((y % 8) * 3 + x % 8 + (rnd() % 97 == 0)); break;
        default: p[i] = rnd() % 9 == 0 ? (uint8_t)rnd() : 0; break;
        }
    }
}

/* Codec-level round trip; returns the stream length (0: stored). The room is
 * a literal record more than the block (the chunk layer gives at most the
 * block, where the encoder stops one record earlier). */
static int codec_roundtrip(int meta, int32_t b0, int32_t b1, int kind)
{
    int n = b0 * b1, room = n + meta * meta + 1;
    uint8_t *in = malloc((size_t)n), *c = malloc((size_t)room), *out = malloc((size_t)n);
    fill(in, b0, b1, kind);
    b2_block_geometry g;
    b2_codec_use u = use_of(meta, &g, b0, b1);
    int r = b2_ndlz_compress(&u, in, n, c, room);
    CHECK(r >= 0 && r <= n, "compress %dx%d meta %d kind %d: %d (%s)", b0, b1, meta, kind, r,
          b2_last_error_message());
    if (r > 0) {
        int d = b2_ndlz_decompress(&u, c, r, out, n);
        CHECK(d == n && !memcmp(in, out, (size_t)n), "round trip %dx%d meta %d kind %d: %d (%s)",
              b0, b1, meta, kind, d, b2_last_error_message());
    }
    free(in);
    free(c);
    free(out);
    return r;
}

static void test_codec_roundtrips(void)
{
    static const int32_t shapes[][2] = {{4, 4},  {8, 8},   {16, 16}, {32, 40}, {25, 36},
                                        {5, 7},  {13, 3},  {1, 100}, {100, 1}, {9, 17},
                                        {64, 64}, {33, 65}, {3, 3},  {200, 120}};
    int compressed = 0, total = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int meta = 4; meta <= 8; meta += 4)
            for (int kind = 0; kind < NKINDS; kind++) {
                total++;
                compressed += codec_roundtrip(meta, shapes[s][0], shapes[s][1], kind) > 0;
            }
    /* structured blocks do compress: the matches are exercised */
    CHECK(compressed > total / 3, "only %d of %d blocks compressed", compressed, total);
    /* a block with many repeated rows, larger than 64 KiB of output, keeps
     * offsets below the 16-bit limit */
    CHECK(codec_roundtrip(4, 600, 400, KIND_ROWS) > 0, "600 x 400 rows compress");
    CHECK(codec_roundtrip(8, 500, 520, KIND_TILES) > 0, "500 x 520 tiles compress");
    CHECK(codec_roundtrip(4, 400, 400, KIND_BITS) >= 0, "400 x 400 bits");
}

/* Through chunks: several blocks, threads, typesize 1 or wider types as split
 * streams (one byte plane per stream, each b0 x b1 bytes). Returns 1 when a
 * context without the block shape refuses the chunk (it must, unless no
 * stream went through ndlz: all stored raw or runs). */
static int chunk_roundtrip(int meta, int32_t b0, int32_t b1, int32_t typesize, int split,
                            int nthreads, int nblocks)
{
    size_t bs = (size_t)b0 * (size_t)b1 * (size_t)typesize, n = bs * (size_t)nblocks;
    uint8_t *in = malloc(n), *out = malloc(n), *c = malloc(b2_chunk_compress_bound(n));
    int refused = 0;
    for (int k = 0; k < nblocks; k++)
        for (int32_t t = 0; t < typesize; t++) {
            /* item bytes of block k: byte t of each item follows its own pattern */
            uint8_t *plane = malloc((size_t)b0 * (size_t)b1);
            fill(plane, b0, b1, (k + t) % NKINDS);
            for (int64_t i = 0; i < (int64_t)b0 * b1; i++)
                in[(size_t)k * bs + (size_t)i * (size_t)typesize + (size_t)t] = plane[i];
            free(plane);
        }
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_NDLZ;
    p.codec_meta = (uint8_t)meta;
    p.typesize = typesize;
    p.blocksize = (int32_t)bs;
    p.splitmode = split;
    p.filters[B2_MAX_FILTERS - 1] = typesize > 1 ? B2_FILTER_SHUFFLE : 0;
    p.nthreads = nthreads;
    p.geometry.ndim = 2;
    p.geometry.blockshape[0] = b0;
    p.geometry.blockshape[1] = b1;
    b2_cctx *cc = b2_cctx_new(&p);
    int len = cc ? b2_chunk_compress(cc, in, n, c, b2_chunk_compress_bound(n)) : -1;
    CHECK(len > 0, "chunk %dx%d ts %d split %d: compress %d (%s)", b0, b1, typesize, split, len,
          b2_last_error_message());
    b2_cctx_free(cc);
    if (len > 0) {
        b2_dctx *d = b2_dctx_new(nthreads);
        b2_dctx_set_geometry(d, &p.geometry);
        int r = b2_chunk_decompress(d, c, (size_t)len, out, n);
        CHECK(r == (int)n && !memcmp(in, out, n), "chunk %dx%d ts %d: decompress %d (%s)", b0, b1,
              typesize, r, b2_last_error_message());
        b2_dctx *bare = b2_dctx_new(1);
        memset(out, 0, n);
        r = b2_chunk_decompress(bare, c, (size_t)len, out, n);
        refused = r < 0;
        CHECK(refused ? has(b2_last_error_message(), "ndlz") : !memcmp(in, out, n),
              "chunk %dx%d without geometry: %d (%s)", b0, b1, r, b2_last_error_message());
        b2_dctx_free(bare);
        b2_dctx_free(d);
    }
    free(in);
    free(out);
    free(c);
    return refused;
}

static void test_chunk_roundtrips(void)
{
    /* block 2 holds rows that compress: that context needs the block shape */
    CHECK(chunk_roundtrip(4, 32, 40, 1, B2_SPLIT_NEVER, 1, 3), "decoded without geometry");
    chunk_roundtrip(8, 25, 36, 1, B2_SPLIT_NEVER, 2, 4);
    chunk_roundtrip(4, 7, 10, 1, B2_SPLIT_ALWAYS, 1, 5);
    chunk_roundtrip(4, 16, 20, 2, B2_SPLIT_ALWAYS, 1, 2);
    chunk_roundtrip(8, 12, 30, 4, B2_SPLIT_ALWAYS, 2, 3);
    chunk_roundtrip(8, 20, 20, 8, B2_SPLIT_ALWAYS, 1, 2);

    /* unsplit wider items: a stream is not one byte per item, refused as the
     * reference refuses it */
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_NDLZ;
    p.codec_meta = 4;
    p.typesize = 2;
    p.blocksize = 16 * 16 * 2;
    p.splitmode = B2_SPLIT_NEVER;
    p.filters[B2_MAX_FILTERS - 1] = 0;
    p.geometry.ndim = 2;
    p.geometry.blockshape[0] = 16;
    p.geometry.blockshape[1] = 16;
    uint8_t in[1024], c[2048];
    fill(in, 32, 32, KIND_TILES);
    b2_cctx *cc = b2_cctx_new(&p);
    int len = cc ? b2_chunk_compress(cc, in, sizeof in, c, sizeof c) : 0;
    CHECK(len < 0 && has(b2_last_error_message(), "ndlz") &&
              has(b2_last_error_message(), "split"),
          "typesize 2 unsplit: %d (%s)", len, b2_last_error_message());
    b2_cctx_free(cc);
    /* no geometry: the encoder refuses naming what it needs */
    p.typesize = 1;
    p.blocksize = 256;
    memset(&p.geometry, 0, sizeof p.geometry);
    cc = b2_cctx_new(&p);
    len = cc ? b2_chunk_compress(cc, in, sizeof in, c, sizeof c) : 0;
    CHECK(len < 0 && has(b2_last_error_message(), "ndlz") &&
              has(b2_last_error_message(), "block shape"),
          "no geometry: %d (%s)", len, b2_last_error_message());
    b2_cctx_free(cc);
}
#endif

/* ---- hostile input ---- */

/* Every prefix and many corruptions of stream s (n bytes) decode to n bytes or
 * fail cleanly (the sanitizers watch the reads and writes). */
static void abuse(const b2_codec_use *u, const uint8_t *s, int n, int outlen, const char *what)
{
    uint8_t *buf = malloc((size_t)n + 1), *out = malloc((size_t)outlen);
    int refused = 0;
    for (int k = 0; k < n; k++) {
        uint8_t *t = malloc(k ? (size_t)k : 1); /* exactly k bytes: reads past them trip ASan */
        memcpy(t, s, (size_t)k);
        refused += b2_ndlz_decompress(u, t, k, out, outlen) < 0;
        free(t);
    }
    CHECK(refused == n, "%s: %d of %d truncations refused", what, refused, n);
    for (int pass = 0; pass < 2000; pass++) {
        uint8_t *t = malloc((size_t)n);
        memcpy(t, s, (size_t)n);
        for (int f = 1 + (int)(rnd() % 3); f > 0; f--) {
            uint32_t at = rnd() % (uint32_t)n;
            t[at] = pass & 1 ? (uint8_t)rnd() : (uint8_t)(t[at] ^ 1u << rnd() % 8);
        }
        int r = b2_ndlz_decompress(u, t, n, out, outlen);
        CHECK(r == outlen || r < 0, "%s: corrupted stream gave %d", what, r);
        free(t);
    }
    /* one byte too many */
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    CHECK(b2_ndlz_decompress(u, buf, n + 1, out, outlen) < 0, "%s: trailing byte accepted", what);
    free(buf);
    free(out);
}

static void test_hostile(void)
{
    b2_block_geometry g;
    b2_codec_use u = use_of(4, &g, 8, 6);
    uint8_t s[256], out[256];
    /* a stream of run cells to abuse even without the encoder */
    int n = header(s, 8, 6);
    for (int k = 0; k < 4; k++)
        s[n++] = 0x40, s[n++] = (uint8_t)k;
    abuse(&u, s, n, 48, "run cells");

    /* offsets: a cell match pointing before the stream, a zero offset that
     * would read the record itself past the end */
    n = header(s, 4, 4);
    s[n++] = 0xC0, s[n++] = 10, s[n++] = 0;
    u = use_of(4, &g, 4, 4);
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0, "offset before the stream");
    s[n - 2] = 0;
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0, "offset 0 reading past the end");
    /* a 4x4 pair token naming the same row twice; an unknown token */
    s[9] = 0x81;
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0, "pair token with row 0 twice");
    s[9] = 0x01;
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0 && has(b2_last_error_message(), "token"),
          "token 0x01 (%s)", b2_last_error_message());
    /* 8x8: a triple starting at row 6 does not fit in the cell */
    u = use_of(8, &g, 8, 8);
    n = header(s, 8, 8);
    s[n++] = 0xAE, s[n++] = 1, s[n++] = 0;
    memset(s + n, 0, 40);
    CHECK(b2_ndlz_decompress(&u, s, n + 40, out, 64) < 0, "8x8 triple at row 6");
    /* header: ndim 3, a block shape other than the geometry's, a negative one */
    n = header(s, 4, 4);
    s[n++] = 0x40, s[n++] = 1;
    u = use_of(4, &g, 4, 4);
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) == 16, "valid run stream");
    s[0] = 3;
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0, "header ndim 3");
    header(s, 2, 8);
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0 && has(b2_last_error_message(), "geometry"),
          "header shape 2x8 vs geometry 4x4 (%s)", b2_last_error_message());
    header(s, -4, -4);
    CHECK(b2_ndlz_decompress(&u, s, n, out, 16) < 0, "negative header shape");
    /* the output size must be the block's */
    header(s, 4, 4);
    CHECK(b2_ndlz_decompress(&u, s, n, out, 15) < 0, "dstlen 15 for a 4x4 block");

#ifdef B2_HAVE_NDLZ
    /* encoded structured blocks, abused */
    for (int meta = 4; meta <= 8; meta += 4) {
        enum { B0 = 24, B1 = 21 };
        uint8_t in[B0 * B1], c[2 * B0 * B1];
        fill(in, B0, B1, KIND_ROWS);
        u = use_of(meta, &g, B0, B1);
        int r = b2_ndlz_compress(&u, in, B0 * B1, c, sizeof c);
        CHECK(r > 0, "meta %d: structured block compresses (%d)", meta, r);
        if (r > 0)
            abuse(&u, c, r, B0 * B1, meta == 4 ? "encoded 4x4" : "encoded 8x8");
    }
#endif
}

/* ---- parameters ---- */

static void test_params(void)
{
    uint8_t in[64] = {0}, c[128], out[64];
    for (int i = 0; i < 64; i++)
        in[i] = (uint8_t)(i * 37);
    b2_block_geometry g;
    b2_codec_use u = use_of(4, &g, 8, 8);
    int n = header(c, 8, 8);
    for (int k = 0; k < 4; k++)
        c[n++] = 0x40, c[n++] = 9;

    b2_codec_use v = u;
    v.geom = NULL;
    CHECK(b2_ndlz_decompress(&v, c, n, out, 64) < 0 && has(b2_last_error_message(), "block shape"),
          "decode without geometry (%s)", b2_last_error_message());
    CHECK(b2_ndlz_compress(&v, in, 64, c + 64, 64) < 0, "encode without geometry");
    b2_block_geometry g3 = {.ndim = 3, .blockshape = {4, 4, 4}};
    v.geom = &g3;
    CHECK(b2_ndlz_decompress(&v, c, n, out, 64) < 0 && has(b2_last_error_message(), "2-D"),
          "decode with 3-D geometry (%s)", b2_last_error_message());
    CHECK(b2_ndlz_compress(&v, in, 64, c + 64, 64) < 0, "encode with 3-D geometry");
    v = u;
    v.meta = 5;
    CHECK(b2_ndlz_decompress(&v, c, n, out, 64) < 0 && has(b2_last_error_message(), "cell"),
          "meta 5 (%s)", b2_last_error_message());
    CHECK(b2_ndlz_compress(&v, in, 64, c + 64, 64) < 0, "encode meta 5");
    CHECK(b2_ndlz_decompress(&u, c, n, out, 64) == 64, "the same stream with good parameters");

#ifdef B2_HAVE_NDLZ
    uint8_t e[64];
    /* srclen must be the block's */
    CHECK(b2_ndlz_compress(&u, in, 48, e, 64) < 0, "encode 48 bytes of an 8x8 block");
    /* too little room: give up (0), never write past maxout */
    for (int maxout = 1; maxout < 30; maxout++) {
        uint8_t room[64];
        memset(room, 0xA5, sizeof room);
        int r = b2_ndlz_compress(&u, in, 64, room, maxout);
        int clean = 1;
        for (int i = maxout; i < 64; i++)
            clean &= room[i] == 0xA5;
        CHECK(r == 0 && clean, "maxout %d: %d", maxout, r);
    }
    /* blocks smaller than a cell are not encoded */
    u = use_of(8, &g, 7, 7);
    CHECK(b2_ndlz_compress(&u, in, 49, e, 64) == 0, "7x7 block with 8x8 cells");
#else
    CHECK(b2_ndlz_compress(&u, in, 64, c + 64, 64) == B2_ERR_UNSUPPORTED &&
              has(b2_last_error_message(), "ndlz") && has(b2_last_error_message(), "xxhash"),
          "encoding without libxxhash (%s)", b2_last_error_message());
#endif
}

int main(void)
{
    test_hand_streams();
#ifdef B2_HAVE_NDLZ
    test_codec_roundtrips();
    test_chunk_roundtrips();
#else
    printf("note: built without libxxhash: ndlz encoding is not tested\n");
#endif
    test_hostile();
    test_params();
    return b2t_summary("ndlz");
}
