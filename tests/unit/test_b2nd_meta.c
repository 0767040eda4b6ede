/* SPDX-License-Identifier: BSD-3-Clause */
/* b2nd metalayer codec, validation, dtype strings, derived geometry and the
 * default shape rule, checked against the worked examples of doc/format/b2nd.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd_internal.h"
#include "check.h"
#include "nd_model.h"
#include "b2_nd_experimental.h"

static const uint8_t spec_2d[53] = {
    0x97, 0x00, 0x02, 0x92, 0xD3, 0, 0, 0, 0, 0, 0, 0, 5, 0xD3, 0, 0, 0, 0, 0, 0, 0, 7,
    0x92, 0xD2, 0, 0, 0, 3, 0xD2, 0, 0, 0, 4, 0x92, 0xD2, 0, 0, 0, 2, 0xD2, 0, 0, 0, 3,
    0x00, 0xDB, 0, 0, 0, 3, 0x3C, 0x69, 0x32};
static const uint8_t spec_0d[15] = {0x97, 0x00, 0x00, 0x90, 0x90, 0x90, 0x00, 0xDB,
                                    0x00, 0x00, 0x00, 0x03, 0x3C, 0x66, 0x38};

static void test_examples(void)
{
    b2_nd_meta m;
    int rc = b2_nd_meta_decode(spec_2d, sizeof spec_2d, &m);
    CHECK(rc == 0, "decode 2-D example: %d", rc);
    CHECK(m.ndim == 2 && m.shape[0] == 5 && m.shape[1] == 7 && m.chunkshape[0] == 3 &&
              m.chunkshape[1] == 4 && m.blockshape[0] == 2 && m.blockshape[1] == 3,
          "2-D example shapes");
    CHECK(m.dtype && strcmp(m.dtype, "<i2") == 0 && m.dtype_format == 0, "2-D example dtype");
    uint8_t *enc;
    int32_t len;
    rc = b2_nd_meta_encode(&m, &enc, &len);
    CHECK(rc == 0 && len == 53 && memcmp(enc, spec_2d, 53) == 0, "2-D example re-encodes");
    if (rc == 0)
        free(enc);
    /* every truncation is an error, except the legacy cut right after blockshape */
    for (size_t n = 0; n < sizeof spec_2d; n++) {
        b2_nd_meta t;
        rc = b2_nd_meta_decode(spec_2d, n, &t);
        if (n == 44) {
            CHECK(rc == 0 && t.dtype == NULL && t.dtype_format == -1, "legacy cut at 44");
            b2_nd_meta_clear(&t);
        } else {
            CHECK(rc < 0, "truncated to %zu accepted", n);
        }
    }
    b2_nd_meta_clear(&m);
    rc = b2_nd_meta_decode(spec_0d, sizeof spec_0d, &m);
    CHECK(rc == 0 && m.ndim == 0 && strcmp(m.dtype, "<f8") == 0, "0-D example");
    rc = b2_nd_meta_encode(&m, &enc, &len);
    CHECK(rc == 0 && len == 15 && memcmp(enc, spec_0d, 15) == 0, "0-D re-encodes");
    if (rc == 0)
        free(enc);
    b2_nd_meta_clear(&m);
    CHECK(b2_nd_meta_encoded_len(2, 3) == 53 && b2_nd_meta_encoded_len(0, 3) == 15, "lengths");

    /* legacy caterva 5-element form */
    uint8_t cat[44];
    memcpy(cat, spec_2d, 44);
    cat[0] = 0x95;
    rc = b2_nd_meta_decode(cat, sizeof cat, &m);
    CHECK(rc == 0 && m.ndim == 2 && m.dtype == NULL, "caterva form");
    b2_nd_meta_clear(&m);
}

static void test_ndim16(void)
{
    b2_nd_meta m;
    memset(&m, 0, sizeof m);
    m.ndim = 16;
    for (int i = 0; i < 16; i++) {
        m.shape[i] = 3 + i % 2;
        m.chunkshape[i] = 2;
        m.blockshape[i] = 1;
    }
    uint8_t *enc;
    int32_t len;
    int rc = b2_nd_meta_encode(&m, &enc, &len);
    CHECK(rc == 0 && len == 12 + 19 * 16 + 3, "ndim 16 encode");
    CHECK(rc == 0 && enc[3] == 0xa0, "ndim 16 array marker 0x90+16 as c-blosc2 writes");
    b2_nd_meta d;
    CHECK(rc == 0 && b2_nd_meta_decode(enc, (size_t)len, &d) == 0 && d.ndim == 16 &&
              d.shape[15] == 4 && strcmp(d.dtype, "|u1") == 0,
          "ndim 16 round trip");
    b2_nd_meta_clear(&d);
    /* ndim 17 is refused */
    enc[2] = 17;
    CHECK(b2_nd_meta_decode(enc, (size_t)len, &d) < 0, "ndim 17 refused");
    free(enc);
}

