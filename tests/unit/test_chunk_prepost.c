/* SPDX-License-Identifier: BSD-3-Clause */
/* Prefilters and postfilters (b2_chunk_experimental.h), against oracles written
 * here: a prefilter computing a ramp from the block offset gives the bytes of
 * compressing the ramp; a postfilter (x -> 3x + 1 on int32 items) gives the
 * transformed data and is called once for exactly the blocks a call delivers
 * (whole chunks, getitem ranges, b2nd slices and selections with special
 * chunks among them); failing callbacks fail the call with B2_ERR_CALLBACK
 * and store nothing. 1 and 2 threads, partial last blocks, random sizes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "b2_chunk_experimental.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"
#include "check.h"
#include "scratch.h"
#include "test_rng.h"
#include "frame_open.h"

static char scratch_dir[64];

#define MAXB 4096 /* blocks tracked per chunk */
#define MAXC 64   /* chunks tracked */

static int has(const char *msg, const char *part) { return msg && strstr(msg, part) != NULL; }

static int32_t ramp(int64_t i) { return (int32_t)(i * 2654435761u >> 20) + (int32_t)(i / 7); }

/* ---- callbacks ---- */

typedef struct tally {
    int fail_block;                /* block whose callback fails (-1: none) */
    int max_tid;
    int calls[MAXC][MAXB];         /* per chunk (nchunk + 1), per block; atomic */
    int64_t nchunk_seen;
} tally;

static int pre_ramp(const b2_prefilter_params *p)
{
    tally *t = p->user;
    if (p->nblock == t->fail_block)
        return -7;
    if (p->typesize != 4 || p->offset % 4)
        return -1;
    __atomic_fetch_add(&t->calls[0][p->nblock], 1, __ATOMIC_RELAXED);
    int32_t *o = (int32_t *)(void *)p->output;
    for (int32_t k = 0; k < p->size / 4; k++)
        o[k] = ramp(p->offset / 4 + k);
    return 0;
}

static int post_affine(const b2_postfilter_params *p)
{
    tally *t = p->user;
    if (p->nblock == t->fail_block)
        return -9;
    int64_t c = p->nchunk + 1;
    if (c >= 0 && c < MAXC && p->nblock < MAXB)
        __atomic_fetch_add(&t->calls[c][p->nblock], 1, __ATOMIC_RELAXED);
    int tid = p->tid, m = __atomic_load_n(&t->max_tid, __ATOMIC_RELAXED);
    while (tid > m && !__atomic_compare_exchange_n(&t->max_tid, &m, tid, 0, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED))
        ;
    for (int32_t k = 0; k + 4 <= p->size; k += 4) {
        int32_t v;
        memcpy(&v, p->block + k, 4);
        v = 3 * v + 1;
        memcpy(p->block + k, &v, 4);
    }
    return 0;
}

static int32_t affine(int32_t v) { return 3 * v + 1; }

/* ---- chunk layer ---- */

static void cparams_for(b2_cparams *p, int variant, int nthreads, int32_t blocksize)
{
    b2_cparams_init(p);
    p->typesize = 4;
    p->nthreads = nthreads;
    p->blocksize = blocksize;
    switch (variant) {
    case 0: p->codec = B2_CODEC_LZ4; break;
    case 1: p->codec = B2_CODEC_ZSTD; p->clevel = 3; p->filters[4] = B2_FILTER_DELTA; break;
    case 2: p->codec = B2_CODEC_BLOSCLZ; p->clevel = 0; break; /* memcpy chunk */
    case 3: p->codec = B2_CODEC_ZSTD; p->use_dict = 1; break;
    default: p->codec = B2_CODEC_BLOSCLZ; p->filters[5] = B2_FILTER_BITSHUFFLE; break;
    }
}

