/* SPDX-License-Identifier: BSD-3-Clause */
/* Orthogonal selections (b2_nd_get/set_orthogonal_selection) against a model
 * written here: the whole array in C order, indexed as NumPy's a[np.ix_(...)]
 * does. Random arrays of ranks 1..8 (edge chunks, partial blocks, several
 * typesizes, fills that leave special chunks), lists in any order with
 * duplicates and negative indices, 1 and 2 threads, memory and file storage.
 * Every read must decode exactly the blocks holding selected items, counted
 * here by brute force. */
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


typedef struct sel {
    int nd;
    int64_t n[B2_ND_MAX_DIM];
    int64_t *idx[B2_ND_MAX_DIM];
    int64_t total; /* items */
} sel;

static void sel_free(sel *s)
{
    for (int d = 0; d < s->nd; d++)
        free(s->idx[d]);
}

/* Up to max indices per dimension: runs, scattered picks, duplicates, negatives. */
static void random_sel(int nd, const int64_t *shape, int64_t max, sel *s)
{
    s->nd = nd;
    s->total = 1;
    for (int d = 0; d < nd; d++) {
        int64_t n = rnd_in(1, max);
        if (rnd() % 10 == 0)
            n = 0; /* an empty list: nothing selected */
        s->n[d] = n;
        s->idx[d] = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
        int64_t base = rnd_in(0, shape[d] - 1);
        for (int64_t k = 0; k < n; k++) {
            int64_t v;
            switch (rnd() % 4) {
            case 0: v = (base + k) % shape[d]; break;                  /* a run */
            case 1: v = k ? s->idx[d][rnd() % k] : base; break;        /* a duplicate */
            default: v = rnd_in(0, shape[d] - 1); break;               /* scattered */
            }
            if (v >= 0 && v < shape[d] && rnd() % 4 == 0)
                v -= shape[d]; /* the same item, counted from the end */
            if (v < 0 && v + shape[d] < 0)
                v += shape[d];
            s->idx[d][k] = v;
        }
        s->total *= n;
    }
}

/* Model offset (items) of selection item number k in C order of the selection. */
static int64_t model_offset(const sel *s, const int64_t *shape, int64_t k)
{
    int64_t pos[B2_ND_MAX_DIM];
    for (int d = s->nd - 1; d >= 0; d--) {
        pos[d] = k % s->n[d];
        k /= s->n[d];
    }
    int64_t off = 0;
    for (int d = 0; d < s->nd; d++) {
        int64_t v = s->idx[d][pos[d]];
        off = off * shape[d] + (v < 0 ? v + shape[d] : v);
    }
    return off;
}

/* Blocks holding selected items, counted by brute force over distinct (chunk, block). */
static int64_t count_blocks(const sel *s, const b2_nd_params *p)
{
    int64_t nb = 0, cap = 0;
    int64_t *seen = NULL;
    for (int64_t k = 0; k < s->total; k++) {
        int64_t rem = k, pos[B2_ND_MAX_DIM], key = 0;
        for (int d = s->nd - 1; d >= 0; d--) {
            pos[d] = rem % s->n[d];
            rem /= s->n[d];
        }
        for (int d = 0; d < s->nd; d++) {
            int64_t v = s->idx[d][pos[d]];
            v = v < 0 ? v + p->shape[d] : v;
            /* global block coordinate: chunk * blocks per chunk + block in chunk */
            int64_t bpc = (p->chunkshape[d] + p->blockshape[d] - 1) / p->blockshape[d];
            int64_t nchunks = (p->shape[d] + p->chunkshape[d] - 1) / p->chunkshape[d];
            int64_t g = v / p->chunkshape[d] * bpc + v % p->chunkshape[d] / p->blockshape[d];
            key = key * nchunks * bpc + g;
        }
        int64_t i = 0;
        while (i < nb && seen[i] != key)
            i++;
        if (i == nb) {
            if (nb == cap) {
                cap = cap ? 2 * cap : 64;
                seen = realloc(seen, (size_t)cap * sizeof *seen);
            }
            seen[nb++] = key;
        }
    }
    free(seen);
    return nb;
}

static char tmpdir[] = "/tmp/b2_nd_sel_XXXXXX";
static int have_tmpdir;

