/* SPDX-License-Identifier: BSD-3-Clause */
/* Registered plugin filters ndcell (32), ndmean (33), bytedelta (34 decode
 * only, 35) and int_trunc (36), the ndlz codec (32) when built with libxxhash
 * and the zfp codecs (33..35) when built with libzfp: the plugin vectors
 * ($B2_INTEROP_DIR/plugins/manifest.json) whose pipeline uses only filters and
 * codecs we implement decode to their sha256 through the chunk, frame and b2nd
 * layers; re-encoding a vector's input with its parameters gives the
 * reference's bytes (chunks, every chunk of the frames, every chunk of the b2nd
 * arrays; lossy ones also decode to the reference's values); small
 * hand-checked cases pin the arithmetic (the buggy variant's restart, tails,
 * int_trunc's meta range). Own cases: test_plugin_zfp.c, test_plugin_ndlz.c,
 * test_ndcell.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "manifest.h"
#include "sha256.h"
#include "check.h"
#include "scratch.h"
#include "frame_open.h"
#include "b2_chunk_experimental.h"

static int known_filter(int f) { return (f >= 0 && f <= 4) || (f >= 32 && f <= 36); }

/* The plugin codecs this build encodes: zfp (33..35) with libzfp, ndlz (32)
 * with libxxhash (without it ndlz decodes, but its vectors are re-encoded too). */
static int plugin_codec(int c)
{
#if defined(B2_HAVE_ZFP)
    if (c >= B2_CODEC_ZFP_ACC && c <= B2_CODEC_ZFP_RATE)
        return 1;
#endif
#if defined(B2_HAVE_NDLZ)
    if (c == B2_CODEC_NDLZ)
        return 1;
#endif
    return (void)c, 0;
}

/* Whether a vector only needs what this library implements (other plugins later). */
static int supported(const jnode *v)
{
    int codec = (int)json_num(v, "params.codec_id", -1);
    if ((codec < 0 || codec > 5 || codec == 3) && !plugin_codec(codec))
        return 0;
    const jnode *f = json_path(v, "params.filters");
    for (size_t i = 0; f && i < f->nkids; i++)
        if (!known_filter((int)f->kids[i].num))
            return 0;
    return f != NULL;
}

static int uses_filter(const jnode *v, int id)
{
    const jnode *f = json_path(v, "params.filters");
    for (size_t i = 0; f && i < f->nkids; i++)
        if ((int)f->kids[i].num == id)
            return 1;
    return 0;
}

static int sha_is(const uint8_t *p, size_t n, const char *want)
{
    char hex[65];
    test_sha256_hex(p, n, hex);
    return want && !strcmp(hex, want);
}

static void params_of(const jnode *v, b2_cparams *p)
{
    b2_cparams_init(p);
    p->codec = (int)json_num(v, "params.codec_id", -1);
    p->clevel = (int)json_num(v, "params.clevel", 5);
    p->typesize = (int32_t)json_num(v, "params.typesize", 1);
    p->blocksize = (int32_t)json_num(v, "params.blocksize", 0);
    p->splitmode = (int)json_num(v, "params.splitmode_id", 4);
    p->nthreads = 1;
    const jnode *f = json_path(v, "params.filters"), *m = json_path(v, "params.filters_meta");
    for (int i = 0; i < B2_MAX_FILTERS; i++) {
        p->filters[i] = f && (size_t)i < f->nkids ? (uint8_t)f->kids[i].num : 0;
        p->filters_meta[i] = m && (size_t)i < m->nkids ? (uint8_t)((int)m->kids[i].num & 0xff) : 0;
    }
}

static int ndecoded, nencoded, nidentical, nlossy_equal;

/* The encoder's input: the expected bytes for lossless vectors, else the raw input file. */
static uint8_t *vector_input(const jnode *v, const uint8_t *decoded, size_t *n)
{
    const char *ip = json_str(v, "input.path", NULL);
    *n = (size_t)json_num(v, "input.nbytes", -1);
    if (!ip) {
        uint8_t *c = malloc(*n + 1);
        memcpy(c, decoded, *n);
        return c;
    }
    char path[4096];
    test_plugin_path(v, "input.path", path, sizeof path);
    size_t len;
    uint8_t *in = test_read_file(path, &len);
    CHECK(in && len == *n && sha_is(in, len, json_str(v, "input.sha256", NULL)), "input %s", path);
    return in;
}

