/* SPDX-License-Identifier: BSD-3-Clause */
/* b2nd array operations: fills, from/to buffers, files and sframes, resize /
 * insert / append / delete (the spec's verified examples, then random sequences
 * against a brute-force model), copy with new chunk/block shapes, squeeze. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_nd.h"
#include "b2_nd_experimental.h" /* b2_nd_copy_with_progress */
#include "check.h"
#include "nd_model.h"
#include "test_rng.h"
#include "frame_open.h"


static b2_nd_params params_1d(int64_t shape, int32_t chunk, int32_t block, int32_t ts)
{
    b2_nd_params p;
    ndt_params(&p, 1, &shape, &chunk, &block, ts);
    return p;
}

static int read_i32(b2_nd_array *a, int32_t *out, size_t n)
{
    if ((size_t)b2_nd_nitems(a) != n)
        return -1;
    return b2_nd_to_cbuffer(a, out, n * 4);
}

static void test_spec_examples(void)
{
    int32_t v[16], got[16];
    for (int i = 0; i < 8; i++)
        v[i] = i + 1;
    b2_nd_params p = params_1d(8, 4, 2, 4);
    p.dtype = "<i4";
    b2_nd_array *a;
    /* insert 4 items at position 4 of 1..8 with chunk 4 */
    CHECK(b2_nd_from_cbuffer(&p, NULL, v, 32, &a) == 0, "from_cbuffer 1..8");
    int32_t ins[4] = {201, 202, 203, 204};
    CHECK(b2_nd_insert(a, ins, 16, 0, 4) == 0, "insert");
    static const int32_t want_ins[12] = {1, 2, 3, 4, 201, 202, 203, 204, 5, 6, 7, 8};
    CHECK(read_i32(a, got, 12) == 0 && memcmp(got, want_ins, 48) == 0, "insert result");
    CHECK(b2_schunk_nchunks(b2_nd_schunk(a)) == 3, "insert: 3 chunks");
    b2_nd_free(a);
    /* delete [0, 4) of 1..8: the first chunk goes */
    b2_nd_from_cbuffer(&p, NULL, v, 32, &a);
    CHECK(b2_nd_delete(a, 0, 0, 4) == 0, "delete");
    static const int32_t want_del[4] = {5, 6, 7, 8};
    CHECK(read_i32(a, got, 4) == 0 && memcmp(got, want_del, 16) == 0, "delete result");
    CHECK(b2_schunk_nchunks(b2_nd_schunk(a)) == 1, "delete: 1 chunk left");
    CHECK(b2_nd_delete(a, 0, 1, 2) < 0, "unaligned delete in the middle refused");
    b2_nd_free(a);
    /* append one chunk's worth to shape 10 (the reference loses data here; we must not) */
    for (int i = 0; i < 10; i++)
        v[i] = i + 1;
    p = params_1d(10, 4, 4, 4);
    b2_nd_from_cbuffer(&p, NULL, v, 40, &a);
    int32_t app[4] = {101, 102, 103, 104};
    CHECK(b2_nd_append(a, app, 16, 0) == 0, "append");
    static const int32_t want_app[14] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 101, 102, 103, 104};
    CHECK(read_i32(a, got, 14) == 0 && memcmp(got, want_app, 56) == 0, "append result");
    /* shrink 14 -> 9, grow 9 -> 11: the regrown items read as zero */
    int64_t s9 = 9, s11 = 11;
    CHECK(b2_nd_resize(a, &s9, NULL) == 0 && b2_nd_resize(a, &s11, NULL) == 0, "shrink+grow");
    CHECK(read_i32(a, got, 11) == 0 && got[8] == 9 && got[9] == 0 && got[10] == 0,
          "regrown items are zero (%d %d)", got[9], got[10]);
    b2_nd_free(a);
    /* 1-D geometry example: shape 10, chunk 4, block 3, typesize 1 */
    uint8_t b[10];
    for (int i = 0; i < 10; i++)
        b[i] = (uint8_t)(i + 1);
    p = params_1d(10, 4, 3, 1);
    b2_nd_from_cbuffer(&p, NULL, b, 10, &a);
    uint8_t c2[6];
    int n = b2_schunk_decompress_chunk(b2_nd_schunk(a), 2, c2, sizeof c2);
    static const uint8_t want_c2[6] = {9, 10, 0, 0, 0, 0};
    CHECK(n == 6 && memcmp(c2, want_c2, 6) == 0, "chunk 2 holds 9 10 0 0 0 0");
    b2_nd_free(a);
}