static void test_chunk_case(int variant, int nthreads)
{
    int32_t nitems = (int32_t)rnd_in(1, 60000), nbytes = nitems * 4;
    int32_t blocksize = 4 * (int32_t)rnd_in(64, 3000);
    b2_cparams p;
    cparams_for(&p, variant, nthreads, blocksize);
    int32_t *data = malloc((size_t)nbytes), *out = malloc((size_t)nbytes);
    size_t cap = b2_chunk_compress_bound((size_t)nbytes);
    uint8_t *ref = malloc(cap), *got = malloc(cap);
    for (int32_t i = 0; i < nitems; i++)
        data[i] = ramp(i);
    tally *t = calloc(1, sizeof *t);
    t->fail_block = -1;

    /* prefilter from the block offset, src NULL: the chunk of the ramp itself */
    b2_cctx *c = b2_cctx_new(&p);
    int rcb = b2_chunk_compress(c, data, (size_t)nbytes, ref, cap);
    b2_cctx_set_prefilter(c, pre_ramp, t);
    int gcb = b2_chunk_compress(c, NULL, (size_t)nbytes, got, cap);
    CHECK(rcb > 0 && gcb == rcb && !memcmp(ref, got, (size_t)rcb),
          "variant %d threads %d nitems %d: prefilter chunk %d vs %d bytes", variant, nthreads,
          (int)nitems, gcb, rcb);
    b2_chunk_info info;
    b2_chunk_get_info(ref, (size_t)rcb, &info);
    int once = variant != 3; /* dictionary training asks for every block twice */
    for (int32_t j = 0; j < info.nblocks && j < MAXB; j++)
        CHECK(once ? t->calls[0][j] == 1 : t->calls[0][j] >= 1,
              "variant %d: prefilter called %d times for block %d", variant, t->calls[0][j], (int)j);

    /* a failing prefilter: the error, naming it and the block, and no chunk */
    if (info.nblocks > 1 && !info.special) {
        t->fail_block = (int)rnd_in(0, info.nblocks - 1);
        memset(got, 0xEE, cap);
        int rc = b2_chunk_compress(c, NULL, (size_t)nbytes, got, cap);
        char want[32];
        snprintf(want, sizeof want, "block %d ", t->fail_block);
        CHECK(rc == B2_ERR_CALLBACK && has(b2_cctx_last_error(c), "prefilter returned -7") &&
                  has(b2_cctx_last_error(c), want),
              "variant %d: failing prefilter gave %d (%s)", variant, rc, b2_cctx_last_error(c));
        t->fail_block = -1;
    }
    b2_cctx_free(c);

    /* postfilter: whole chunk, each block once */
    memset(t->calls, 0, sizeof t->calls);
    b2_dctx *d = b2_dctx_new(nthreads);
    b2_dctx_set_postfilter(d, post_affine, t);
    int rc = b2_chunk_decompress(d, ref, (size_t)rcb, out, (size_t)nbytes);
    int bad = 0;
    for (int32_t i = 0; i < nitems; i++)
        bad += out[i] != affine(data[i]);
    CHECK(rc == nbytes && !bad, "variant %d: postfiltered chunk rc %d, %d items wrong", variant, rc,
          bad);
    for (int32_t j = 0; j < info.nblocks && j < MAXB; j++)
        CHECK(t->calls[0][j] == 1, "variant %d: postfilter called %d times for block %d", variant,
              t->calls[0][j], (int)j);
    CHECK(t->max_tid < nthreads, "tid %d with %d threads", t->max_tid, nthreads);

    /* getitem: exactly the blocks holding the range */
    for (int k = 0; k < 4; k++) {
        memset(t->calls, 0, sizeof t->calls);
        int64_t start = rnd_in(0, nitems - 1), n = rnd_in(1, nitems - start);
        rc = b2_chunk_getitem(d, ref, (size_t)rcb, start, n, out, (size_t)nbytes);
        bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += out[i] != affine(data[start + i]);
        CHECK(rc == n * 4 && !bad, "getitem %lld+%lld: rc %d, %d wrong", (long long)start,
              (long long)n, rc, bad);
        int64_t eb = info.eff_blocksize;
        for (int32_t j = 0; j < info.nblocks && j < MAXB; j++) {
            int want = j * eb < (start + n) * 4 && (j + 1) * eb > start * 4;
            CHECK(t->calls[0][j] == want, "getitem %lld+%lld: block %d called %d times, want %d",
                  (long long)start, (long long)n, (int)j, t->calls[0][j], want);
        }
    }

    /* a failing postfilter */
    t->fail_block = info.nblocks - 1;
    rc = b2_chunk_decompress(d, ref, (size_t)rcb, out, (size_t)nbytes);
    CHECK(rc == B2_ERR_CALLBACK && has(b2_last_error_message(), "postfilter returned -9"),
          "failing postfilter gave %d (%s)", rc, b2_last_error_message());
    b2_dctx_free(d);
    free(t);
    free(data);
    free(out);
    free(ref);
    free(got);
}