static void one_array(int nd)
{
    static const int32_t tsizes[] = {1, 2, 4, 8, 3, 16};
    b2_nd_params p;
    memset(&p, 0, sizeof p);
    p.ndim = nd;
    p.typesize = tsizes[rnd() % 6];
    /* shapes small enough for ASan: at most ~4000 items, extents 1..12 */
    int64_t items = 1;
    for (int i = 0; i < nd; i++) {
        int64_t room = 4000 / items, per = room < 12 ? room : 12;
        for (int j = i + 1; j < nd && per > 2; j++)
            per = per * 3 / 4;
        p.shape[i] = rnd_in(1, per < 1 ? 1 : per);
        items *= p.shape[i];
        p.chunkshape[i] = (int32_t)rnd_in(1, p.shape[i] + 1);
        p.blockshape[i] = (int32_t)rnd_in(1, p.chunkshape[i]);
    }
    b2_cparams cp;
    ndt_random_cparams(&cp, 0);
    p.cparams = &cp;
    size_t ts = (size_t)p.typesize;
    int fill;
    uint8_t value[16];
    uint8_t *model = ndt_new_model(items, ts, &fill, value);
    char path[128];
    b2_nd_storage st = {B2_STORAGE_FILE, path};
    int on_disk = have_tmpdir && rnd() % 4 == 0;
    snprintf(path, sizeof path, "%s/a.b2nd", tmpdir);
    b2_nd_array *a;
    int rc = b2_nd_create(&p, on_disk ? &st : NULL, fill, value, &a);
    CHECK(rc == 0, "create nd=%d: %d", nd, rc);
    if (rc < 0) {
        free(model);
        return;
    }
    if (rnd() % 2)
        b2_nd_set_nthreads(a, 2); /* results must not depend on it */
    for (int op = 0; op < 10; op++) {
        sel s;
        random_sel(nd, p.shape, 6, &s);
        size_t bytes = (size_t)s.total * ts;
        uint8_t *buf = malloc(bytes ? bytes : 1), *want = malloc(bytes ? bytes : 1);
        const int64_t *lists[B2_ND_MAX_DIM];
        for (int d = 0; d < nd; d++)
            lists[d] = s.idx[d];
        if (op % 2) {
            for (size_t k = 0; k < bytes; k++)
                buf[k] = (uint8_t)(rnd() % 4 ? rnd() : 0);
            rc = b2_nd_set_orthogonal_selection(a, lists, s.n, buf, bytes);
            CHECK(rc == 0, "set nd=%d: %d (%s)", nd, rc, b2_nd_last_error(a));
            /* C order, so a repeated index keeps the last value */
            for (int64_t k = 0; k < s.total; k++)
                memcpy(model + model_offset(&s, p.shape, k) * (int64_t)ts, buf + k * (int64_t)ts, ts);
        } else {
            for (int64_t k = 0; k < s.total; k++)
                memcpy(want + k * (int64_t)ts, model + model_offset(&s, p.shape, k) * (int64_t)ts, ts);
            int64_t before = b2_nd_blocks_decoded(a);
            rc = b2_nd_get_orthogonal_selection(a, lists, s.n, buf, bytes);
            int64_t used = b2_nd_blocks_decoded(a) - before;
            CHECK(rc == 0 && memcmp(buf, want, bytes) == 0, "get nd=%d: %d", nd, rc);
            /* specials decode no block; every other touched block decodes once */
            int64_t most = count_blocks(&s, &p);
            CHECK(used <= most, "get nd=%d decoded %lld blocks, %lld touched", nd,
                  (long long)used, (long long)most);
        }
        cases++;
        free(buf);
        free(want);
        sel_free(&s);
    }
    uint8_t *got = malloc((size_t)items * ts);
    rc = b2_nd_to_cbuffer(a, got, (size_t)items * ts);
    CHECK(rc == 0 && memcmp(got, model, (size_t)items * ts) == 0, "final read nd=%d", nd);
    free(got);
    free(model);
    b2_nd_free(a);
    if (on_disk)
        remove(path);
}