/* doc/format/b2nd.md §5: 5x7 int16 with chunks 3x4 and blocks 2x3; check the stored chunk layout. */
static void test_worked_example(void)
{
    b2_nd_params p;
    ndt_params(&p, 2, (const int64_t[]){5, 7}, (const int32_t[]){3, 4}, (const int32_t[]){2, 3},
               2);
    p.dtype = "<i2";
    int16_t v[35];
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++)
            v[i * 7 + j] = (int16_t)(100 + 10 * i + j);
    b2_nd_array *a;
    CHECK(b2_nd_from_cbuffer(&p, NULL, v, sizeof v, &a) == 0, "worked example");
    static const int16_t chunk0[24] = {100, 101, 102, 110, 111, 112, 103, 0, 0, 113, 0, 0,
                                       120, 121, 122, 0,   0,   0,   123, 0, 0, 0,   0, 0};
    static const int16_t chunk3[24] = {134, 135, 136, 144, 145, 146};
    int16_t c[24];
    CHECK(b2_schunk_decompress_chunk(b2_nd_schunk(a), 0, c, sizeof c) == 48 &&
              memcmp(c, chunk0, 48) == 0,
          "chunk 0 layout");
    CHECK(b2_schunk_decompress_chunk(b2_nd_schunk(a), 3, c, sizeof c) == 48 &&
              memcmp(c, chunk3, 48) == 0,
          "chunk 3 layout");
    uint8_t *meta;
    int32_t mlen;
    CHECK(b2_schunk_meta_get(b2_nd_schunk(a), "b2nd", &meta, &mlen) >= 0 && mlen == 53,
          "metalayer 53 bytes");
    free(meta);
    b2_nd_free(a);
}

static void test_fills(void)
{
    b2_nd_params p = params_1d(37, 10, 4, 8);
    p.dtype = "<f8";
    b2_nd_array *a;
    double d[37];
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_NANS, NULL, &a) == 0, "nans");
    CHECK(b2_nd_to_cbuffer(a, d, sizeof d) == 0 && d[0] != d[0] && d[36] != d[36], "nan values");
    b2_nd_free(a);
    double val = 2.5;
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_VALUE, &val, &a) == 0, "full");
    CHECK(b2_nd_to_cbuffer(a, d, sizeof d) == 0 && d[0] == 2.5 && d[36] == 2.5, "full values");
    /* a partial write keeps the fill around it */
    int64_t s = 5, e = 7;
    double w[2] = {-1, -2};
    CHECK(b2_nd_set_slice_cbuffer(a, &s, &e, w, sizeof w) == 0, "partial write");
    CHECK(b2_nd_to_cbuffer(a, d, sizeof d) == 0 && d[4] == 2.5 && d[5] == -1 && d[6] == -2 &&
              d[7] == 2.5,
          "partial write values");
    b2_nd_free(a);
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_UNINIT, NULL, &a) == 0, "uninit");
    int64_t z = 0, all = 37;
    for (int i = 0; i < 37; i++)
        d[i] = i;
    CHECK(b2_nd_set_slice_cbuffer(a, &z, &all, d, sizeof d) == 0, "overwrite uninit");
    double r[37];
    CHECK(b2_nd_to_cbuffer(a, r, sizeof r) == 0 && memcmp(r, d, sizeof d) == 0, "uninit overwritten");
    b2_nd_free(a);
    /* bad parameters */
    p.typesize = 2;
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_NANS, NULL, &a) < 0, "nans with typesize 2 refused");
    p.dtype = "<f8";
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &a) < 0, "dtype/typesize mismatch refused");
    p = params_1d(10, 4, 5, 1);
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &a) < 0, "block > chunk refused");
    /* 0-D and empty arrays */
    memset(&p, 0, sizeof p);
    p.typesize = 8;
    CHECK(b2_nd_from_cbuffer(&p, NULL, &val, 8, &a) == 0, "0-D");
    double one = 0;
    CHECK(b2_nd_to_cbuffer(a, &one, 8) == 0 && one == 2.5, "0-D value");
    b2_nd_free(a);
    p = params_1d(0, 4, 2, 4);
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &a) == 0 && b2_nd_nitems(a) == 0,
          "empty extent");
    int32_t app[3] = {7, 8, 9}, got[3];
    CHECK(b2_nd_append(a, app, 12, 0) == 0 && read_i32(a, got, 3) == 0 && got[2] == 9,
          "append to empty");
    b2_nd_free(a);
}