/* Mutate one field of the 2-D example and expect a refusal. */
static void expect_bad(const char *what, size_t off, const uint8_t *bytes, size_t n)
{
    uint8_t buf[53];
    memcpy(buf, spec_2d, 53);
    memcpy(buf + off, bytes, n);
    b2_nd_meta m;
    int rc = b2_nd_meta_decode(buf, 53, &m);
    CHECK(rc < 0, "%s accepted", what);
    if (rc == 0)
        b2_nd_meta_clear(&m);
}

static void test_validation(void)
{
    static const uint8_t neg[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb};
    static const uint8_t zero4[4] = {0, 0, 0, 0}, neg4[4] = {0xff, 0xff, 0xff, 0xfe};
    static const uint8_t big4[4] = {0x7f, 0xff, 0xff, 0xff};
    expect_bad("negative shape", 5, neg, 8);
    expect_bad("zero chunkshape", 24, zero4, 4);
    expect_bad("negative chunkshape", 24, neg4, 4);
    expect_bad("zero blockshape", 35, zero4, 4);
    expect_bad("chunk items overflow int32", 24, big4, 4); /* 0x7fffffff * 4 */
    expect_bad("bad top marker", 0, (const uint8_t[]){0x96}, 1);
    expect_bad("compacted int64 marker", 4, (const uint8_t[]){0xcf}, 1);
    expect_bad("wrong array marker", 3, (const uint8_t[]){0x93}, 1);
    expect_bad("array16 marker (would size an allocation)", 22, (const uint8_t[]){0xdc}, 1);
    expect_bad("str8 dtype", 45, (const uint8_t[]){0xd9}, 1);
    expect_bad("dtype longer than content", 46, (const uint8_t[]){0x7f}, 1);
    /* nitems overflow int64 */
    uint8_t buf[53];
    memcpy(buf, spec_2d, 53);
    static const uint8_t huge[8] = {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    memcpy(buf + 5, huge, 8);
    memcpy(buf + 14, huge, 8);
    b2_nd_meta m;
    CHECK(b2_nd_meta_decode(buf, 53, &m) < 0, "nitems overflow accepted");
    /* shape 0 with chunkshape 0 is fine */
    memcpy(buf, spec_2d, 53);
    memset(buf + 5, 0, 8);
    memset(buf + 24, 0, 4);
    memset(buf + 35, 0, 4);
    int rc = b2_nd_meta_decode(buf, 53, &m);
    CHECK(rc == 0, "zero extent with zero chunk refused: %d", rc);
    if (rc == 0) {
        b2_nd_geom g;
        CHECK(b2_nd_geom_init(&g, m.ndim, m.shape, m.chunkshape, m.blockshape, 2) == 0 &&
                  g.nchunks == 0 && g.nitems == 0,
              "zero extent geometry");
        b2_nd_meta_clear(&m);
    }
}

static void test_dtype(void)
{
    static const struct {
        const char *s;
        int32_t size;
    } t[] = {{"|b1", 1},  {"|i1", 1},   {"<i2", 2},  {"<i4", 4},   {"<i8", 8},    {"|u1", 1},
             {"<u2", 2},  {"<u4", 4},   {"<u8", 8},  {"<f4", 4},   {"<f8", 8},    {"<c8", 8},
             {"<c16", 16}, {"|V5", 5},  {"|S7", 7},  {">f8", 8},   {">i4", 4},    {"<U3", 12},
             {"<M8[ns]", 8}, {"[('x', '<f4'), ('y', '<i2')]", 0}, {"<i3", -1}, {"", -1},
             {"|S", -1},  {"<q8", -1},  {"<f8x", -1}, {"|b2", -1}, {"<c4", -1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int32_t got = b2_nd_dtype_itemsize(t[i].s);
        CHECK(t[i].size < 0 ? got < 0 : got == t[i].size, "dtype %s: %d", t[i].s, got);
    }
    char buf[16];
    CHECK(b2_nd_dtype_default(7, buf, sizeof buf) == 3 && strcmp(buf, "|S7") == 0, "default dtype");
}

static void test_geometry(void)
{
    /* doc/format/b2nd.md §5 worked example */
    int64_t shape[2] = {5, 7};
    int32_t cs[2] = {3, 4}, bs[2] = {2, 3};
    b2_nd_geom g;
    CHECK(b2_nd_geom_init(&g, 2, shape, cs, bs, 2) == 0, "geom §5");
    CHECK(g.extchunkshape[0] == 4 && g.extchunkshape[1] == 6, "extchunkshape");
    CHECK(g.chunks_in_array[0] == 2 && g.chunks_in_array[1] == 2 && g.nchunks == 4, "grid");
    CHECK(g.blocknitems == 6 && g.extchunknitems == 24 && g.chunk_bytes == 48 &&
              g.block_bytes == 12 && g.nblocks == 4,
          "sizes");
    /* 1-D: shape 10, chunk 4, block 3, typesize 1 -> 3 chunks of 6 bytes */
    int64_t s1 = 10;
    int32_t c1 = 4, b1 = 3;
    CHECK(b2_nd_geom_init(&g, 1, &s1, &c1, &b1, 1) == 0 && g.nchunks == 3 && g.chunk_bytes == 6,
          "1-D geometry");
    /* 0-D */
    CHECK(b2_nd_geom_init(&g, 0, NULL, NULL, NULL, 8) == 0 && g.nitems == 1 && g.nchunks == 1 &&
              g.chunk_bytes == 8 && g.nblocks == 1,
          "0-D geometry");
    /* chunk bytes beyond one Blosc2 buffer */
    int64_t s2[2] = {100000, 100000};
    int32_t c2[2] = {40000, 20000}, b2[2] = {100, 100};
    CHECK(b2_nd_geom_init(&g, 2, s2, c2, b2, 4) < 0, "chunk too large accepted");
    /* nitems fits int64 but its byte size does not */
    int64_t s3[2] = {INT64_MAX / 4, 2};
    int32_t c3[2] = {1000, 2}, b3[2] = {10, 2};
    CHECK(b2_nd_geom_init(&g, 2, s3, c3, b3, 8) < 0, "byte size overflow accepted");
    /* C-order fast-path condition */
    int32_t cc[3] = {4, 6, 5}, bb[3] = {1, 3, 5};
    int64_t ss[3] = {8, 12, 5};
    b2_nd_geom_init(&g, 3, ss, cc, bb, 1);
    CHECK(b2_nd_geom_chunk_is_c_order(&g), "c-order condition true");
    bb[0] = 2;
    b2_nd_geom_init(&g, 3, ss, cc, bb, 1);
    CHECK(!b2_nd_geom_chunk_is_c_order(&g), "c-order condition false");
}

static void test_defaults(void)
{
    b2_nd_params p;
    ndt_params(&p, 3, (const int64_t[]){1000, 1000, 1000}, NULL, NULL, 8);
    CHECK(b2_nd_default_shapes(&p) == 0, "defaults");
    int64_t cb = 8, bb = 8;
    for (int i = 0; i < 3; i++) {
        cb *= p.chunkshape[i];
        bb *= p.blockshape[i];
        CHECK(p.blockshape[i] >= 1 && p.blockshape[i] <= p.chunkshape[i], "block <= chunk");
    }
    CHECK(cb <= (4 << 20) && cb >= (1 << 20), "chunk bytes %lld", (long long)cb);
    CHECK(bb <= (256 << 10) && bb >= (32 << 10), "block bytes %lld", (long long)bb);
    CHECK(p.chunkshape[2] == 1000, "last dim whole");
    /* small arrays get one chunk */
    ndt_params(&p, 2, (const int64_t[]){5, 7}, NULL, NULL, 4);
    b2_nd_default_shapes(&p);
    CHECK(p.chunkshape[0] == 5 && p.chunkshape[1] == 7, "small: one chunk");
}

int main(void)
{
    test_examples();
    test_ndim16();
    test_validation();
    test_dtype();
    test_geometry();
    test_defaults();
    return b2t_summary("b2nd meta/geometry/dtype");
}
