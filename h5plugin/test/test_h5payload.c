/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit test of the HDF5 filter's HDF5-independent half: cd_values checks, the
 * block-shape rule (doc/format/hdf5-filter.md §4 table), payload encode/decode on both
 * paths, and hostile frames (every header/trailer byte changed, truncations)
 * which must fail cleanly or decode (run it under -DB2_SANITIZE=ON), and the
 * reference's frames and arrays using the plugin filters bytedelta/int_trunc
 * ($B2_TEST_DATA/plugins) decoded through the payload path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_chunk.h"
#include "b2_nd.h"
#include "h5context.h"
#include "h5params.h"
#include "sha256.h"
#include "check.h"
#include "frame_open.h"
#include "b2_chunk_experimental.h"

static void *m_alloc(size_t n, void *ud) { (void)ud; return malloc(n ? n : 1); }
static void m_release(void *p, void *ud) { (void)ud; free(p); }
static const b2_h5_alloc AL = {m_alloc, m_release, NULL};

static int parse(const unsigned *v, size_t n, int compress, b2_h5_params *p)
{
    char err[300];
    return b2_h5_params_parse(n, v, compress, p, err, sizeof err);
}

static void test_params(void)
{
    b2_h5_params p;
    unsigned ok2[] = {1, 0, 4, 20000, 5, 1, 5, 2, 50, 100};
    CHECK(parse(ok2, 10, 1, &p) == 0 && p.rank == 2 && p.dims[1] == 100, "valid 2-D values");
    CHECK(parse(ok2, 3, 0, &p) < 0, "3 values accepted");
    CHECK(parse(ok2, 9, 0, &p) < 0, "rank 2 with one dim accepted");
    CHECK(parse(ok2, 5, 1, &p) < 0, "compression with 5 values accepted");
    CHECK(parse(ok2, 5, 0, &p) == 0, "decompression with 5 values refused");
    /* rank 1 in v[7]: HDF5-Blosc2 2.0's one-dimensional layout (hdf5-filter.md §2a) */
    unsigned r1[] = {2, 0, 4, 20000, 5, 1, 5, 1, 5000};
    CHECK(parse(r1, 9, 0, &p) == 0 && p.rank == 1 && p.dims[0] == 5000, "rank 1 in v[7] refused");
    r1[7] = 0;
    CHECK(parse(r1, 9, 0, &p) < 0, "rank 0 in v[7] accepted");
    unsigned r17[8 + 17] = {1, 0, 4, 20000, 5, 1, 5, 17};
    for (int i = 0; i < 17; i++)
        r17[8 + i] = 2;
    CHECK(parse(r17, 25, 0, &p) < 0, "rank 17 accepted");
    r17[7] = 16;
    CHECK(parse(r17, 24, 0, &p) == 0, "rank 16 refused");
    unsigned c3[] = {1, 0, 4, 400, 5, 1, 3};
    CHECK(parse(c3, 7, 1, &p) < 0, "codec 3 accepted");
    CHECK(parse(c3, 7, 0, &p) == 0, "codec 3 refused on read");
    unsigned tp[] = {1, 0, 4, 400, 5, 4, 0};
    CHECK(parse(tp, 7, 1, &p) < 0, "trunc_prec accepted");
    unsigned cl[] = {1, 0, 4, 400, 10, 1, 0};
    CHECK(parse(cl, 7, 1, &p) < 0, "clevel 10 accepted");
    unsigned ts0[] = {1, 0, 0, 400, 5, 1, 0};
    CHECK(parse(ts0, 7, 0, &p) < 0, "typesize 0 accepted");
    unsigned d0[] = {1, 0, 4, 400, 5, 1, 0, 2, 0, 5};
    CHECK(parse(d0, 10, 0, &p) < 0, "dimension 0 accepted");
}

