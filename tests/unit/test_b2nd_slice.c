/* SPDX-License-Identifier: BSD-3-Clause */
/* Randomized get/set-slice tests of b2nd arrays against a brute-force C-order
 * model (ndim 1..16, shapes not multiples of chunks, chunks not multiples of
 * blocks, several typesizes and fills), plus the partial-decoding check: a small
 * slice decodes exactly the blocks it intersects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2nd_internal.h" /* blocks_read_lazily */
#include "check.h"
#include "nd_model.h"
#include "nd_random.h"
#include "b2_nd_experimental.h"

static long cases;


static void random_box(int nd, const int64_t *shape, int64_t *start, int64_t *stop, int64_t *n)
{
    *n = 1;
    for (int i = 0; i < nd; i++) {
        int64_t a = rnd_in(0, shape[i] - 1), b = rnd_in(0, shape[i] - 1);
        if (rnd() % 8 == 0) { /* sometimes the whole extent */
            a = 0;
            b = shape[i] - 1;
        }
        start[i] = a < b ? a : b;
        stop[i] = (a < b ? b : a) + 1;
        *n *= stop[i] - start[i];
    }
}

/* Whether v^k <= limit. */
static int pow_le(int64_t v, int k, int64_t limit)
{
    int64_t x = 1;
    for (int i = 0; i < k; i++) {
        if (x > limit / v)
            return 0;
        x *= v;
    }
    return 1;
}

static char tmpdir[] = "/tmp/b2_nd_rnd_XXXXXX";
static int have_tmpdir;

static void one_array(int nd)
{
    static const int32_t tsizes[] = {1, 2, 4, 8, 3, 16};
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.ndim = nd;
    p.typesize = tsizes[rnd() % 6];
    /* Budgets keep every array and every padded chunk small (fast under ASan). */
    int64_t items = 1, ext = 1, budget = 3000, cbudget = 4000;
    for (int i = 0; i < nd; i++) {
        int left = nd - i;
        int64_t room = budget / items, per = 1;
        while ((per + 1) <= room && pow_le(per + 1, left, room))
            per++;
        p.shape[i] = rnd_in(1, per < 1 ? 1 : per);
        items *= p.shape[i];
        int64_t croom = cbudget / ext, cper = 1;
        while ((cper + 1) <= croom && pow_le(cper + 1, left, croom))
            cper++;
        p.chunkshape[i] = (int32_t)rnd_in(1, cper < p.shape[i] + 1 ? cper : p.shape[i] + 1);
        p.blockshape[i] = (int32_t)rnd_in(1, p.chunkshape[i]);
        ext *= (p.chunkshape[i] + p.blockshape[i] - 1) / p.blockshape[i] * p.blockshape[i];
    }
    b2_cparams cp;
    ndt_random_cparams(&cp, 4);
    p.cparams = &cp;
    size_t ts = (size_t)p.typesize;
    int fill;
    uint8_t value[16];
    uint8_t *model = ndt_new_model(items, ts, &fill, value);
    b2_nd_array *a;
    char path[128];
    b2_nd_storage st = {B2_STORAGE_FILE, path};
    int on_disk = have_tmpdir && rnd() % 8 == 0;
    snprintf(path, sizeof path, "%s/a.b2nd", tmpdir);
    int rc = b2_nd_create(&p, on_disk ? &st : NULL, fill, value, &a);
    CHECK(rc == 0, "create nd=%d: %d", nd, rc);
    if (rc < 0) {
        free(model);
        return;
    }
    if (rnd() % 5 == 0)
        b2_nd_set_nthreads(a, 2); /* results must not depend on it */
    uint8_t *box = malloc((size_t)items * ts), *got = malloc((size_t)items * ts);
    for (int op = 0; op < 8; op++) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], n;
        random_box(nd, p.shape, start, stop, &n);
        if (rnd() % 2) {
            for (int64_t k = 0; k < n * (int64_t)ts; k++)
                box[k] = (uint8_t)(rnd() % 4 ? rnd() : 0);
            rc = b2_nd_set_slice_cbuffer(a, start, stop, box, (size_t)n * ts);
            CHECK(rc == 0, "set_slice nd=%d: %d", nd, rc);
            ndt_box_put(model, p.shape, nd, ts, start, stop, box);
        } else {
            rc = b2_nd_get_slice_cbuffer(a, start, stop, got, (size_t)n * ts);
            ndt_box_get(model, p.shape, nd, ts, start, stop, box);
            CHECK(rc == 0 && memcmp(got, box, (size_t)n * ts) == 0, "get_slice nd=%d: %d", nd,
                  rc);
        }
        cases++;
    }
    rc = b2_nd_to_cbuffer(a, got, (size_t)items * ts);
    CHECK(rc == 0 && memcmp(got, model, (size_t)items * ts) == 0, "final read nd=%d", nd);
    cases++;
    /* The frame round-trips through memory. */
    uint8_t *frame;
    size_t flen;
    if (rnd() % 4 == 0 && b2_nd_to_frame_buffer(a, &frame, &flen) == 0) {
        b2_nd_array *b;
        rc = b2_nd_open_buffer(frame, flen, 0, &b);
        CHECK(rc == 0, "reopen: %d", rc);
        if (rc == 0) {
            memset(got, 0xAA, (size_t)items * ts);
            rc = b2_nd_to_cbuffer(b, got, (size_t)items * ts);
            CHECK(rc == 0 && memcmp(got, model, (size_t)items * ts) == 0, "reopened read");
            b2_nd_free(b);
        }
        free(frame);
        cases++;
    }
    free(box);
    free(got);
    free(model);
    b2_nd_free(a);
    if (on_disk)
        remove(path);
}