/* Re-encode raw (n bytes) with p; compare with the reference chunk ref. For a
 * lossy pipeline also check that our chunk decodes to what the reference's
 * decodes to (want). Returns 1 when byte-identical. */
static int reencode(const char *id, const b2_cparams *p, const uint8_t *raw, size_t n,
                    const uint8_t *ref, size_t reflen, const uint8_t *want, b2_dctx *d)
{
    /* A roomy buffer as the reference had: with only the bound, chunks whose
     * streams do not fit turn into plain copies. */
    size_t cap = 2 * n + 4096;
    uint8_t *out = malloc(cap);
    b2_cctx *c = b2_cctx_new(p);
    CHECK(c, "%s: cctx: %s", id, b2_last_error_message());
    int len = c ? b2_chunk_compress(c, raw, n, out, cap) : -1;
    b2_cctx_free(c);
    CHECK(len > 0, "%s: compress %d (%s)", id, len, b2_last_error_message());
    int same = len > 0 && (size_t)len == reflen && !memcmp(out, ref, reflen);
    if (len > 0) {
        uint8_t *back = malloc(n + 1);
        int r = b2_chunk_decompress(d, out, (size_t)len, back, n);
        CHECK(r == (int)n && !memcmp(back, want, n), "%s: our chunk decodes to the reference's values",
              id);
        free(back);
    }
    free(out);
    return same;
}

static void chunk_vector(const jnode *v, b2_dctx *d)
{
    const char *id = json_str(v, "id", "?");
    char path[4096];
    test_plugin_path(v, "path", path, sizeof path);
    size_t len;
    uint8_t *c = test_read_file(path, &len);
    CHECK(c != NULL, "%s: cannot read %s", id, path);
    if (!c)
        return;
    size_t n = (size_t)json_num(v, "expected.length", -1);
    uint8_t *out = malloc(n + 1);
    int r = b2_chunk_decompress(d, c, len, out, n);
    int ok = r == (int)n && sha_is(out, n, json_str(v, "expected.sha256", NULL));
    CHECK(ok, "%s: decode %d (%s)", id, r, r < 0 ? b2_last_error_message() : "sha256");
    ndecoded += ok;
    if (ok && !uses_filter(v, B2_FILTER_BYTEDELTA_BUGGY)) {
        size_t rn;
        uint8_t *raw = vector_input(v, out, &rn);
        if (raw && rn == n) {
            b2_cparams p;
            params_of(v, &p);
            int same = reencode(id, &p, raw, n, c, len, out, d);
            nencoded++;
            nidentical += same;
            CHECK(same, "%s: re-encoding differs from the reference's chunk", id);
            if (uses_filter(v, B2_FILTER_INT_TRUNC))
                nlossy_equal++;
        }
        free(raw);
    }
    free(out);
    free(c);
}

static void frame_vector(const jnode *v, b2_dctx *d)
{
    const char *id = json_str(v, "id", "?");
    char path[4096];
    test_plugin_path(v, "path", path, sizeof path);
    b2_schunk *s = NULL;
    int rc = t_open(path, B2_OPEN_READONLY, &s);
    CHECK(rc == 0, "%s: open %d (%s)", id, rc, b2_strerror(rc));
    if (rc)
        return;
    size_t n = (size_t)json_num(v, "expected.length", -1), pos = 0;
    CHECK(b2_schunk_nbytes(s) == (int64_t)n, "%s: nbytes", id);
    uint8_t *out = calloc(n + 1, 1);
    int ok = b2_schunk_nbytes(s) == (int64_t)n;
    for (int64_t i = 0; ok && i < b2_schunk_nchunks(s); i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        ok = nb >= 0 && pos + (size_t)nb <= n &&
             b2_schunk_decompress_chunk(s, i, out + pos, (size_t)nb) == nb;
        CHECK(ok, "%s: chunk %lld: %s", id, (long long)i, b2_last_error_message());
        pos += ok ? (size_t)nb : 0;
    }
    ok = ok && pos == n && sha_is(out, n, json_str(v, "expected.sha256", NULL));
    CHECK(ok, "%s: sha256", id);
    ndecoded += ok;
    /* Every chunk re-encoded from its decoded bytes (meta 0: the frame's typesize). */
    b2_cparams p;
    params_of(v, &p);
    pos = 0;
    int all_same = ok;
    for (int64_t i = 0; ok && i < b2_schunk_nchunks(s); i++) {
        int nb = b2_schunk_chunk_nbytes(s, i);
        uint8_t *ref = NULL;
        int32_t cb = 0;
        if (b2_schunk_get_chunk(s, i, &ref, &cb) < 0) {
            CHECK(0, "%s: get_chunk %lld", id, (long long)i);
            break;
        }
        char name[300];
        snprintf(name, sizeof name, "%s chunk %lld", id, (long long)i);
        all_same &= reencode(name, &p, out + pos, (size_t)nb, ref, (size_t)cb, out + pos, d);
        free(ref);
        pos += (size_t)nb;
    }
    if (ok) {
        nencoded++;
        nidentical += all_same;
        CHECK(all_same, "%s: some chunks re-encode to different bytes", id);
    }
    free(out);
    b2_schunk_free(s);
}