/* ---- random shape changes against a model ---- */

typedef struct model {
    int nd;
    int64_t shape[4];
    int32_t *v;
} model;

/* New model of shape ns; old item at x goes to new coords given dim-wise by map. */
static void model_reshape(model *m, const int64_t *ns, int axis, int64_t s, int64_t d)
{
    model n = {m->nd, {0}, NULL};
    memcpy(n.shape, ns, sizeof n.shape);
    n.v = calloc((size_t)ndt_nitems(n.nd, n.shape) + 1, 4);
    int64_t total = ndt_nitems(m->nd, m->shape), idx[4] = {0};
    for (int64_t k = 0; k < total; k++) {
        int64_t off = 0, keep = 1;
        for (int i = 0; i < m->nd; i++) {
            int64_t x = idx[i];
            if (i == axis) {
                if (d >= 0)
                    x = x < s ? x : x + d;
                else if (x >= s && x < s - d)
                    keep = 0;
                else
                    x = x < s ? x : x + d;
            }
            if (x >= ns[i])
                keep = 0;
            off = off * ns[i] + x;
        }
        if (keep)
            n.v[off] = m->v[k];
        for (int i = m->nd - 1; i >= 0; i--) {
            if (++idx[i] < m->shape[i])
                break;
            idx[i] = 0;
        }
    }
    free(m->v);
    *m = n;
}

static void check_model(b2_nd_array *a, const model *m, const char *what)
{
    int64_t n = ndt_nitems(m->nd, m->shape);
    int ok = b2_nd_ndim(a) == m->nd;
    for (int i = 0; i < m->nd && ok; i++)
        ok = b2_nd_shape(a)[i] == m->shape[i];
    CHECK(ok, "%s: shape nd=%d a=(%lld,%lld,%lld) m=(%lld,%lld,%lld)", what, m->nd, (long long)b2_nd_shape(a)[0], (long long)(b2_nd_ndim(a) > 1 ? b2_nd_shape(a)[1] : -1), (long long)(b2_nd_ndim(a) > 2 ? b2_nd_shape(a)[2] : -1), (long long)m->shape[0], (long long)m->shape[1], (long long)m->shape[2]);
    int32_t *got = malloc((size_t)n * 4 + 4);
    int rc = ok ? b2_nd_to_cbuffer(a, got, (size_t)n * 4) : -1;
    CHECK(rc == 0 && memcmp(got, m->v, (size_t)n * 4) == 0, "%s: content", what);
    free(got);
}