static void test_special_chunk(void)
{
    uint8_t chunk[64];
    int cb = b2_chunk_make_special(B2_SPECIAL_ZEROS, 4, 40000, NULL, chunk, sizeof chunk);
    tally *t = calloc(1, sizeof *t);
    t->fail_block = -1;
    b2_dctx *d = b2_dctx_new(2);
    b2_dctx_set_postfilter(d, post_affine, t);
    int32_t out[10000];
    int rc = b2_chunk_decompress(d, chunk, (size_t)cb, out, sizeof out);
    int bad = 0;
    for (int i = 0; i < 10000; i++)
        bad += out[i] != 1;
    CHECK(rc == 40000 && !bad && t->calls[0][0] == 1, "zeros chunk postfiltered: rc %d, %d wrong",
          rc, bad);
    b2_dctx_free(d);
    free(t);
}

/* ---- frame layer: a failing prefilter appends nothing ---- */

static void test_schunk(int nthreads)
{
    b2_cparams p;
    cparams_for(&p, 0, nthreads, 4096);
    b2_schunk *s = t_new(&p);
    tally *t = calloc(1, sizeof *t);
    t->fail_block = -1;
    int32_t nbytes = 40000;
    int32_t *data = malloc((size_t)nbytes);
    for (int32_t i = 0; i < nbytes / 4; i++)
        data[i] = ramp(i);
    CHECK(b2_schunk_append_buffer(s, data, nbytes) == 1, "plain append");
    CHECK(b2_schunk_set_prefilter(s, pre_ramp, t) == B2_OK, "set_prefilter");
    CHECK(b2_schunk_append_buffer(s, NULL, nbytes) == 2, "prefiltered append (src NULL)");
    uint8_t *before, *after;
    size_t blen, alen;
    b2_schunk_to_buffer(s, &before, &blen);
    t->fail_block = 3;
    int64_t rc = b2_schunk_append_buffer(s, NULL, nbytes);
    CHECK(rc == B2_ERR_CALLBACK && has(b2_schunk_last_error(s), "prefilter"),
          "failing prefilter append gave %lld (%s)", (long long)rc, b2_schunk_last_error(s));
    b2_schunk_to_buffer(s, &after, &alen);
    CHECK(b2_schunk_nchunks(s) == 2 && alen == blen && !memcmp(before, after, blen),
          "the frame is unchanged after a failed append");
    /* both chunks read back through a postfilter, chunk number given */
    b2_schunk_set_postfilter(s, post_affine, t);
    t->fail_block = -1;
    memset(t->calls, 0, sizeof t->calls);
    int32_t *out = malloc((size_t)nbytes);
    for (int64_t i = 0; i < 2; i++) {
        int r = b2_schunk_decompress_chunk(s, i, out, (size_t)nbytes);
        int bad = 0;
        for (int32_t k = 0; k < nbytes / 4; k++)
            bad += out[k] != affine(data[k]);
        CHECK(r == nbytes && !bad, "chunk %lld postfiltered: rc %d, %d wrong", (long long)i, r, bad);
        CHECK(t->calls[i + 1][0] == 1 && t->calls[i + 1][9] == 1, "chunk %lld: nchunk given",
              (long long)i);
    }
    /* the frame's own structures are not postfiltered: a vlmetalayer reads back as stored */
    b2_schunk_vlmeta_add(s, "note", "hello, world", 12);
    uint8_t *vm;
    int32_t vlen;
    CHECK(b2_schunk_vlmeta_get(s, "note", &vm, &vlen) >= 0 && vlen == 12 && !memcmp(vm, "hello, world", 12),
          "vlmetalayer not postfiltered");
    free(vm);
    free(out);
    free(before);
    free(after);
    free(data);
    free(t);
    b2_schunk_free(s);
}

/* ---- b2nd: the postfilter sees exactly the blocks a slice decodes ---- */