/* A b2nd vector below the array layer: every chunk decodes the same through the
 * frame layer (geometry from the metalayer) and as a lone chunk given the
 * geometry (ref: the frame layer's bytes, chunk after chunk). Then the vector's
 * input, rebuilt with b2_nd_from_cbuffer and the reference's parameters, must
 * give the reference's chunks; chunks that differ must at least decode to the
 * reference's values. *frame_same: our whole frame equals the file. */
static int b2nd_chunks(const jnode *v, b2_nd_array *a, const uint8_t *file, size_t flen,
                       const uint8_t *decoded, int *frame_same)
{
    const char *id = json_str(v, "id", "?");
    b2_schunk *s = b2_nd_schunk(a);
    int64_t nchunks = b2_schunk_nchunks(s);
    size_t csize = (size_t)b2_schunk_chunksize(s);
    uint8_t *ref = malloc(csize * (size_t)nchunks + 1), *tmp = malloc(csize + 1);
    b2_block_geometry g = {.ndim = b2_nd_ndim(a)};
    for (int i = 0; i < g.ndim; i++)
        g.blockshape[i] = b2_nd_blockshape(a)[i];
    b2_dctx *d = b2_dctx_new(1);
    b2_dctx_set_geometry(d, &g);
    int ok = 1;
    for (int64_t i = 0; ok && i < nchunks; i++) {
        uint8_t *c = NULL;
        int32_t cb = 0;
        int r = b2_schunk_decompress_chunk(s, i, ref + (size_t)i * csize, csize);
        ok = r == (int)csize && b2_schunk_get_chunk(s, i, &c, &cb) >= 0 &&
             b2_chunk_decompress(d, c, (size_t)cb, tmp, csize) == (int)csize &&
             !memcmp(tmp, ref + (size_t)i * csize, csize);
        CHECK(ok, "%s chunk %lld: frame and lone-chunk decodes (%d: %s)", id, (long long)i, r,
              b2_last_error_message());
        free(c);
    }
    size_t n;
    uint8_t *raw = ok ? vector_input(v, decoded, &n) : NULL;
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.ndim = g.ndim;
    for (int i = 0; i < p.ndim; i++) {
        p.shape[i] = b2_nd_shape(a)[i];
        p.chunkshape[i] = b2_nd_chunkshape(a)[i];
        p.blockshape[i] = g.blockshape[i];
    }
    p.typesize = b2_nd_typesize(a);
    p.dtype = b2_nd_dtype(a);
    b2_cparams cp = *b2_schunk_cparams(s);
    cp.splitmode = (int)json_num(v, "params.splitmode_id", B2_SPLIT_FORWARD_COMPAT);
    cp.nthreads = 1;
    p.cparams = &cp;
    b2_nd_array *ours = NULL;
    int rc = raw ? b2_nd_from_cbuffer(&p, NULL, raw, n, &ours) : -1;
    CHECK(!raw || rc == 0, "%s: from_cbuffer %d (%s)", id, rc, b2_last_error_message());
    int same = rc == 0 && b2_schunk_nchunks(b2_nd_schunk(ours)) == nchunks;
    for (int64_t i = 0; rc == 0 && i < nchunks; i++) {
        uint8_t *c = NULL, *o = NULL;
        int32_t cb = 0, ob = 0;
        b2_schunk_get_chunk(s, i, &c, &cb);
        b2_schunk_get_chunk(b2_nd_schunk(ours), i, &o, &ob);
        if (!o || cb != ob || memcmp(c, o, (size_t)cb)) {
            same = 0;
            int r = o ? b2_chunk_decompress(d, o, (size_t)ob, tmp, csize) : -1;
            CHECK(r == (int)csize && !memcmp(tmp, ref + (size_t)i * csize, csize),
                  "%s chunk %lld: ours (%d bytes, the reference's %d) decodes to the "
                  "reference's values",
                  id, (long long)i, (int)ob, (int)cb);
        }
        free(c);
        free(o);
    }
    uint8_t *fb = NULL;
    size_t fl = 0;
    *frame_same = same && b2_nd_to_frame_buffer(ours, &fb, &fl) == 0 && fl == flen &&
                  !memcmp(fb, file, flen);
    free(fb);
    b2_nd_free(ours);
    free(raw);
    b2_dctx_free(d);
    free(tmp);
    free(ref);
    return ok && rc == 0 ? same : -1;
}