/* A fully written array: no special chunk, so a read decodes exactly the touched blocks. */
static void exact_block_counts(void)
{
    b2_nd_params p;
    ndt_params(&p, 3, (const int64_t[]){37, 41, 29}, (const int32_t[]){10, 16, 29},
               (const int32_t[]){4, 5, 7}, 4);
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.codec = B2_CODEC_LZ4;
    p.cparams = &cp;
    int64_t items = 37 * 41 * 29;
    uint32_t *data = malloc((size_t)items * 4);
    for (int64_t k = 0; k < items; k++)
        data[k] = (uint32_t)(k * 2654435761u) | 1; /* no zero chunk */
    char path[128];
    snprintf(path, sizeof path, "%s/exact.b2nd", tmpdir);
    for (int where = 0; where < (have_tmpdir ? 2 : 1); where++) {
        b2_nd_storage st = {B2_STORAGE_FILE, path};
        b2_nd_array *a;
        int rc = b2_nd_from_cbuffer(&p, where ? &st : NULL, data, (size_t)items * 4, &a);
        CHECK(rc == 0, "from_cbuffer: %d", rc);
        if (rc < 0)
            break;
        for (int r = 0; r < 40; r++) {
            sel s;
            random_sel(3, p.shape, 5, &s);
            const int64_t *lists[3] = {s.idx[0], s.idx[1], s.idx[2]};
            uint32_t *out = malloc((size_t)(s.total ? s.total : 1) * 4);
            int64_t before = b2_nd_blocks_decoded(a), lazy = a->blocks_read_lazily;
            rc = b2_nd_get_orthogonal_selection(a, lists, s.n, out, (size_t)s.total * 4);
            int64_t used = b2_nd_blocks_decoded(a) - before, want = count_blocks(&s, &p);
            CHECK(rc == 0 && used == want, "%s: decoded %lld blocks, %lld touched",
                  where ? "file" : "memory", (long long)used, (long long)want);
            int ok = rc == 0;
            for (int64_t k = 0; k < s.total && ok; k++)
                ok = out[k] == data[model_offset(&s, p.shape, k)];
            CHECK(ok, "exact: values");
            if (where && r == 0)
                CHECK(a->blocks_read_lazily >= lazy, "lazy counter");
            free(out);
            sel_free(&s);
            cases++;
        }
        b2_nd_free(a);
        if (where)
            remove(path);
    }
    free(data);
}

/* Clean errors: out-of-range indices, wrong buffer sizes, NULL lists. */
static void bad_calls(void)
{
    b2_nd_params p;
    ndt_params(&p, 2, (const int64_t[]){10, 7}, (const int32_t[]){4, 7}, (const int32_t[]){2, 3},
               2);
    b2_nd_array *a;
    int rc = b2_nd_create(&p, NULL, B2_ND_FILL_ZEROS, NULL, &a);
    CHECK(rc == 0, "create: %d", rc);
    if (rc < 0)
        return;
    int64_t r[2] = {0, 10}, c[2] = {-7, 6}, n[2] = {2, 2};
    const int64_t *lists[2] = {r, c};
    uint16_t buf[4] = {1, 2, 3, 4};
    CHECK(b2_nd_get_orthogonal_selection(a, lists, n, buf, sizeof buf) == B2_ERR_RANGE,
          "index 10 of 10 is out of range");
    CHECK(strstr(b2_nd_last_error(a), "index 10") != NULL, "message names the index: %s",
          b2_nd_last_error(a));
    r[1] = -11;
    CHECK(b2_nd_set_orthogonal_selection(a, lists, n, buf, sizeof buf) == B2_ERR_RANGE,
          "index -11 of 10 is out of range");
    r[1] = -10;
    CHECK(b2_nd_get_orthogonal_selection(a, lists, n, buf, sizeof buf - 1) == B2_ERR_DST_TOO_SMALL,
          "short dst");
    CHECK(b2_nd_set_orthogonal_selection(a, lists, n, buf, sizeof buf + 2) == B2_ERR_INVALID_PARAM,
          "src of the wrong size");
    lists[1] = NULL;
    CHECK(b2_nd_get_orthogonal_selection(a, lists, n, buf, sizeof buf) == B2_ERR_INVALID_PARAM,
          "NULL list");
    CHECK(b2_nd_get_orthogonal_selection(a, NULL, n, buf, sizeof buf) == B2_ERR_INVALID_PARAM,
          "NULL selection");
    lists[1] = c;
    CHECK(b2_nd_set_orthogonal_selection(a, lists, n, buf, sizeof buf) == 0, "set 2x2");
    uint16_t all[70];
    CHECK(b2_nd_to_cbuffer(a, all, sizeof all) == 0, "read back");
    /* rows 0 and -10 are both row 0: the second (3, 4) wins; columns -7 = 0 and 6 */
    CHECK(all[0] == 3 && all[6] == 4 && all[1] == 0, "last value wins: %d %d", all[0], all[6]);
    b2_nd_free(a);
}

int main(void)
{
    test_rng_seed(0x2545F4914F6CDD1DULL);
    have_tmpdir = mkdtemp(tmpdir) != NULL;
    for (int r = 0; r < 120; r++)
        one_array(1 + r % 8);
    exact_block_counts();
    bad_calls();
    if (have_tmpdir)
        rmdir(tmpdir);
    printf("b2nd orthogonal selections: %ld random cases vs model, ", cases);
    return b2t_summary(NULL);
}