/* A slice of on-disk arrays reads only the blocks it needs (b2_schunk_read_blocks):
 * those are postfiltered too. */
static void test_nd_case(int nthreads, int on_disk)
{
    b2_nd_params np;
    memset(&np, 0, sizeof np);
    np.ndim = (int)rnd_in(1, 4);
    np.typesize = 4;
    int64_t nitems = 1;
    for (int i = 0; i < np.ndim; i++) {
        np.shape[i] = rnd_in(1, np.ndim == 1 ? 3000 : np.ndim == 2 ? 60 : 14);
        np.chunkshape[i] = (int32_t)rnd_in(1, np.shape[i]);
        np.blockshape[i] = (int32_t)rnd_in(1, np.chunkshape[i]);
        nitems *= np.shape[i];
    }
    b2_cparams cp;
    cparams_for(&cp, (int)rnd_in(0, 1), nthreads, 0);
    np.cparams = &cp;
    int32_t *data = malloc((size_t)nitems * 4);
    for (int64_t i = 0; i < nitems; i++)
        data[i] = i % 5 == 0 && i < nitems / 3 ? 0 : ramp(i);
    /* chunks wholly in the zero region become zero-special chunks */
    for (int64_t i = 0; i < nitems / 3; i++)
        data[i] = 0;
    char path[128];
    snprintf(path, sizeof path, "%s/a.b2nd", scratch_dir);
    unlink(path);
    b2_nd_storage st = {on_disk ? B2_STORAGE_FILE : B2_STORAGE_MEMORY, on_disk ? path : NULL};
    b2_nd_array *a = NULL;
    int rc = b2_nd_from_cbuffer(&np, &st, data, (size_t)nitems * 4, &a);
    CHECK(rc == B2_OK, "from_cbuffer: %d", rc);
    if (rc < 0) {
        free(data);
        return;
    }
    b2_nd_set_nthreads(a, nthreads);
    tally *t = calloc(1, sizeof *t);
    t->fail_block = -1;
    b2_nd_set_postfilter(a, post_affine, t);
    int32_t bic[B2_ND_MAX_DIM], cia[B2_ND_MAX_DIM];
    for (int i = 0; i < np.ndim; i++) {
        bic[i] = (np.chunkshape[i] + np.blockshape[i] - 1) / np.blockshape[i];
        cia[i] = (int32_t)((np.shape[i] + np.chunkshape[i] - 1) / np.chunkshape[i]);
    }
    int32_t *out = malloc((size_t)nitems * 4);
    static int want[MAXC][MAXB];
    for (int k = 0; k < 3; k++) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM], n = 1;
        for (int i = 0; i < np.ndim; i++) {
            start[i] = rnd_in(0, np.shape[i] - 1);
            stop[i] = rnd_in(start[i] + 1, np.shape[i]);
            n *= stop[i] - start[i];
        }
        memset(t->calls, 0, sizeof t->calls);
        memset(want, 0, sizeof want);
        rc = b2_nd_get_slice_cbuffer(a, start, stop, out, (size_t)nitems * 4);
        /* oracle: each item of the box, its value, chunk and block */
        int bad = 0, track = 1;
        int64_t idx[B2_ND_MAX_DIM];
        for (int i = 0; i < np.ndim; i++)
            idx[i] = start[i];
        for (int64_t m = 0; m < n; m++) {
            int64_t flat = 0, ch = 0, bl = 0;
            for (int i = 0; i < np.ndim; i++) {
                flat = flat * np.shape[i] + idx[i];
                ch = ch * cia[i] + idx[i] / np.chunkshape[i];
                bl = bl * bic[i] + (idx[i] % np.chunkshape[i]) / np.blockshape[i];
            }
            bad += out[m] != affine(data[flat]);
            if (ch + 1 < MAXC && bl < MAXB)
                want[ch + 1][bl] = 1;
            else
                track = 0;
            for (int i = np.ndim - 1; i >= 0; i--) {
                if (++idx[i] < stop[i])
                    break;
                idx[i] = start[i];
            }
        }
        CHECK(rc == B2_OK && !bad, "nd slice ndim %d: rc %d, %d items wrong", np.ndim, rc, bad);
        int wrong = 0;
        for (int c = 0; track && c < MAXC; c++)
            for (int b = 0; b < MAXB; b++)
                wrong += t->calls[c][b] != want[c][b];
        CHECK(!wrong, "nd slice ndim %d (disk %d): %d blocks postfiltered other than once-if-decoded",
              np.ndim, on_disk, wrong);
    }
    /* an orthogonal selection: the blocks of the selected items */
    int64_t *sel[B2_ND_MAX_DIM], nsel[B2_ND_MAX_DIM], n = 1;
    for (int i = 0; i < np.ndim; i++) {
        nsel[i] = rnd_in(1, 3);
        sel[i] = malloc((size_t)nsel[i] * sizeof **sel);
        for (int64_t q = 0; q < nsel[i]; q++)
            sel[i][q] = rnd_in(0, np.shape[i] - 1);
        n *= nsel[i];
    }
    memset(t->calls, 0, sizeof t->calls);
    memset(want, 0, sizeof want);
    rc = b2_nd_get_orthogonal_selection(a, (const int64_t *const *)sel, nsel, out,
                                        (size_t)nitems * 4);
    int bad = 0, track = 1;
    int64_t q[B2_ND_MAX_DIM] = {0};
    for (int64_t m = 0; m < n; m++) {
        int64_t flat = 0, ch = 0, bl = 0;
        for (int i = 0; i < np.ndim; i++) {
            int64_t x = sel[i][q[i]];
            flat = flat * np.shape[i] + x;
            ch = ch * cia[i] + x / np.chunkshape[i];
            bl = bl * bic[i] + (x % np.chunkshape[i]) / np.blockshape[i];
        }
        bad += out[m] != affine(data[flat]);
        if (ch + 1 < MAXC && bl < MAXB)
            want[ch + 1][bl] = 1;
        else
            track = 0;
        for (int i = np.ndim - 1; i >= 0; i--) {
            if (++q[i] < nsel[i])
                break;
            q[i] = 0;
        }
    }
    CHECK(rc == B2_OK && !bad, "nd selection: rc %d, %d items wrong", rc, bad);
    int wrong = 0;
    for (int c = 0; track && c < MAXC; c++)
        for (int b = 0; b < MAXB; b++)
            wrong += t->calls[c][b] != want[c][b];
    CHECK(!wrong, "nd selection ndim %d: %d blocks postfiltered other than once-if-decoded",
          np.ndim, wrong);
    for (int i = 0; i < np.ndim; i++)
        free(sel[i]);
    /* a failing postfilter fails the read */
    t->fail_block = 0;
    int64_t s0[B2_ND_MAX_DIM] = {0};
    rc = b2_nd_get_slice_cbuffer(a, s0, np.shape, out, (size_t)nitems * 4);
    CHECK(rc == B2_ERR_CALLBACK, "nd slice with a failing postfilter: %d", rc);
    /* writes never postfilter: a partial write keeps the other items */
    b2_nd_set_postfilter(a, NULL, NULL);
    int32_t one = 42;
    rc = b2_nd_set_slice_cbuffer(a, s0, (int64_t[B2_ND_MAX_DIM]){1, 1, 1, 1}, &one, 4);
    b2_nd_to_cbuffer(a, out, (size_t)nitems * 4);
    bad = 0;
    for (int64_t i = 1; i < nitems; i++)
        bad += out[i] != data[i];
    CHECK(rc == B2_OK && out[0] == 42 && !bad, "write after postfiltered reads: %d wrong", bad);
    free(t);
    free(out);
    free(data);
    b2_nd_free(a);
}

int main(void)
{
    test_rng_seed(0x5EED27A);
    snprintf(scratch_dir, sizeof scratch_dir, "/tmp/b2_prepostXXXXXX");
    if (!mkdtemp(scratch_dir)) {
        printf("no scratch directory\n");
        return 1;
    }
    for (int nt = 1; nt <= 2; nt++) {
        for (int v = 0; v < 5; v++)
            for (int k = 0; k < 6; k++)
                test_chunk_case(v, nt);
        test_schunk(nt);
        for (int k = 0; k < 40; k++)
            test_nd_case(nt, k % 2);
    }
    test_special_chunk();
    test_rm_tree(scratch_dir);
    return b2t_summary("chunk_prepost");
}