static int nframes_same;

static char tmpdir[] = "/tmp/b2_plugins_XXXXXX";
static int have_tmpdir, nstored;

/* The array saved as a file frame and as a sparse frame, reopened from disk and
 * read whole and by a box (geometry from the reopened frames' metalayer). */
static void stored_copies(const char *id, b2_nd_array *a, const uint8_t *want, size_t n)
{
    static const int kinds[2] = {B2_STORAGE_FILE, B2_STORAGE_SPARSE};
    for (int k = 0; k < 2 && have_tmpdir; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/v%d.%s", tmpdir, nstored, k ? "b2dir" : "b2nd");
        b2_nd_storage st = {kinds[k], path};
        b2_nd_array *b = NULL;
        int rc = b2_nd_save(a, &st);
        if (rc == 0)
            rc = b2_nd_open(path, B2_OPEN_READONLY, &b);
        uint8_t *out = malloc(n + 1);
        if (rc == 0)
            rc = b2_nd_to_cbuffer(b, out, n);
        int ok = rc == 0 && !memcmp(out, want, n);
        CHECK(ok, "%s: %s frame on disk: %d (%s)", id, k ? "sparse" : "file", rc,
              rc < 0 ? b2_last_error_message() : "content differs");
        if (ok) { /* one item from the middle: the lazy block reader */
            int nd = b2_nd_ndim(b);
            int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], lin = 0;
            const int64_t *shape = b2_nd_shape(b);
            for (int d = 0; d < nd; d++) {
                start[d] = shape[d] / 2;
                stop[d] = start[d] + 1;
                lin = lin * shape[d] + start[d];
            }
            int32_t ts = b2_nd_typesize(b);
            uint8_t item[64];
            rc = ts <= 64 ? b2_nd_get_slice_cbuffer(b, start, stop, item, sizeof item) : -1;
            CHECK(rc == 0 && !memcmp(item, want + lin * ts, (size_t)ts), "%s: %s frame, one item",
                  id, k ? "sparse" : "file");
            nstored += rc == 0;
        }
        free(out);
        b2_nd_free(b);
    }
}

static void b2nd_vector(const jnode *v)
{
    const char *id = json_str(v, "id", "?");
    char path[4096];
    test_plugin_path(v, "path", path, sizeof path);
    size_t flen;
    uint8_t *file = test_read_file(path, &flen);
    CHECK(file != NULL, "%s: cannot read %s", id, path);
    if (!file)
        return;
    b2_nd_array *a = NULL;
    int rc = b2_nd_open_buffer(file, flen, 0, &a);
    CHECK(rc == 0, "%s: open_buffer %d (%s)", id, rc, b2_strerror(rc));
    if (rc == 0) {
        size_t n = (size_t)json_num(v, "expected.length", -1);
        uint8_t *out = malloc(n + 1);
        rc = b2_nd_to_cbuffer(a, out, n);
        int ok = rc == 0 && sha_is(out, n, json_str(v, "expected.sha256", NULL));
        CHECK(ok, "%s: to_cbuffer %d (%s)", id, rc, rc < 0 ? b2_last_error_message() : "sha256");
        ndecoded += ok;
        if (ok)
            stored_copies(id, a, out, n);
        int frame_same = 0, same = ok ? b2nd_chunks(v, a, file, flen, out, &frame_same) : -1;
        if (same >= 0) {
            nencoded++;
            nidentical += same;
            nframes_same += frame_same;
            nlossy_equal += !json_bool(v, "checks.lossless", 1);
            CHECK(same, "%s: re-encoding differs from the reference's chunks", id);
        }
        free(out);
        b2_nd_free(a);
    }
    free(file);
}