/* doc/format/hdf5-filter.md §4 "Verified examples". */
static void test_block_shapes(void)
{
    static const struct {
        int rank;
        unsigned dims[3], ts, bs, codec, clevel;
        long long target;
        long long shape[3];
    } t[] = {
        {2, {50, 100}, 4, 0, 5, 5, 20000, {50, 100}},
        {2, {50, 100}, 4, 2048, 1, 5, 2048, {16, 32}},
        {2, {256, 512}, 4, 0, 0, 5, 262144, {256, 256}},
        {2, {256, 512}, 4, 0, 5, 9, 524288, {256, 512}},
        {2, {3, 4}, 2, 0, 0, 5, 24, {3, 4}},
        {2, {3, 4}, 2, 0, 1, 5, 24, {3, 4}},
        {3, {37, 53, 11}, 8, 0, 0, 5, 172568, {37, 53, 11}},
        {3, {2, 5, 6}, 1, 0, 5, 9, 60, {2, 5, 6}},
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        unsigned v[11] = {1, t[k].bs, t[k].ts, 0, t[k].clevel, 1, t[k].codec, (unsigned)t[k].rank};
        unsigned long long n = t[k].ts;
        for (int i = 0; i < t[k].rank; i++) {
            v[8 + i] = t[k].dims[i];
            n *= t[k].dims[i];
        }
        v[3] = (unsigned)n;
        b2_h5_params p;
        CHECK(parse(v, 8 + (size_t)t[k].rank, 1, &p) == 0, "row %zu parse", k);
        int64_t target = b2_h5_block_target(&p);
        CHECK(target == t[k].target, "row %zu: target %lld, want %lld", k, (long long)target,
              t[k].target);
        int64_t b[16];
        b2_h5_block_shape(&p, target, b);
        for (int i = 0; i < t[k].rank; i++)
            CHECK(b[i] == t[k].shape[i], "row %zu dim %d: block %lld, want %lld", k, i,
                  (long long)b[i], t[k].shape[i]);
    }
}

/* The reference filter's cparams for p: c-blosc2 defaults, codec, clevel,
 * typesize and the filter in the last slot. */
static void reference_cparams(const b2_h5_params *p, b2_cparams *cp)
{
    b2_cparams_init(cp);
    cp->codec = p->codec;
    cp->clevel = p->clevel;
    cp->typesize = (int32_t)p->typesize;
    cp->splitmode = B2_SPLIT_FORWARD_COMPAT;
    memset(cp->filters, 0, sizeof cp->filters);
    cp->filters[B2_MAX_FILTERS - 1] = (uint8_t)p->filter;
}

/* The in-place frame must equal what the b2nd array API serialises (with the
 * filter's fixed-position header patch: bytes 63-67, and 53-56 kept). */
static void check_against_array_api(const b2_h5_params *p, const uint8_t *src, size_t nbytes,
                                    const uint8_t *frame, size_t flen)
{
    b2_cparams cp;
    reference_cparams(p, &cp);
    int64_t b[16];
    b2_h5_block_shape(p, b2_h5_block_target(p), b);
    b2_nd_params np;
    memset(&np, 0, sizeof np);
    np.ndim = p->rank;
    for (int i = 0; i < p->rank; i++) {
        np.shape[i] = (int64_t)p->dims[i];
        np.chunkshape[i] = (int32_t)p->dims[i];
        np.blockshape[i] = (int32_t)b[i];
    }
    char dtype[16];
    snprintf(dtype, sizeof dtype, "|V%u", p->typesize);
    np.typesize = (int32_t)p->typesize;
    np.dtype = dtype;
    np.cparams = &cp;
    b2_nd_storage st = {B2_STORAGE_MEMORY, NULL};
    b2_nd_array *a = NULL;
    uint8_t *old = NULL;
    size_t olen = 0;
    int rc = b2_nd_from_cbuffer(&np, &st, src, nbytes, &a);
    if (rc >= 0)
        rc = b2_nd_to_frame_buffer(a, &old, &olen);
    b2_nd_free(a);
    CHECK(rc >= 0 && olen == flen, "array API frame: rc %d, %zu bytes vs %zu", rc, olen, flen);
    if (rc >= 0 && olen == flen && olen >= 68) {
        old[63] = old[64] = old[66] = 0;
        old[67] = 1;
        CHECK(memcmp(old, frame, flen) == 0, "in-place frame differs from the array API's");
    }
    free(old);
}

/* The in-place plain frame must equal appending the chunk to a super-chunk and
 * serialising it, with the filter's header patch (53-56: the used block size;
 * 63-67: thread fields). */