static void random_ops(int round, const b2_nd_storage *st)
{
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.ndim = (int)rnd_in(1, 3);
    p.typesize = 4;
    model m = {p.ndim, {0}, NULL};
    for (int i = 0; i < p.ndim; i++) {
        p.shape[i] = m.shape[i] = rnd_in(1, 12);
        p.chunkshape[i] = (int32_t)rnd_in(1, 6);
        p.blockshape[i] = (int32_t)rnd_in(1, p.chunkshape[i]);
    }
    int64_t n = ndt_nitems(m.nd, m.shape);
    m.v = malloc((size_t)n * 4);
    for (int64_t k = 0; k < n; k++)
        m.v[k] = (int32_t)(rnd() | 1);
    b2_nd_array *a;
    int rc = b2_nd_from_cbuffer(&p, st, m.v, (size_t)n * 4, &a);
    CHECK(rc == 0, "random from_cbuffer: %d", rc);
    if (rc < 0) {
        free(m.v);
        return;
    }
    char what[128];
    for (int op = 0; op < 6; op++) {
        int axis = (int)rnd_in(0, p.ndim - 1);
        int64_t c = p.chunkshape[axis], len = m.shape[axis], ns[4];
        memcpy(ns, m.shape, sizeof ns);
        int kind = (int)rnd_in(0, 3);
        if (kind == 0) { /* resize at the end */
            ns[axis] = rnd_in(0, len + 9);
            snprintf(what, sizeof what, "r%d resize %lld->%lld", round, (long long)len,
                     (long long)ns[axis]);
            rc = b2_nd_resize(a, ns, NULL);
            CHECK(rc == 0, "%s: %d", what, rc);
            model_reshape(&m, ns, axis, ns[axis] < len ? ns[axis] : len, ns[axis] - len);
        } else if (kind == 1) { /* insert chunk-aligned (or append) */
            int64_t pos = rnd() % 2 ? len : (rnd_in(0, len) / c) * c;
            int64_t k = pos == len ? rnd_in(1, 5) : c * rnd_in(1, 2);
            int64_t slab = 1;
            for (int i = 0; i < p.ndim; i++)
                if (i != axis)
                    slab *= m.shape[i];
            if (slab == 0)
                continue; /* the item count cannot be told from an empty buffer */
            int32_t *buf = malloc((size_t)(slab * k) * 4 + 4);
            for (int64_t q = 0; q < slab * k; q++)
                buf[q] = (int32_t)rnd();
            snprintf(what, sizeof what, "r%d insert %lld at %lld", round, (long long)k,
                     (long long)pos);
            rc = b2_nd_insert(a, buf, (size_t)(slab * k) * 4, axis, pos);
            CHECK(rc == 0, "%s: %d", what, rc);
            if (rc == 0) {
                ns[axis] += k;
                model_reshape(&m, ns, axis, pos, k);
                int64_t st0[4] = {0}, sp[4];
                memcpy(sp, ns, sizeof sp);
                st0[axis] = pos;
                sp[axis] = pos + k;
                /* write the inserted slab into the model */
                int64_t idx[4] = {0}, q = 0;
                for (int i = 0; i < p.ndim; i++)
                    idx[i] = st0[i];
                for (; q < slab * k; q++) {
                    int64_t off = 0;
                    for (int i = 0; i < p.ndim; i++)
                        off = off * ns[i] + idx[i];
                    m.v[off] = buf[q];
                    for (int i = p.ndim - 1; i >= 0; i--) {
                        if (++idx[i] < sp[i])
                            break;
                        idx[i] = st0[i];
                    }
                }
            }
            free(buf);
        } else if (kind == 2 && len > 0) { /* delete a tail or an aligned range */
            int64_t s, k;
            if (rnd() % 2) {
                s = rnd_in(0, len);
                k = len - s;
            } else {
                s = (rnd_in(0, len) / c) * c;
                k = ((len - s) / c) ? c * rnd_in(1, (len - s) / c) : len - s;
            }
            snprintf(what, sizeof what, "r%d delete [%lld,+%lld) of %lld", round, (long long)s,
                     (long long)k, (long long)len);
            rc = b2_nd_delete(a, axis, s, k);
            CHECK(rc == 0, "%s: %d", what, rc);
            ns[axis] -= k;
            model_reshape(&m, ns, axis, s, -k);
        } else { /* overwrite everything with new values */
            n = ndt_nitems(m.nd, m.shape);
            for (int64_t q = 0; q < n; q++)
                m.v[q] = (int32_t)rnd();
            int64_t z[4] = {0};
            snprintf(what, sizeof what, "r%d rewrite", round);
            rc = b2_nd_set_slice_cbuffer(a, z, m.shape, m.v, (size_t)n * 4);
            CHECK(rc == 0, "%s: %d", what, rc);
        }
        check_model(a, &m, what);
    }
    /* copy with new chunk/block shapes, and a reopen when on disk */
    int32_t cs[4], bs[4];
    for (int i = 0; i < p.ndim; i++) {
        cs[i] = (int32_t)rnd_in(1, 7);
        bs[i] = (int32_t)rnd_in(1, cs[i]);
    }
    b2_nd_array *b;
    rc = b2_nd_copy(a, cs, bs, NULL, &b);
    CHECK(rc == 0, "copy: %d", rc);
    if (rc == 0) {
        check_model(b, &m, "copy");
        b2_nd_free(b);
    }
    /* a sub-array as a new array, against the model */
    int64_t lo[4], hi[4], cnt = 1;
    for (int i = 0; i < p.ndim; i++) {
        lo[i] = m.shape[i] ? rnd_in(0, m.shape[i] - 1) : 0;
        hi[i] = m.shape[i] ? rnd_in(lo[i] + 1, m.shape[i]) : 0;
        cnt *= hi[i] - lo[i];
    }
    rc = b2_nd_get_slice(a, lo, hi, NULL, NULL, NULL, &b);
    CHECK(rc == 0, "get_slice as array: %d", rc);
    if (rc == 0) {
        int32_t *want = malloc((size_t)cnt * 4 + 4), *have = malloc((size_t)cnt * 4 + 4);
        int rc2 = b2_nd_get_slice_cbuffer(a, lo, hi, want, (size_t)cnt * 4);
        CHECK(rc2 == 0 && b2_nd_to_cbuffer(b, have, (size_t)cnt * 4) == 0 &&
                  memcmp(want, have, (size_t)cnt * 4) == 0,
              "get_slice as array: content");
        free(want);
        free(have);
        b2_nd_free(b);
    }
    b2_nd_free(a);
    if (st) {
        rc = b2_nd_open(st->path, B2_OPEN_READONLY, &a);
        CHECK(rc == 0, "reopen %s: %d", st->path, rc);
        if (rc == 0) {
            check_model(a, &m, "reopened");
            b2_nd_free(a);
        }
    }
    free(m.v);
}