/* ---- hand-checked arithmetic through one-block chunks ---- */
static int roundtrip(const b2_cparams *p, const uint8_t *in, size_t n, uint8_t *back)
{
    size_t cap = b2_chunk_compress_bound(n);
    uint8_t *c = malloc(cap);
    b2_cctx *cc = b2_cctx_new(p);
    int len = cc ? b2_chunk_compress(cc, in, n, c, cap) : -1;
    b2_cctx_free(cc);
    b2_dctx *d = b2_dctx_new(1);
    int r = len > 0 ? b2_chunk_decompress(d, c, (size_t)len, back, n) : len;
    b2_dctx_free(d);
    free(c);
    return r;
}

static void test_hand_cases(void)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_LZ4;
    p.clevel = 0; /* stored: the filtered bytes are visible in the chunk */
    p.typesize = 2;
    p.filters[5] = B2_FILTER_BYTEDELTA;
    p.filters_meta[5] = 0;
    /* 2 streams of 20 bytes plus a 1-byte tail (odd length) */
    uint8_t in[41], back[41];
    for (int i = 0; i < 41; i++)
        in[i] = (uint8_t)(i * i * 7 + 3);
    CHECK(roundtrip(&p, in, 41, back) == 41 && !memcmp(in, back, 41), "bytedelta round trip");

    /* int_trunc: -3 clears 3 bits of int16, +4 keeps the top 4 bits; the tail
     * byte is kept (large enough not to be stored as a plain copy) */
    enum { W = 2001 };
    static uint8_t w[W], wb[W];
    for (int i = 0; i + 1 < W; i += 4) {
        w[i] = 0xff, w[i + 1] = 0xff, w[i + 2] = 0x37, w[i + 3] = 0x12;
    }
    w[W - 1] = 0xff;
    p.typesize = 2;
    p.clevel = 5;
    p.filters[5] = B2_FILTER_INT_TRUNC;
    p.filters_meta[5] = (uint8_t)-3;
    CHECK(roundtrip(&p, w, W, wb) == W && wb[0] == 0xf8 && wb[1] == 0xff && wb[2] == 0x30 &&
              wb[3] == 0x12 && wb[W - 1] == 0xff,
          "int_trunc -3");
    p.filters_meta[5] = 4;
    CHECK(roundtrip(&p, w, W, wb) == W && wb[0] == 0 && wb[1] == 0xf0 && wb[2] == 0 &&
              wb[3] == 0x10 && wb[W - 1] == 0xff,
          "int_trunc +4");
    /* meta range: 0, > bits and -bits are refused; typesize 3 too */
    int bad[] = {0, 17, -16, -128};
    for (int i = 0; i < 4; i++) {
        p.filters_meta[5] = (uint8_t)bad[i];
        b2_cctx *c = b2_cctx_new(&p);
        CHECK(c == NULL, "int_trunc meta %d accepted", bad[i]);
        b2_cctx_free(c);
    }
    p.filters_meta[5] = 16;
    b2_cctx *c = b2_cctx_new(&p);
    CHECK(c != NULL, "int_trunc meta 16 (keep all) refused");
    b2_cctx_free(c);
    p.typesize = 3;
    p.filters_meta[5] = 4;
    c = b2_cctx_new(&p);
    CHECK(c == NULL, "int_trunc on typesize 3 accepted");
    b2_cctx_free(c);
    /* bytedelta_buggy is decode-only */
    p.typesize = 4;
    p.filters[5] = B2_FILTER_BYTEDELTA_BUGGY;
    p.filters_meta[5] = 0;
    c = b2_cctx_new(&p);
    CHECK(c == NULL, "bytedelta_buggy accepted for encoding");
    b2_cctx_free(c);
    CHECK(b2_filter_from_name("bytedelta") == 35 && b2_filter_from_name("bytedelta_buggy") == 34 &&
              b2_filter_from_name("int_trunc") == 36 && !strcmp(b2_filter_name(36), "int_trunc") &&
              b2_filter_name(37) == NULL,
          "filter names");
}

/* The buggy decoder: a one-block chunk (typesize 1: one stream of 4010 bytes)
 * made without filters, then its slot 5 patched to bytedelta(_buggy) so the
 * stored bytes are read as deltas. The correct variant sums all the way; the
 * buggy one restarts from 0 after the 250 whole 16-byte groups (byte 4000). */
