/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_nd_concatenate and b2_nd_expand_dims against a model written here (C-order
 * buffers joined as NumPy's concatenate joins them): random arrays of ranks 1..8
 * with edge chunks and partial blocks, grids that line up (chunks copied without
 * decoding: b decodes no block) and grids that do not, in place and into new
 * arrays in memory and in files, an array joined with itself, 1 and 2 threads,
 * and the errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "nd_model.h"
#include "test_rng.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "b2_nd_experimental.h"

static long cases;


static char tmpdir[] = "/tmp/b2_nd_cat_XXXXXX";
static int have_tmpdir;

/* out = concatenate(x of shape xs, y of shape ys) along axis, C order. */
static void model_concat(int nd, int axis, size_t ts, const uint8_t *x, const int64_t *xs,
                         const uint8_t *y, const int64_t *ys, uint8_t *out)
{
    int64_t outer = 1, xin = (int64_t)ts, yin = (int64_t)ts;
    for (int i = 0; i < axis; i++)
        outer *= xs[i];
    for (int i = axis; i < nd; i++) {
        xin *= xs[i];
        yin *= ys[i];
    }
    for (int64_t o = 0; o < outer; o++) {
        memcpy(out, x + o * xin, (size_t)xin);
        out += xin;
        memcpy(out, y + o * yin, (size_t)yin);
        out += yin;
    }
}

static b2_nd_array *make(const b2_nd_params *p, const uint8_t *data, const char *path)
{
    b2_nd_storage st = {B2_STORAGE_FILE, path};
    b2_nd_array *a = NULL;
    size_t len = (size_t)ndt_nitems(p->ndim, p->shape) * (size_t)p->typesize;
    int rc = b2_nd_from_cbuffer(p, NULL, data, len, &a);
    CHECK(rc == 0, "from_cbuffer: %d", rc);
    if (rc == 0 && path) { /* saved whole, reopened for writing without fsyncs */
        remove(path);
        rc = b2_nd_save(a, &st);
        b2_nd_free(a);
        a = NULL;
        if (rc == 0)
            rc = b2_nd_open(path, B2_OPEN_WRITE, &a);
        CHECK(rc == 0, "save and reopen %s: %d", path, rc);
        if (rc == 0)
            b2_schunk_set_sync(b2_nd_schunk(a), 0);
    }
    return rc == 0 ? a : NULL;
}

static int same_content(b2_nd_array *a, const uint8_t *want, size_t len)
{
    uint8_t *got = malloc(len ? len : 1);
    int rc = b2_nd_to_cbuffer(a, got, len);
    int ok = rc == 0 && memcmp(got, want, len) == 0;
    free(got);
    return ok;
}

static void one_case(int nd)
{
    static const int32_t tsizes[] = {1, 2, 4, 8, 3};
    b2_nd_params pa, pb;
    memset(&pa, 0, sizeof pa);
    pa.ndim = nd;
    pa.typesize = tsizes[rnd() % 5];
    int axis = (int)rnd_in(0, nd - 1);
    int64_t items = 1;
    for (int i = 0; i < nd; i++) {
        int64_t per = nd <= 2 ? 30 : nd <= 4 ? 7 : 3;
        pa.shape[i] = rnd_in(1, per);
        items *= pa.shape[i];
        pa.chunkshape[i] = (int32_t)rnd_in(1, pa.shape[i] + 1);
        pa.blockshape[i] = (int32_t)rnd_in(1, pa.chunkshape[i]);
    }
    (void)items;
    b2_cparams cpa, cpb;
    b2_cparams_init(&cpa);
    cpa.codec = rnd() % 2 ? B2_CODEC_LZ4 : B2_CODEC_ZSTD;
    cpa.filters[5] = (uint8_t)rnd_in(0, 2);
    cpb = cpa;
    pa.cparams = &cpa;
    pb = pa;
    pb.cparams = &cpb;
    int aligned = rnd() % 2;
    if (aligned) /* a ends on a chunk boundary; b shares the grid */
        pa.shape[axis] = pa.chunkshape[axis] * rnd_in(1, 3);
    pb.shape[axis] = rnd_in(0, 2 * pa.chunkshape[axis] + 1);
    if (!aligned || rnd() % 3 == 0) { /* b's own grid and codec */
        for (int i = 0; i < nd; i++) {
            pb.chunkshape[i] = (int32_t)rnd_in(1, (pb.shape[i] > 0 ? pb.shape[i] : 1) + 1);
            pb.blockshape[i] = (int32_t)rnd_in(1, pb.chunkshape[i]);
        }
        cpb.codec = B2_CODEC_BLOSCLZ;
        aligned = 0;
    }
    size_t ts = (size_t)pa.typesize;
    int64_t na = ndt_nitems(nd, pa.shape), nb = ndt_nitems(nd, pb.shape);
    uint8_t *da = malloc((size_t)na * ts + 1), *db = malloc((size_t)nb * ts + 1);
    for (int64_t k = 0; k < na * (int64_t)ts; k++)
        da[k] = (uint8_t)(rnd() % 4 ? k * 7 : 0);
    for (int64_t k = 0; k < nb * (int64_t)ts; k++)
        db[k] = (uint8_t)(rnd() % 3 ? rnd() : 0);
    int64_t rs[B2_ND_MAX_DIM];
    memcpy(rs, pa.shape, sizeof rs);
    rs[axis] += pb.shape[axis];
    size_t rlen = (size_t)ndt_nitems(nd, rs) * ts;
    uint8_t *want = malloc(rlen + 1);
    model_concat(nd, axis, ts, da, pa.shape, db, pb.shape, want);

    char pa_path[160], pb_path[160], out_path[160];
    snprintf(pa_path, sizeof pa_path, "%s/a.b2nd", tmpdir);
    snprintf(pb_path, sizeof pb_path, "%s/b.b2nd", tmpdir);
    snprintf(out_path, sizeof out_path, "%s/out.b2nd", tmpdir);
    int fa = have_tmpdir && rnd() % 3 == 0, fb = have_tmpdir && rnd() % 3 == 0;
    b2_nd_array *a = make(&pa, da, fa ? pa_path : NULL), *b = make(&pb, db, fb ? pb_path : NULL);
    if (a && b) {
        if (rnd() % 3 == 0)
            b2_nd_set_nthreads(b, 2);
        int inplace = rnd() % 2, rc;
        int64_t before = b2_nd_blocks_decoded(b);
        b2_nd_array *r = NULL;
        if (inplace) {
            rc = b2_nd_concatenate(a, b, axis, NULL, NULL);
            r = a;
        } else {
            int fo = have_tmpdir && rnd() % 3 == 0;
            b2_nd_storage st = {B2_STORAGE_FILE, out_path};
            remove(out_path);
            rc = b2_nd_concatenate(a, b, axis, fo ? &st : NULL, &r);
            CHECK(rc != 0 || same_content(a, da, (size_t)na * ts), "a unchanged by a new concatenation");
        }
        CHECK(rc == 0, "concatenate nd=%d axis=%d aligned=%d inplace=%d: %d (%s)", nd, axis, aligned,
              inplace, rc, b2_nd_last_error(a));
        if (rc == 0) {
            int ok = 1;
            for (int i = 0; i < nd; i++)
                ok &= b2_nd_shape(r)[i] == rs[i];
            CHECK(ok, "result shape");
            CHECK(same_content(r, want, rlen), "concatenate nd=%d axis=%d aligned=%d: values", nd, axis,
                  aligned);
            if (aligned)
                CHECK(b2_nd_blocks_decoded(b) == before, "aligned: b's chunks copied, %lld blocks decoded",
                      (long long)(b2_nd_blocks_decoded(b) - before));
            /* the result reopens from its frame */
            uint8_t *frame;
            size_t flen;
            if (b2_nd_to_frame_buffer(r, &frame, &flen) == 0) {
                b2_nd_array *re;
                CHECK(b2_nd_open_buffer(frame, flen, 0, &re) == 0 && same_content(re, want, rlen),
                      "result reopens");
                b2_nd_free(re);
                free(frame);
            }
        }
        if (r != a)
            b2_nd_free(r);
        cases++;
    }
    b2_nd_free(a);
    b2_nd_free(b);
    free(da);
    free(db);
    free(want);
}

/* a joined with itself, in place, with and without aligned grids. */
static void self_concat(void)
{
    for (int aligned = 0; aligned < 2; aligned++) {
        b2_nd_params p;
        ndt_params(&p, 2, (const int64_t[]){aligned ? 12 : 11, aligned ? 6 : 7},
                   (const int32_t[]){4, 3}, (const int32_t[]){2, 2}, 4);
        int32_t d[12 * 7];
        for (int i = 0; i < 12 * 7; i++)
            d[i] = i * 3 + 1;
        b2_nd_array *a = make(&p, (const uint8_t *)d, NULL);
        if (!a)
            return;
        for (int axis = 1; axis >= 0; axis--) {
            int64_t s0 = b2_nd_shape(a)[0], s1 = b2_nd_shape(a)[1];
            size_t n = (size_t)(s0 * s1) * 4;
            uint8_t *cur = malloc(n), *want = malloc(2 * n);
            b2_nd_to_cbuffer(a, cur, n);
            int64_t shape[2] = {s0, s1};
            model_concat(2, axis, 4, cur, shape, cur, shape, want);
            int rc = b2_nd_concatenate(a, a, axis, NULL, NULL);
            CHECK(rc == 0 && same_content(a, want, 2 * n), "self concat axis %d aligned %d: %d", axis,
                  aligned, rc);
            free(cur);
            free(want);
            cases++;
        }
        b2_nd_free(a);
    }
}

static void expand_dims(void)
{
    for (int r = 0; r < 60; r++) {
        int nd = (int)rnd_in(0, 6);
        b2_nd_params p;
        memset(&p, 0, sizeof p);
        p.ndim = nd;
        p.typesize = (int32_t)rnd_in(1, 8);
        for (int i = 0; i < nd; i++) {
            p.shape[i] = rnd_in(1, 6);
            p.chunkshape[i] = (int32_t)rnd_in(1, 6);
            p.blockshape[i] = (int32_t)rnd_in(1, p.chunkshape[i]);
        }
        int64_t n = ndt_nitems(nd, p.shape);
        size_t len = (size_t)n * (size_t)p.typesize;
        uint8_t *d = malloc(len);
        for (size_t k = 0; k < len; k++)
            d[k] = (uint8_t)(k * 13 + r);
        b2_nd_array *a = make(&p, d, NULL), *e = NULL;
        int naxes = (int)rnd_in(0, 3), axes[3], nout = nd + naxes, used[B2_ND_MAX_DIM] = {0};
        for (int k = 0; k < naxes; k++) {
            int ax;
            do
                ax = (int)rnd_in(0, nout - 1);
            while (used[ax]);
            used[ax] = 1;
            axes[k] = rnd() % 2 ? ax : ax - nout; /* negative from the end too */
        }
        char path[160];
        snprintf(path, sizeof path, "%s/e.b2nd", tmpdir);
        b2_nd_storage st = {B2_STORAGE_FILE, path};
        int file = have_tmpdir && rnd() % 3 == 0;
        remove(path);
        int rc = a ? b2_nd_expand_dims(a, axes, naxes, file ? &st : NULL, &e) : -1;
        CHECK(rc == 0, "expand_dims nd=%d naxes=%d: %d", nd, naxes, rc);
        if (rc == 0) {
            int ok = b2_nd_ndim(e) == nout;
            for (int i = 0, j = 0; ok && i < nout; i++) {
                if (used[i])
                    ok = b2_nd_shape(e)[i] == 1 && b2_nd_chunkshape(e)[i] == 1;
                else
                    ok = b2_nd_shape(e)[i] == p.shape[j] && b2_nd_chunkshape(e)[i] == p.chunkshape[j] &&
                         b2_nd_blockshape(e)[i] == p.blockshape[j], j++;
            }
            CHECK(ok, "expand_dims shapes");
            int64_t before = b2_nd_blocks_decoded(a);
            CHECK(same_content(e, d, len), "expand_dims values");
            CHECK(b2_nd_blocks_decoded(a) == before, "expand_dims decodes nothing of a");
            /* no shared state: writing the new array leaves a as it was */
            if (n > 0) {
                int64_t start[B2_ND_MAX_DIM] = {0}, stop[B2_ND_MAX_DIM];
                for (int i = 0; i < nout; i++)
                    stop[i] = 1;
                uint8_t v[8] = {0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE};
                CHECK(b2_nd_set_slice_cbuffer(e, start, stop, v, (size_t)p.typesize) == 0 &&
                          same_content(a, d, len),
                      "a unchanged after writing the expanded copy");
            }
            b2_nd_free(e);
        }
        b2_nd_free(a);
        free(d);
        cases++;
    }
}

static void bad_calls(void)
{
    b2_nd_params p;
    ndt_params(&p, 2, (const int64_t[]){4, 5}, (const int32_t[]){2, 5}, (const int32_t[]){2, 5},
               2);
    b2_nd_array *a, *b, *c, *out = (b2_nd_array *)&p;
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &a) == 0, "create a");
    p.shape[1] = 6;
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &b) == 0, "create b");
    p.typesize = 4;
    p.shape[1] = 5;
    CHECK(b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &c) == 0, "create c");
    CHECK(b2_nd_concatenate(a, b, 0, NULL, &out) == B2_ERR_INVALID_PARAM && out == NULL,
          "extents differ off the axis");
    CHECK(strstr(b2_nd_last_error(a), "dimension 1") != NULL, "message: %s", b2_nd_last_error(a));
    CHECK(b2_nd_concatenate(a, c, 0, NULL, NULL) == B2_ERR_INVALID_PARAM, "typesizes differ");
    CHECK(b2_nd_concatenate(a, a, 2, NULL, NULL) == B2_ERR_INVALID_PARAM, "axis 2 of 2-d");
    CHECK(b2_nd_concatenate(a, b, 1, NULL, NULL) == 0 && b2_nd_shape(a)[1] == 11, "axis 1 fits");
    int axes[2] = {0, 0};
    CHECK(b2_nd_expand_dims(a, axes, 2, NULL, &out) == B2_ERR_INVALID_PARAM, "axis twice");
    axes[1] = 4;
    CHECK(b2_nd_expand_dims(a, axes, 2, NULL, &out) == B2_ERR_INVALID_PARAM, "axis 4 of 4");
    b2_nd_free(a);
    b2_nd_free(b);
    b2_nd_free(c);
}

int main(void)
{
    test_rng_seed(0x6A09E667F3BCC909ULL);
    have_tmpdir = mkdtemp(tmpdir) != NULL;
    for (int r = 0; r < 160; r++)
        one_case(1 + r % 8);
    self_concat();
    expand_dims();
    bad_calls();
    if (have_tmpdir) {
        char p[200];
        const char *names[] = {"a.b2nd", "b.b2nd", "out.b2nd", "e.b2nd"};
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
            remove(p);
        }
        rmdir(tmpdir);
    }
    printf("b2nd concatenate and expand_dims: %ld cases vs model, ", cases);
    return b2t_summary(NULL);
}