static void test_squeeze_and_save(const char *dir)
{
    b2_nd_params p;
    ndt_params(&p, 4, (const int64_t[]){1, 5, 1, 7}, (const int32_t[]){1, 3, 2, 4},
               (const int32_t[]){1, 2, 2, 3}, 4);
    p.dtype = "<i4";
    int32_t v[35], got[35];
    for (int i = 0; i < 35; i++)
        v[i] = i * 3 + 1;
    b2_nd_array *a, *b;
    CHECK(b2_nd_from_cbuffer(&p, NULL, v, sizeof v, &a) == 0, "4-D for squeeze");
    CHECK(b2_nd_squeeze(a, NULL, &b) == 0, "squeeze");
    CHECK(b2_nd_ndim(b) == 2 && b2_nd_shape(b)[0] == 5 && b2_nd_shape(b)[1] == 7 &&
              b2_nd_chunkshape(b)[1] == 4,
          "squeezed shape");
    CHECK(b2_nd_to_cbuffer(b, got, sizeof got) == 0 && memcmp(got, v, sizeof v) == 0,
          "squeezed content");
    CHECK(strcmp(b2_nd_dtype(b), "<i4") == 0, "dtype kept");
    b2_nd_free(b);
    /* save to a file and an sframe, reopen both */
    char path[1024];
    for (int kind = B2_STORAGE_FILE; kind <= B2_STORAGE_SPARSE; kind++) {
        snprintf(path, sizeof path, "%s/saved%d.b2nd", dir, kind);
        b2_nd_storage st = {kind, path};
        CHECK(b2_nd_save(a, &st) == 0, "save kind %d", kind);
        CHECK(b2_nd_open(path, B2_OPEN_READONLY, &b) == 0, "open saved kind %d", kind);
        memset(got, 0, sizeof got);
        CHECK(b2_nd_to_cbuffer(b, got, sizeof got) == 0 && memcmp(got, v, sizeof v) == 0,
              "saved content kind %d", kind);
        b2_nd_free(b);
        /* reopen for writing, change it, and read the change back from disk */
        CHECK(b2_nd_open(path, B2_OPEN_WRITE, &b) == 0, "open saved kind %d for writing", kind);
        int32_t slab[7] = {70, 71, 72, 73, 74, 75, 76};
        CHECK(b2_nd_append(b, slab, sizeof slab, 1) == 0, "append a row to kind %d", kind);
        b2_nd_free(b);
        CHECK(b2_nd_open(path, B2_OPEN_READONLY, &b) == 0, "reopen kind %d", kind);
        int32_t all[42];
        CHECK(b2_nd_shape(b)[1] == 6 && b2_nd_to_cbuffer(b, all, sizeof all) == 0 &&
                  memcmp(all, v, sizeof v) == 0 && all[35] == 70 && all[41] == 76,
              "appended row persisted kind %d", kind);
        b2_nd_free(b);
    }
    /* frame buffer round trip */
    uint8_t *buf;
    size_t len;
    CHECK(b2_nd_to_frame_buffer(a, &buf, &len) == 0, "to_frame_buffer");
    CHECK(b2_nd_open_buffer(buf, len, 1, &b) == 0, "open frame buffer (copy)");
    free(buf);
    int64_t s[4] = {0, 1, 0, 2}, e[4] = {1, 3, 1, 5};
    int32_t w[6] = {-1, -2, -3, -4, -5, -6};
    CHECK(b2_nd_set_slice_cbuffer(b, s, e, w, sizeof w) == 0, "write to copied buffer");
    CHECK(b2_nd_to_cbuffer(b, got, sizeof got) == 0 && got[9] == -1 && got[18] == -6 &&
              got[8] == v[8],
          "written values");
    b2_nd_free(b);
    b2_nd_free(a);
}