static void check_against_schunk_api(const b2_h5_params *p, const uint8_t *src, size_t nbytes,
                                     const uint8_t *frame, size_t flen)
{
    b2_cparams cp;
    reference_cparams(p, &cp);
    cp.blocksize = p->blocksize > nbytes ? (int32_t)nbytes : (int32_t)p->blocksize;
    b2_schunk *s = t_new(&cp);
    uint8_t *old = NULL;
    size_t olen = 0;
    int rc = s ? (int)b2_schunk_append_buffer(s, src, (int32_t)nbytes) : B2_ERR_NOMEM;
    if (rc >= 0)
        rc = b2_schunk_to_buffer(s, &old, &olen);
    b2_schunk_free(s);
    CHECK(rc >= 0 && olen == flen, "super-chunk API frame: rc %d, %zu bytes vs %zu", rc, olen, flen);
    if (rc >= 0 && olen == flen && olen >= 68) {
        int32_t bs = b2_chunk_blocksize_for(&cp, (int32_t)nbytes);
        old[53] = (uint8_t)(bs >> 24);
        old[54] = (uint8_t)(bs >> 16);
        old[55] = (uint8_t)(bs >> 8);
        old[56] = (uint8_t)bs;
        old[63] = old[64] = old[66] = 0;
        old[67] = 1;
        CHECK(memcmp(old, frame, flen) == 0, "in-place plain frame differs from the super-chunk API's");
    }
    free(old);
}

/* Encode, decode, compare; returns the frame (caller frees) for mutation tests. */
static uint8_t *roundtrip(const unsigned *v, size_t n, int b2nd, const uint8_t *src,
                          size_t nbytes, size_t *flen)
{
    b2_h5_params p;
    char err[400];
    CHECK(parse(v, n, 1, &p) == 0, "parse");
    p.nthreads = 1;
    void *fv = NULL, *out = NULL;
    size_t osz = 0, olen = 0;
    int rc = b2_h5_payload_encode(&p, NULL, b2nd, src, nbytes, 0, &AL, &fv, &osz, flen, err, sizeof err);
    CHECK(rc == 0, "encode (b2nd %d, %zu bytes): %s", b2nd, nbytes, err);
    if (rc)
        return NULL;
    uint8_t *frame = fv;
    /* the per-thread context (kept compression context) must not change a byte */
    for (int k = 0; k < 2; k++) {
        void *f2 = NULL;
        size_t l2 = 0;
        rc = b2_h5_payload_encode(&p, b2_h5_ctx_get(1 + k), b2nd, src, nbytes, 0, &AL, &f2, &osz,
                                 &l2, err, sizeof err);
        CHECK(rc == 0 && l2 == *flen && memcmp(f2, frame, l2) == 0,
              "encode with a kept context (%d threads) differs", 1 + k);
        free(f2);
    }
    /* limited to the chunk's size (the optional-filter path): the same frame when
     * it fits, else a quiet B2_ERR_DST_TOO_SMALL */
    {
        void *f3 = NULL;
        size_t l3 = 0;
        rc = b2_h5_payload_encode(&p, b2_h5_ctx_get(1), b2nd, src, nbytes, nbytes, &AL, &f3, &osz, &l3,
                                 err, sizeof err);
        CHECK(*flen > nbytes ? rc == B2_ERR_DST_TOO_SMALL
                             : rc == 0 && l3 == *flen && memcmp(f3, frame, l3) == 0,
              "encode limited to %zu bytes: rc %d, %zu bytes (unlimited: %zu)", nbytes, rc, l3,
              *flen);
        free(f3);
    }
    if (b2nd)
        check_against_array_api(&p, src, nbytes, frame, *flen);
    else
        check_against_schunk_api(&p, src, nbytes, frame, *flen);
    rc = b2_h5_payload_decode(&p, NULL, frame, *flen, &AL, &out, &osz, &olen, err, sizeof err);
    CHECK(rc == 0 && olen == nbytes && memcmp(out, src, nbytes) == 0,
          "decode (b2nd %d): rc %d len %zu/%zu %s", b2nd, rc, olen, nbytes, rc ? err : "");
    free(out);
    /* one trailing byte too many must be refused (the frame length is exact) */
    uint8_t *longer = malloc(*flen + 1);
    memcpy(longer, frame, *flen);
    longer[*flen] = 0;
    rc = b2_h5_payload_decode(&p, NULL, longer, *flen + 1, &AL, &out, &osz, &olen, err, sizeof err);
    CHECK(rc < 0, "frame with a trailing byte accepted");
    if (rc == 0)
        free(out);
    free(longer);
    return frame;
}