/* 2000x2000 float64, 500x500 chunks, 100x100 blocks: slices decode only what they meet. */
static void test_partial_decoding(void)
{
    b2_nd_params p;
    ndt_params(&p, 2, (const int64_t[]){2000, 2000}, (const int32_t[]){500, 500},
               (const int32_t[]){100, 100}, 8);
    p.dtype = "<f8";
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = B2_CODEC_LZ4;
    cp.clevel = 1;
    p.cparams = &cp;
    size_t n = 2000 * 2000;
    double *data = malloc(n * sizeof *data);
    for (size_t i = 0; i < n; i++)
        data[i] = (double)i;
    b2_nd_array *a;
    int rc = b2_nd_from_cbuffer(&p, NULL, data, n * sizeof *data, &a);
    CHECK(rc == 0, "from_cbuffer 2000x2000: %d", rc);
    if (rc < 0) {
        free(data);
        return;
    }
    static const struct {
        int64_t r0, c0, nblocks;
        const char *what;
    } t[] = {{995, 995, 4, "10x10 across 4 chunks"},
             {1010, 1010, 1, "10x10 inside one block"},
             {1095, 1195, 4, "10x10 across 4 blocks of one chunk"},
             {1495, 1010, 2, "10x10 across 2 chunks"}};
    /* the same slices from a file-backed copy, read block by block from disk */
    char dir[] = "/tmp/b2_nd_slice_XXXXXX", path[64];
    b2_nd_array *f = NULL;
    if (mkdtemp(dir)) {
        snprintf(path, sizeof path, "%s/big.b2nd", dir);
        b2_nd_storage st = {B2_STORAGE_FILE, path};
        rc = b2_nd_save(a, &st);
        CHECK(rc == 0, "save to file: %d", rc);
        rc = b2_nd_open(path, B2_OPEN_READONLY, &f);
        CHECK(rc == 0, "open file: %d", rc);
    }
    size_t nt = sizeof t / sizeof t[0];
    for (size_t r = 0; r < 2 * nt; r++) {
        size_t k = r % nt;
        b2_nd_array *src = r < nt ? a : f;
        if (!src)
            break;
        double out[100];
        int64_t start[2] = {t[k].r0, t[k].c0}, stop[2] = {t[k].r0 + 10, t[k].c0 + 10};
        int64_t before = b2_nd_blocks_decoded(src), lazy = src->blocks_read_lazily;
        rc = b2_nd_get_slice_cbuffer(src, start, stop, out, sizeof out);
        int64_t used = b2_nd_blocks_decoded(src) - before;
        CHECK(rc == 0, "%s: get_slice %d", t[k].what, rc);
        if (src == f) /* on disk: every block came through the lazy reader */
            CHECK(src->blocks_read_lazily - lazy == t[k].nblocks, "%s: lazy reads", t[k].what);
        CHECK(used == t[k].nblocks, "%s: decoded %lld blocks, want %lld", t[k].what,
              (long long)used, (long long)t[k].nblocks);
        int ok = 1;
        for (int i = 0; i < 10; i++)
            for (int j = 0; j < 10; j++)
                ok &= out[i * 10 + j] == (double)((start[0] + i) * 2000 + start[1] + j);
        CHECK(ok, "%s: values", t[k].what);
        printf("partial decoding (%s): %s -> %lld blocks decoded\n", src == a ? "memory" : "file",
               t[k].what, (long long)used);
    }
    b2_nd_free(f);
    if (f) {
        remove(path);
        rmdir(dir);
    }
    free(data);
    b2_nd_free(a);
}

int main(void)
{
    test_rng_seed(0x9E3779B97F4A7C15ULL);
    have_tmpdir = mkdtemp(tmpdir) != NULL;
    for (int r = 0; r < 160; r++)
        one_array(1 + r % 16);
    test_partial_decoding();
    if (have_tmpdir)
        rmdir(tmpdir);
    printf("b2nd slices: %ld random cases vs model, %ld failures\n", cases, b2t_failures);
    return b2t_failures ? 1 : 0;
}