/* An array written by the older Caterva library: "caterva" metalayer, 5 elements, no dtype. */
static void test_caterva_legacy(void)
{
    b2_nd_meta m;
    memset(&m, 0, sizeof m);
    m.ndim = 2;
    m.shape[0] = 6;
    m.shape[1] = 5;
    m.chunkshape[0] = 4;
    m.chunkshape[1] = 3;
    m.blockshape[0] = 2;
    m.blockshape[1] = 2;
    uint8_t *enc;
    int32_t len;
    CHECK(b2_nd_meta_encode(&m, &enc, &len) == 0, "encode for caterva");
    enc[0] = 0x95;
    len -= 1 + 5 + 3; /* drop dtype_format and the dtype */
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 2;
    cp.blocksize = 2 * 2 * 2;
    b2_schunk *s = t_new(&cp);
    CHECK(s && b2_schunk_meta_add(s, "caterva", enc, len) >= 0, "caterva metalayer");
    free(enc);
    /* 2x2 chunks of 4x4 padded items */
    CHECK(b2_schunk_fill_special(s, 4 * 16, B2_SPECIAL_ZEROS, 32) == 4, "caterva chunks");
    b2_nd_array *a;
    int rc = b2_nd_from_schunk(s, &a);
    CHECK(rc == 0, "open caterva array: %d", rc);
    if (rc < 0) {
        b2_schunk_free(s);
        return;
    }
    CHECK(b2_nd_ndim(a) == 2 && b2_nd_shape(a)[1] == 5 && strcmp(b2_nd_dtype(a), "|u1") == 0,
          "caterva geometry");
    int16_t v[30], got[30];
    for (int i = 0; i < 30; i++)
        v[i] = (int16_t)(i * 7 - 50);
    int64_t z[2] = {0, 0};
    CHECK(b2_nd_set_slice_cbuffer(a, z, b2_nd_shape(a), v, sizeof v) == 0, "caterva write");
    int64_t ns[2] = {9, 5};
    CHECK(b2_nd_resize(a, ns, NULL) == 0, "caterva resize (metalayer rewritten in place)");
    uint8_t *c;
    CHECK(b2_schunk_meta_get(b2_nd_schunk(a), "caterva", &c, &len) >= 0 && len == 44 &&
              c[0] == 0x95 && c[12] == 9,
          "caterva metalayer after resize");
    free(c);
    int16_t all[45];
    CHECK(b2_nd_to_cbuffer(a, all, sizeof all) == 0 && memcmp(all, v, sizeof v) == 0 &&
              all[30] == 0 && all[44] == 0,
          "caterva content after resize");
    (void)got;
    b2_nd_free(a);
}