static long mutate_all(const unsigned *v, size_t n, const uint8_t *frame, size_t flen)
{
    b2_h5_params p;
    char err[400];
    parse(v, n, 0, &p);
    p.nthreads = 1;
    uint8_t *buf = malloc(flen);
    long ok = 0, bad = 0;
    for (size_t pos = 0; pos < flen; pos++) {
        static const uint8_t xors[] = {0x01, 0x80, 0xFF};
        for (size_t k = 0; k < sizeof xors; k++) {
            memcpy(buf, frame, flen);
            buf[pos] ^= xors[k];
            void *out = NULL;
            size_t osz, olen;
            if (b2_h5_payload_decode(&p, NULL, buf, flen, &AL, &out, &osz, &olen, err, sizeof err) == 0) {
                ok++;
                free(out);
            } else {
                bad++;
            }
        }
    }
    for (size_t cut = 0; cut < flen; cut += (cut < 256 || cut + 128 > flen) ? 1 : 61) {
        void *out = NULL;
        size_t osz, olen;
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, frame, cut);
        if (b2_h5_payload_decode(&p, NULL, t, cut, &AL, &out, &osz, &olen, err, sizeof err) == 0) {
            ok++;
            free(out);
        } else {
            bad++;
        }
        free(t);
    }
    free(buf);
    return ok + bad;
}

/* Ranks 2-5, typesizes 1-16, edge blocks, filters none/shuffle/bitshuffle/delta,
 * clevel 0 (memcpy chunks) and incompressible data: the in-place frame must equal
 * the array API's and decode back. */
static void test_many_layouts(void)
{
    static const unsigned dims[][5] = {
        {2, 7, 13}, {2, 64, 33}, {3, 5, 9, 17}, {3, 8, 64, 40}, {4, 3, 5, 7, 11}, {2, 1, 300}};
    uint32_t x = 12345;
    int n = 0;
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (unsigned ts = 1; ts <= 16; ts++) {
            int rank = (int)dims[d][0];
            unsigned v[12] = {1, (ts * 7 + d) % 3 == 0 ? 512 : 0, ts, 0, (ts + d) % 4 == 0 ? 0 : 5,
                              (unsigned)(ts + d) % 4, (ts % 2) ? 1 : 5, (unsigned)rank};
            size_t nb = ts;
            for (int i = 0; i < rank; i++)
                nb *= (v[8 + i] = dims[d][1 + i]);
            v[3] = (unsigned)nb;
            uint8_t *src = malloc(nb);
            for (size_t i = 0; i < nb; i++) {
                x = x * 1103515245u + 12345u;
                src[i] = (d == 5) ? (uint8_t)(x >> 24) : (uint8_t)((i / ts) % 29 + (i % ts) * (x >> 30));
            }
            size_t flen;
            free(roundtrip(v, 8 + (size_t)rank, 1, src, nb, &flen));
            free(roundtrip(v, 7, 0, src, nb, &flen)); /* the same bytes as a plain frame */
            free(src);
            n++;
        }
    printf("in-place b2nd and plain frames checked against the array and super-chunk APIs: "
           "%d layouts\n", n);
}

/* The plugin-filter frames and arrays (bytedelta with meta 0, int_trunc) read
 * as stored HDF5 chunks: the payload decoder gives the reference's bytes. A
 * plain frame in an HDF5 chunk holds one chunk, so the payload path reads chunk
 * 0 of these multi-chunk frames: the length and sha256 given for them are of
 * the first chunksize bytes of the manifest's expected data. */