static void test_buggy_decode(void)
{
    enum { N = 4010 };
    static uint8_t in[N], back[N];
    for (int i = 0; i < N; i++)
        in[i] = (uint8_t)(i % 7 + 1);
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_LZ4;
    p.clevel = 5;
    p.typesize = 1;
    p.blocksize = N;
    p.splitmode = B2_SPLIT_NEVER;
    p.filters[5] = 0;
    size_t cap = b2_chunk_compress_bound(N);
    uint8_t *c = malloc(cap);
    b2_cctx *cc = b2_cctx_new(&p);
    int len = b2_chunk_compress(cc, in, N, c, cap);
    b2_cctx_free(cc);
    /* compressed (not stored, not special): filters apply when decoding */
    CHECK(len > 32 && len < N && (c[2] & 0x02) == 0 && c[31] == 0, "plain chunk %d", len);
    if (len > 32) {
        b2_dctx *d = b2_dctx_new(1);
        for (int buggy = 0; buggy < 2; buggy++) {
            c[21] = buggy ? B2_FILTER_BYTEDELTA_BUGGY : B2_FILTER_BYTEDELTA; /* slot 5 */
            int r = b2_chunk_decompress(d, c, (size_t)len, back, N);
            int ok = r == N;
            uint8_t acc = 0;
            for (int i = 0; ok && i < N; i++) {
                if (buggy && i == 4000)
                    acc = 0;
                acc = (uint8_t)(acc + in[i]);
                ok = back[i] == acc;
            }
            CHECK(ok, "%s running sum (%d)", buggy ? "bytedelta_buggy" : "bytedelta", r);
        }
        b2_dctx_free(d);
    }
    free(c);
}

int main(void)
{
    test_hand_cases();
    test_buggy_decode();
    jnode *man = test_plugin_manifest();
    if (!man)
        return b2t_failures ? 1 : 77;
    have_tmpdir = mkdtemp(tmpdir) != NULL;
    b2_dctx *d = b2_dctx_new(1);
    const jnode *vecs = json_get(man, "vectors");
    int nsup = 0, nbuggy = 0, ntrunc = 0, nzfp = 0, nndlz = 0, nb2nd = 0;
    for (size_t i = 0; vecs && i < vecs->nkids; i++) {
        const jnode *v = &vecs->kids[i];
        if (!supported(v))
            continue;
        nsup++;
        nbuggy += uses_filter(v, B2_FILTER_BYTEDELTA_BUGGY);
        ntrunc += uses_filter(v, B2_FILTER_INT_TRUNC);
        int codec = (int)json_num(v, "params.codec_id", -1);
        nzfp += codec >= B2_CODEC_ZFP_ACC && codec <= B2_CODEC_ZFP_RATE;
        nndlz += codec == B2_CODEC_NDLZ;
        const char *kind = json_str(v, "kind", "");
        if (!strcmp(kind, "chunk"))
            chunk_vector(v, d);
        else if (!strcmp(kind, "cframe"))
            frame_vector(v, d);
        else if (!strcmp(kind, "b2nd"))
            b2nd_vector(v), nb2nd++;
        else
            CHECK(0, "unknown kind %s", kind);
    }
    b2_dctx_free(d);
    json_free(man);
    printf("plugin vectors: %d supported (%d bytedelta_buggy, %d int_trunc, %d zfp, %d ndlz), "
           "%d decoded; %d re-encoded, %d byte-identical (b2nd: %d whole frames), %d lossy ones "
           "decode to the reference's values\n",
           nsup, nbuggy, ntrunc, nzfp, nndlz, ndecoded, nencoded, nidentical, nframes_same,
           nlossy_equal);
    /* ndcell/ndmean: n00..n03; zfp: n06..n11 with libzfp; ndlz: n04, n05 with
     * libxxhash (all b2nd arrays) */
    int want_sup = 64 + nzfp + nndlz, want_enc = 49 + nzfp + nndlz;
    CHECK(nzfp == (plugin_codec(B2_CODEC_ZFP_ACC) ? 6 : 0), "%d zfp vectors", nzfp);
    CHECK(nndlz == (plugin_codec(B2_CODEC_NDLZ) ? 2 : 0), "%d ndlz vectors", nndlz);
    CHECK(nsup == want_sup && ndecoded == nsup, "all %d supported plugin vectors decode", want_sup);
    CHECK(nencoded == want_enc && nidentical == nencoded,
          "all %d lossless/int_trunc/ndmean/zfp re-encodings identical", want_enc);
    if (have_tmpdir)
        test_rm_tree(tmpdir);
    printf("plugin b2nd vectors saved as file and sparse frames and reopened: %d\n", nstored);
    CHECK(!have_tmpdir || nstored == 2 * nb2nd, "%d of %d stored copies read back", nstored,
          2 * nb2nd);
    return b2t_summary("plugin filters");
}