static void rm_rf(const char *path)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        printf("warning: could not remove %s\n", path);
}

/* Progress of a copy: called after each chunk is written, done counting it. */
typedef struct progress_log {
    int64_t calls, last, total, stop_at;
    int in_order;
} progress_log;

static int log_progress(void *ud, int64_t done, int64_t total)
{
    progress_log *l = ud;
    l->in_order &= done == l->last + 1 && total == l->total;
    l->calls++;
    l->last = done;
    return done == l->stop_at ? B2_ERR_INVALID_PARAM : B2_OK;
}

static void test_copy_progress(void)
{
    int32_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i;
    b2_nd_params p = params_1d(100, 30, 10, 4);
    b2_nd_array *a = NULL, *o = NULL;
    CHECK(b2_nd_from_cbuffer(&p, NULL, v, sizeof v, &a) == 0, "progress: source");
    /* same shapes (chunks copied as they are: 4 of 30) and a new grid (4 of 25) */
    static const int32_t cs[2] = {30, 25}, bs[2] = {10, 5};
    for (int k = 0; a && k < 2; k++) {
        progress_log l = {0, 0, 4, -1, 1};
        int rc = b2_nd_copy_with_progress(a, &cs[k], &bs[k], NULL, log_progress, &l, &o);
        CHECK(rc == 0 && l.in_order && l.calls == 4 && l.last == 4,
              "progress %d: rc %d, %lld calls up to %lld of 4 (in order: %d)", k, rc,
              (long long)l.calls, (long long)l.last, l.in_order);
        b2_nd_free(o);
        o = NULL;
        progress_log stop = {0, 0, 4, 2, 1};
        rc = b2_nd_copy_with_progress(a, &cs[k], &bs[k], NULL, log_progress, &stop, &o);
        CHECK(rc == B2_ERR_INVALID_PARAM && o == NULL && stop.calls == 2,
              "progress %d: a negative return stops the copy (rc %d, %lld calls)", k, rc,
              (long long)stop.calls);
        b2_nd_free(o);
        o = NULL;
    }
    b2_nd_free(a);
}

int main(void)
{
    test_rng_seed(0x2545F4914F6CDD1DULL);
    char dir[] = "/tmp/b2_nd_ops_XXXXXX";
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp\n");
        return 1;
    }
    test_spec_examples();
    test_worked_example();
    test_fills();
    test_caterva_legacy();
    for (int r = 0; r < 120; r++)
        random_ops(r, NULL);
    char path[1024];
    for (int r = 0; r < 6; r++) {
        snprintf(path, sizeof path, "%s/r%d.b2nd", dir, r);
        b2_nd_storage st = {r % 2 ? B2_STORAGE_SPARSE : B2_STORAGE_FILE, path};
        random_ops(1000 + r, &st);
    }
    test_squeeze_and_save(dir);
    test_copy_progress();
    rm_rf(dir);
    return b2t_summary("b2nd ops");
}