static void test_plugin_vectors(void)
{
    static const struct { const char *path; unsigned ts, len; const char *sha; } v[] = {
        {"frames/f00_lz4_shuffle-bytedelta0_f4.b2frame", 4, 19148,
         "968ae15727a011c4a0a0db2a3dcd9de57448d50a7dbdf653639d1427f667cacc"},
        {"frames/f01_zstd_shuffle-bytedelta0_f8.b2frame", 8, 63456,
         "e4f4ca810d27c57b135d3af4350e4b0a3b62c67930927059471d16bb0fff9430"},
        {"frames/f02_blosclz_shuffle-bytedelta0_i4.b2frame", 4, 8516,
         "2e009467782f6adebe24e10c776f41542f9642596bcbf2f3f3e8ac9b3ea92a4e"},
        {"frames/f03_lz4hc_shuffle-bytedelta0_f8.b2frame", 8, 40920,
         "10a45d7aa0163fc68fa45043764cfe61c38da15b4a7f5aa66ef0fc5c418941d1"},
        {"b2nd/n12_bytedelta_f8.b2nd", 8, 480000,
         "8c54d3c72bce8847c3df2de0d5c229fcec01295566ea45ff6730c3f486d4d59c"},
        {"b2nd/n13_int_trunc_i4.b2nd", 4, 43200,
         "fbd8edb9697a7d6cb5b1a5c117ce7b9583483029d9cf588237c5a66884c86301"},
    };
    const char *dir = getenv("B2_TEST_DATA");
    if (!dir) {
        printf("plugin vectors: B2_TEST_DATA not set, skipped\n");
        return;
    }
    int ok_count = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/plugins/%s", dir, v[i].path);
        FILE *fp = fopen(path, "rb");
        CHECK(fp != NULL, "cannot open %s", path);
        if (!fp)
            continue;
        fseek(fp, 0, SEEK_END);
        long flen = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *buf = malloc(flen > 0 ? (size_t)flen : 1);
        size_t got = fread(buf, 1, (size_t)flen, fp);
        fclose(fp);
        unsigned cd[] = {1, 0, v[i].ts, v[i].len, 5, 1, 5};
        b2_h5_params p;
        char err[400] = "";
        void *out = NULL;
        size_t osz, olen;
        int rc = parse(cd, 7, 0, &p);
        if (rc == 0)
            rc = b2_h5_payload_decode(&p, NULL, buf, got, &AL, &out, &osz, &olen, err, sizeof err);
        char hex[65] = "";
        if (rc == 0)
            test_sha256_hex(out, olen, hex);
        int ok = rc == 0 && olen == v[i].len && !strcmp(hex, v[i].sha);
        CHECK(ok, "%s: payload decode rc %d, %zu bytes %s", v[i].path, rc, rc == 0 ? olen : 0, err);
        ok_count += ok;
        free(out);
        free(buf);
    }
    printf("plugin-filter frames/arrays through the payload decoder: %d of 6\n", ok_count);
}

int main(void)
{
    test_plugin_vectors();
    test_params();
    test_block_shapes();
    long mutated = 0;
    size_t nb = 50 * 100 * 4;
    uint8_t *src = malloc(nb);
    for (size_t i = 0; i < nb; i++)
        src[i] = (uint8_t)((i / 4) % 97 + (i % 4 == 3 ? 0 : i % 3));
    unsigned v2[] = {1, 2048, 4, (unsigned)nb, 5, 1, 1, 2, 50, 100};
    unsigned v1[] = {1, 0, 4, (unsigned)nb, 5, 2, 5};
    unsigned v3[] = {1, 0, 4, (unsigned)nb, 9, 1, 0, 3, 10, 25, 20};
    size_t flen;
    uint8_t *f = roundtrip(v2, 10, 1, src, nb, &flen);
    if (f) {
        mutated += mutate_all(v2, 10, f, flen);
        /* a (50,100) frame read with cd_values saying (100,50) */
        unsigned vx[] = {1, 2048, 4, (unsigned)nb, 5, 1, 1, 2, 100, 50};
        b2_h5_params p;
        char err[400];
        void *out;
        size_t a, b;
        parse(vx, 10, 0, &p);
        CHECK(b2_h5_payload_decode(&p, NULL, f, flen, &AL, &out, &a, &b, err, sizeof err) < 0 &&
                  strstr(err, "shape"),
              "shape mismatch not reported: %s", err);
        free(f);
    }
    f = roundtrip(v1, 7, 0, src, nb, &flen);
    if (f) {
        mutated += mutate_all(v1, 7, f, flen);
        free(f);
    }
    f = roundtrip(v3, 11, 1, src, nb, &flen);
    if (f) {
        mutated += mutate_all(v3, 11, f, flen);
        free(f);
    }
    /* all-zero chunk: a special chunk stored in the index only */
    memset(src, 0, nb);
    f = roundtrip(v2, 10, 1, src, nb, &flen);
    free(f);
    f = roundtrip(v1, 7, 0, src, nb, &flen);
    free(f);
    free(src);
    test_many_layouts();
    printf("test_h5payload: %ld checks, %ld failures, %ld hostile frames decoded or refused\n",
           b2t_checks, b2t_failures, mutated);
    return b2t_failures ? 1 : 0;
}
