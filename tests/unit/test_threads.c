/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread safety (issue 14). Runs in every build with small sizes, and in CI's
 * ThreadSanitizer build (-DB2_TSAN=ON), where any data race fails the test:
 *  1. 8 threads, each with its own contexts and objects, compress and decompress
 *     through every layer: chunks (whole, getitem, rows, with 1 or 2 worker
 *     threads per context, several codecs and filters, a dictionary), frames in
 *     memory and b2nd arrays in memory (zstd, ndlz and zfp when built);
 *  2. 8 threads read one shared read-only frame and one shared b2nd array at
 *     once, each stored in memory, in a file and as a sparse frame, through the
 *     read calls b2_frame.h and b2_nd.h allow on a shared handle (one of each
 *     with 2 decoding threads, one array with a lent context), failing calls
 *     included (each thread's message names its own request).
 * Every result is compared with the original bytes. The HDF5 filter called from
 * several threads is tested by h5plugin/test/test_h5threads.c.
 * B2_STRESS_ROUNDS sets the rounds (default 2). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "check.h"
#include "scratch.h"
#include "b2_chunk_experimental.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"
#include "frame_open.h"

#define NTHREADS 8
#define MAX_SHOWN 5 /* failures printed per thread */

/* ---- per-thread bookkeeping (CHECK's counters are not thread-safe) ---- */

typedef struct worker {
    int id;
    uint64_t rng;
    long checks, fails;
} worker;

static uint64_t rnd(worker *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

static void wfail(worker *w, int line, const char *fmt, ...)
{
    if (++w->fails > MAX_SHOWN)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL %s:%d: thread %d: %s\n", __FILE__, line, w->id, msg); /* stdio locks */
}

#define WCHECK(w, cond, ...)                           \
    do {                                               \
        (w)->checks++;                                 \
        if (!(cond))                                   \
            wfail((w), __LINE__, __VA_ARGS__);         \
    } while (0)

static int rounds(void)
{
    const char *e = getenv("B2_STRESS_ROUNDS");
    int n = e ? atoi(e) : 2;
    return n > 0 ? n : 1;
}

/* Compressible bytes that differ with seed: a slow ramp of int32 with noise. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)(i / 4), x = k * 2654435761u ^ seed;
        uint32_t v = (k + seed) / 3 + ((x >> 13) & 3);
        p[i] = (uint8_t)(v >> (8 * (i % 4)));
    }
}

/* ---- 1. own contexts ---- */

/* Pipelines the threads go through (filters in slots 4 and 5). */
static const struct combo {
    int codec, clevel, f4, f5, typesize, use_dict, split;
} combos[] = {
    {B2_CODEC_BLOSCLZ, 5, 0, B2_FILTER_SHUFFLE, 4, 0, B2_SPLIT_FORWARD_COMPAT},
    {B2_CODEC_LZ4, 5, 0, B2_FILTER_BITSHUFFLE, 4, 0, B2_SPLIT_ALWAYS},
    {B2_CODEC_LZ4HC, 3, 0, B2_FILTER_DELTA, 8, 0, B2_SPLIT_NEVER},
    {B2_CODEC_ZLIB, 4, 0, B2_FILTER_SHUFFLE, 2, 0, B2_SPLIT_AUTO},
    {B2_CODEC_ZSTD, 3, B2_FILTER_SHUFFLE, B2_FILTER_BYTEDELTA, 4, 1, B2_SPLIT_FORWARD_COMPAT},
    {B2_CODEC_LZ4, 9, 0, 0, 1, 1, B2_SPLIT_NEVER},
};

/* Block k of a chunk decoded into (or compressed from) place k of a flat buffer. */
typedef struct flat_rows {
    uint8_t *base;
    int32_t bs, nbytes;
} flat_rows;

static int flat_block(void *ud, int32_t block, b2_block_rows *r)
{
    const flat_rows *f = ud;
    int64_t off = (int64_t)block * f->bs;
    r->nd = 0;
    r->run = f->nbytes - off < f->bs ? f->nbytes - off : f->bs;
    r->user = f->base + off;
    return B2_OK;
}

static void own_chunks(worker *w, const struct combo *c, int nthreads)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = c->codec;
    p.clevel = c->clevel;
    p.typesize = c->typesize;
    p.blocksize = 8192; /* several blocks, so worker threads share a chunk */
    p.splitmode = c->split;
    p.filters[4] = (uint8_t)c->f4;
    p.filters[5] = (uint8_t)c->f5;
    p.use_dict = c->use_dict;
    p.nthreads = nthreads;
    int32_t n = (int32_t)(40000 + rnd(w) % 24000) / c->typesize * c->typesize;
    size_t cap = b2_chunk_compress_bound((size_t)n);
    uint8_t *src = malloc((size_t)n), *back = malloc((size_t)n), *dst = malloc(cap),
            *dst2 = malloc(cap);
    fill(src, (size_t)n, (uint32_t)rnd(w));
    b2_cctx *cc = b2_cctx_new(&p);
    b2_dctx *d = b2_dctx_new(3 - nthreads);
    int cb = cc ? b2_chunk_compress(cc, src, (size_t)n, dst, cap) : -1;
    WCHECK(w, cb > 0 && cb < n, "codec %d: compress %d of %d (%s)", c->codec, cb, n,
           b2_last_error_message());
    if (cb > 0) {
        memset(back, 0, (size_t)n);
        int r = b2_chunk_decompress(d, dst, (size_t)cb, back, (size_t)n);
        WCHECK(w, r == n && !memcmp(src, back, (size_t)n), "codec %d: decompress %d", c->codec, r);
        int64_t items = n / c->typesize, start = (int64_t)(rnd(w) % (uint64_t)items);
        int64_t cnt = 1 + (int64_t)(rnd(w) % (uint64_t)(items - start));
        r = b2_chunk_getitem(d, dst, (size_t)cb, start, cnt, back, (size_t)n);
        WCHECK(w, r == cnt * c->typesize &&
                      !memcmp(src + start * c->typesize, back, (size_t)(cnt * c->typesize)),
               "codec %d: getitem %lld+%lld gave %d", c->codec, (long long)start, (long long)cnt, r);
        /* rows: decode every block to its place; compress from the rows again */
        memset(back, 0, (size_t)n);
        flat_rows fr = {back, b2_chunk_blocksize_for(&p, n), n};
        r = b2_chunk_decompress_rows(d, dst, (size_t)cb, NULL, 0, flat_block, &fr);
        WCHECK(w, r == B2_OK && !memcmp(src, back, (size_t)n), "codec %d: rows %d", c->codec, r);
        fr.base = src;
        int cb2 = b2_chunk_compress_rows(cc, (size_t)n, flat_block, &fr, dst2, cap);
        WCHECK(w, cb2 == cb && !memcmp(dst, dst2, (size_t)cb), "codec %d: compress_rows %d vs %d",
               c->codec, cb2, cb);
    }
    b2_cctx_free(cc);
    b2_dctx_free(d);
    free(src);
    free(back);
    free(dst);
    free(dst2);
}

/* An in-memory frame of 3 chunks: append, serialize, reopen the bytes, read. */
static void own_frame(worker *w, int nthreads)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_ZSTD;
    p.clevel = 1;
    p.typesize = 4;
    p.nthreads = nthreads;
    enum { NB = 24000 };
    uint8_t *src = malloc(3 * NB), *back = malloc(3 * NB), *buf = NULL;
    fill(src, 3 * NB, (uint32_t)rnd(w));
    b2_schunk *s = t_new(&p), *r = NULL;
    int ok = s != NULL;
    for (int i = 0; i < 3 && ok; i++)
        ok = b2_schunk_append_buffer(s, src + i * NB, NB) == i + 1;
    size_t len = 0;
    ok = ok && b2_schunk_to_buffer(s, &buf, &len) == B2_OK &&
         t_open_buffer(buf, len, 0, &r) == B2_OK;
    WCHECK(w, ok, "own frame: build (%s)", b2_last_error_message());
    for (int i = 0; i < 3 && ok; i++) {
        int got = b2_schunk_decompress_chunk(r, i, back, NB);
        WCHECK(w, got == NB && !memcmp(back, src + i * NB, NB), "own frame: chunk %d", i);
    }
    if (ok) {
        int64_t got = b2_schunk_get_items(r, 1000, 12000, back, 3 * NB);
        WCHECK(w, got == 48000 && !memcmp(back, src + 4000, 48000), "own frame: get_items");
    }
    b2_schunk_free(r);
    b2_schunk_free(s);
    free(buf);
    free(src);
    free(back);
}

/* An in-memory array with a plugin codec when built: kind 0 zstd (3-D int32),
 * 1 ndlz (2-D bytes), 2 zfp fixed accuracy (2-D float32, lossy within 1e-3). */
static void own_array(worker *w, int kind, int nthreads)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.nthreads = nthreads;
    b2_nd_params p = {0};
    p.cparams = &cp;
    if (kind == 0) {
        p.ndim = 3;
        int64_t sh[3] = {20, 30, 40};
        int32_t ch[3] = {10, 16, 20}, bl[3] = {5, 8, 10};
        memcpy(p.shape, sh, sizeof sh), memcpy(p.chunkshape, ch, sizeof ch);
        memcpy(p.blockshape, bl, sizeof bl);
        p.typesize = 4;
        cp.codec = B2_CODEC_ZSTD;
    } else {
        p.ndim = 2;
        int64_t sh[2] = {70, 90};
        int32_t ch[2] = {32, 48}, bl[2] = {16, 16};
        memcpy(p.shape, sh, sizeof sh), memcpy(p.chunkshape, ch, sizeof ch);
        memcpy(p.blockshape, bl, sizeof bl);
        p.typesize = kind == 1 ? 1 : 4;
#if defined(B2_HAVE_NDLZ)
        if (kind == 1) {
            cp.codec = B2_CODEC_NDLZ;
            cp.codec_meta = 4;
            memset(cp.filters, 0, sizeof cp.filters);
        }
#endif
#if defined(B2_HAVE_ZFP)
        if (kind == 2) {
            cp.codec = B2_CODEC_ZFP_ACC;
            cp.codec_meta = (uint8_t)(int8_t)-3;
            cp.splitmode = B2_SPLIT_NEVER;
            memset(cp.filters, 0, sizeof cp.filters); /* zfp takes no shuffle */
        }
#endif
    }
    int64_t nitems = 1;
    for (int i = 0; i < p.ndim; i++)
        nitems *= p.shape[i];
    size_t n = (size_t)(nitems * p.typesize);
    uint8_t *src = malloc(n), *back = malloc(n);
    if (kind == 2) { /* a smooth field */
        for (int64_t i = 0; i < nitems; i++) {
            float v = (float)(sin((double)(i / 90) * 0.1) * cos((double)(i % 90) * 0.07) +
                              (double)w->id);
            memcpy(src + 4 * i, &v, 4);
        }
    } else {
        fill(src, n, (uint32_t)rnd(w));
    }
    b2_nd_storage st = {B2_STORAGE_MEMORY, NULL};
    b2_nd_array *a = NULL;
    int rc = b2_nd_from_cbuffer(&p, &st, src, n, &a);
    WCHECK(w, rc == B2_OK, "own array %d: create %d (%s)", kind, rc, b2_last_error_message());
    if (rc == B2_OK) {
        memset(back, 0, n);
        rc = b2_nd_to_cbuffer(a, back, n);
        int same = rc == B2_OK;
        if (kind == 2) {
            for (int64_t i = 0; same && i < nitems; i++) {
                float x, y;
                memcpy(&x, src + 4 * i, 4);
                memcpy(&y, back + 4 * i, 4);
                same = fabsf(x - y) <= 1e-3f;
            }
        } else {
            same = same && !memcmp(src, back, n);
        }
        WCHECK(w, same, "own array %d: read back %d", kind, rc);
    }
    b2_nd_free(a);
    free(src);
    free(back);
}

static void *own_contexts(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < rounds(); round++) {
        for (size_t c = 0; c < sizeof combos / sizeof *combos; c++)
            own_chunks(w, &combos[c], 1 + (int)((w->id + c + (size_t)round) % 2));
        own_frame(w, 1 + w->id % 2);
        own_array(w, (w->id + round) % 3, 1 + (w->id / 3) % 2);
    }
    return NULL;
}

/* ---- 2. shared read-only frame and array ---- */

enum {
    FR_ITEMS = 8192, /* int32 items per chunk */
    FR_CHUNKS = 20,
    FR_LAST = 3000,  /* items of the shorter last chunk */
    FR_ZEROS = 5,    /* a zero chunk (an index entry) */
    FR_VALUE = 9,    /* a repeated-value chunk */
    FR_BLOCK = 4096, /* bytes */
};
#define FR_NITEMS ((int64_t)(FR_CHUNKS - 1) * FR_ITEMS + FR_LAST)
#define FR_NBYTES (FR_NITEMS * 4)

static const uint8_t meta_bytes[5] = {1, 2, 3, 4, 5};
static const char vlmeta_text[] = "read by many threads at once";

typedef struct shared {
    const uint8_t *fref;  /* the frame's bytes, decoded */
    b2_schunk *frames[5]; /* memory, file, sparse, the file mapped, the file through user I/O */
    const uint8_t *aref;  /* the array, C order */
    b2_nd_array *arrays[3];
} shared;

static const char *storage_name[5] = {"memory", "file", "sparse", "mapped", "user I/O"};

/* User I/O over a file descriptor: pread from any thread. */
static int64_t fd_read(void *u, int64_t pos, void *dst, size_t n)
{
    return pread(*(int *)u, dst, n, (off_t)pos);
}

static int64_t fd_size(void *u)
{
    struct stat st;
    return fstat(*(int *)u, &st) == 0 ? (int64_t)st.st_size : -1;
}

static void fd_close(void *u) { close(*(int *)u); }

static const b2_io fd_io = {fd_read, NULL, fd_size, NULL, NULL, fd_close};
static int fd_user = -1;

static int32_t chunk_items(int64_t i) { return i == FR_CHUNKS - 1 ? FR_LAST : FR_ITEMS; }

/* Special kind chunk i reports. */
static int chunk_kind(int64_t i)
{
    return i == FR_ZEROS ? B2_SPECIAL_ZEROS : i == FR_VALUE ? B2_SPECIAL_VALUE : B2_SPECIAL_NONE;
}

static uint8_t *frame_reference(void)
{
    uint8_t *ref = malloc((size_t)FR_NBYTES);
    fill(ref, (size_t)FR_NBYTES, 77);
    memset(ref + (int64_t)FR_ZEROS * FR_ITEMS * 4, 0, FR_ITEMS * 4);
    for (int k = 0; k < FR_ITEMS; k++)
        memcpy(ref + ((int64_t)FR_VALUE * FR_ITEMS + k) * 4, "\x04\x03\x02\x01", 4);
    return ref;
}

/* Write the reference frame into s (empty). */
static int frame_fill(b2_schunk *s, const uint8_t *ref)
{
    int ok = b2_schunk_meta_add(s, "stress", meta_bytes, sizeof meta_bytes) >= 0;
    uint8_t special[B2_HEADER_LEN + 4];
    for (int64_t i = 0; i < FR_CHUNKS && ok; i++) {
        int32_t nb = chunk_items(i) * 4;
        if (i == FR_ZEROS || i == FR_VALUE) {
            int cb = b2_chunk_make_special(chunk_kind(i), 4, nb, "\x04\x03\x02\x01", special,
                                           sizeof special);
            ok = cb > 0 && b2_schunk_append_chunk(s, special, cb) == i + 1;
        } else {
            ok = b2_schunk_append_buffer(s, ref + i * FR_ITEMS * 4, nb) == i + 1;
        }
    }
    return ok && b2_schunk_vlmeta_add(s, "note", vlmeta_text, sizeof vlmeta_text) >= 0;
}

static void read_frame(worker *w, b2_schunk *s, const uint8_t *ref, const char *what)
{
    int disk = b2_schunk_storage(s) != B2_STORAGE_MEMORY;
    uint8_t *buf = malloc(3 * FR_ITEMS * 4);
    b2_dctx *d = b2_dctx_new(1);
    for (int it = 0; it < 14; it++) {
        int64_t i = (int64_t)(rnd(w) % FR_CHUNKS);
        int32_t nb = chunk_items(i) * 4;
        const uint8_t *want = ref + i * FR_ITEMS * 4;
        switch (it % 7) {
        case 0: {
            int got = b2_schunk_decompress_chunk(s, i, buf, (size_t)nb);
            WCHECK(w, got == nb && !memcmp(buf, want, (size_t)nb), "%s: chunk %lld: %d", what,
                   (long long)i, got);
            break;
        }
        case 1: { /* across chunks; on disk partial chunks read only their blocks */
            int64_t start = (int64_t)(rnd(w) % (uint64_t)FR_NITEMS);
            int64_t left = FR_NITEMS - start, n = 1 + (int64_t)(rnd(w) % (2 * FR_ITEMS));
            n = n < left ? n : left;
            int64_t got = b2_schunk_get_items(s, start, n, buf, 3 * FR_ITEMS * 4);
            WCHECK(w, got == n * 4 && !memcmp(buf, ref + start * 4, (size_t)(n * 4)),
                   "%s: items %lld+%lld: %lld", what, (long long)start, (long long)n,
                   (long long)got);
            break;
        }
        case 2: {
            uint8_t *c = NULL;
            int32_t cb = 0;
            int rc = b2_schunk_get_chunk(s, i, &c, &cb);
            int got = rc == B2_OK ? b2_chunk_decompress(d, c, (size_t)cb, buf, (size_t)nb) : rc;
            WCHECK(w, got == nb && !memcmp(buf, want, (size_t)nb), "%s: get_chunk %lld: %d", what,
                   (long long)i, got);
            free(c);
            break;
        }
        case 3: { /* two blocks of a chunk, read alone */
            int32_t nblk = (nb + FR_BLOCK - 1) / FR_BLOCK;
            int32_t bl[2] = {(int32_t)(rnd(w) % (uint64_t)nblk), (int32_t)(rnd(w) % (uint64_t)nblk)};
            uint8_t *c = NULL;
            int32_t cb = 0;
            int rc = b2_schunk_read_blocks(s, i, bl, 2, &c, &cb);
            if (!disk || chunk_kind(i) != B2_SPECIAL_NONE) {
                WCHECK(w, rc == B2_ERR_UNSUPPORTED, "%s: read_blocks of chunk %lld: %d", what,
                       (long long)i, rc);
            } else {
                for (int k = 0; k < 2 && rc == B2_OK; k++) {
                    int32_t bi = FR_BLOCK / 4, first = bl[k] * bi;
                    int32_t cnt = chunk_items(i) - first < bi ? chunk_items(i) - first : bi;
                    int got = b2_chunk_getitem(d, c, (size_t)cb, first, cnt, buf, (size_t)nb);
                    rc = got == cnt * 4 && !memcmp(buf, want + first * 4, (size_t)cnt * 4) ? B2_OK : -1;
                }
                WCHECK(w, rc == B2_OK, "%s: blocks %d,%d of chunk %lld: %d", what, bl[0], bl[1],
                       (long long)i, rc);
            }
            free(c);
            break;
        }
        case 4:
            WCHECK(w, b2_schunk_chunk_nbytes(s, i) == nb && b2_schunk_chunk_cbytes(s, i) > 0 &&
                          b2_schunk_chunk_special(s, i) == chunk_kind(i),
                   "%s: chunk %lld nbytes/cbytes/special", what, (long long)i);
            break;
        case 5: {
            uint8_t *m = NULL, *v = NULL;
            int32_t ml = 0, vl = 0;
            int rm = b2_schunk_meta_get(s, "stress", &m, &ml);
            int rv = b2_schunk_vlmeta_get(s, "note", &v, &vl);
            WCHECK(w, rm >= 0 && ml == sizeof meta_bytes && !memcmp(m, meta_bytes, sizeof meta_bytes) &&
                          rv >= 0 && vl == sizeof vlmeta_text && !memcmp(v, vlmeta_text, (size_t)vl),
                   "%s: metalayers %d %d", what, rm, rv);
            free(m);
            free(v);
            break;
        }
        case 6: { /* a failing read: this thread's message is about this thread's chunk */
            int64_t bad = FR_CHUNKS + w->id;
            char part[48];
            snprintf(part, sizeof part, "chunk %lld of %d", (long long)bad, FR_CHUNKS);
            int rc = b2_schunk_decompress_chunk(s, bad, buf, (size_t)nb);
            WCHECK(w, rc == B2_ERR_RANGE && strstr(b2_last_error_message(), part),
                   "%s: chunk %lld: %d, \"%s\"", what, (long long)bad, rc, b2_last_error_message());
            break;
        }
        }
    }
    b2_dctx_free(d);
    free(buf);
}

/* The shared array: int16, edge chunks partial, the first chunk all zeros (a
 * zero chunk). */
#define AR_NDIM 3
static const int64_t ar_shape[AR_NDIM] = {37, 41, 50};
static const int32_t ar_chunk[AR_NDIM] = {16, 16, 24}, ar_block[AR_NDIM] = {8, 8, 8};
#define AR_NITEMS (37 * 41 * 50)

static uint8_t *array_reference(void)
{
    uint8_t *ref = malloc(AR_NITEMS * 2);
    fill(ref, AR_NITEMS * 2, 99);
    for (int64_t x = 0; x < ar_chunk[0]; x++)
        for (int64_t y = 0; y < ar_chunk[1]; y++)
            memset(ref + ((x * ar_shape[1] + y) * ar_shape[2]) * 2, 0, (size_t)ar_chunk[2] * 2);
    return ref;
}

/* The box [lo, hi) of the reference, C order, into out. */
static void ref_box(const uint8_t *ref, const int64_t *lo, const int64_t *hi, uint8_t *out)
{
    for (int64_t x = lo[0]; x < hi[0]; x++)
        for (int64_t y = lo[1]; y < hi[1]; y++) {
            size_t run = (size_t)(hi[2] - lo[2]) * 2;
            memcpy(out, ref + ((x * ar_shape[1] + y) * ar_shape[2] + lo[2]) * 2, run);
            out += run;
        }
}

static void read_array(worker *w, b2_nd_array *a, const uint8_t *ref, const char *what)
{
    uint8_t *got = malloc(AR_NITEMS * 2), *want = malloc(AR_NITEMS * 2);
    for (int it = 0; it < 10; it++) {
        int64_t lo[AR_NDIM], hi[AR_NDIM], n = 2;
        int small = it % 3 != 2; /* small boxes: on disk only their blocks are read */
        for (int i = 0; i < AR_NDIM; i++) {
            int64_t ext = small ? 1 + (int64_t)(rnd(w) % 9) : 1 + (int64_t)(rnd(w) % (uint64_t)ar_shape[i]);
            lo[i] = (int64_t)(rnd(w) % (uint64_t)(ar_shape[i] - ext + 1));
            hi[i] = lo[i] + ext;
            n *= ext;
        }
        int rc = b2_nd_get_slice_cbuffer(a, lo, hi, got, AR_NITEMS * 2);
        ref_box(ref, lo, hi, want);
        WCHECK(w, rc == B2_OK && !memcmp(got, want, (size_t)n),
               "%s: box [%lld,%lld,%lld]-[%lld,%lld,%lld]: %d", what, (long long)lo[0],
               (long long)lo[1], (long long)lo[2], (long long)hi[0], (long long)hi[1],
               (long long)hi[2], rc);
    }
    int rc = b2_nd_to_cbuffer(a, got, AR_NITEMS * 2);
    WCHECK(w, rc == B2_OK && !memcmp(got, ref, AR_NITEMS * 2), "%s: whole array: %d", what, rc);
    /* a failing read: the code is this thread's */
    int64_t lo[AR_NDIM] = {0, 0, 0}, hi[AR_NDIM] = {ar_shape[0], ar_shape[1] + 1 + w->id, 1};
    rc = b2_nd_get_slice_cbuffer(a, lo, hi, got, AR_NITEMS * 2);
    WCHECK(w, rc < 0 && b2_last_error_code() == rc, "%s: box past the end: %d", what, rc);
    free(got);
    free(want);
}

static shared the;

static void *shared_reads(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < rounds(); round++)
        for (int k = 0; k < 5; k++) {
            int j = (k + w->id) % 5; /* threads start on different handles */
            char what[40];
            snprintf(what, sizeof what, "shared %s frame", storage_name[j]);
            read_frame(w, the.frames[j], the.fref, what);
            if (j < 3) {
                snprintf(what, sizeof what, "shared %s array", storage_name[j]);
                read_array(w, the.arrays[j], the.aref, what);
            }
        }
    return NULL;
}

/* ---- driver ---- */

static void run(void *(*fn)(void *), const char *what)
{
    pthread_t t[NTHREADS];
    worker w[NTHREADS];
    for (int k = 0; k < NTHREADS; k++) {
        w[k] = (worker){.id = k, .rng = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1)};
        CHECK(pthread_create(&t[k], NULL, fn, &w[k]) == 0, "%s: thread %d not started", what, k);
    }
    long checks = 0, fails = 0;
    for (int k = 0; k < NTHREADS; k++) {
        pthread_join(t[k], NULL);
        checks += w[k].checks;
        fails += w[k].fails;
    }
    CHECK(fails == 0, "%s: %ld of %ld checks in the threads failed", what, fails, checks);
    CHECK(checks > 0, "%s: the threads checked nothing", what);
    printf("%s: %d threads, %ld checks\n", what, NTHREADS, checks);
}

/* Build the shared frame and array in memory, in a file and as a sparse frame,
 * and open them read-only. */
static int build_shared(const char *dir, uint8_t **frame_buf, uint8_t **array_buf)
{
    char path[512];
    the.fref = frame_reference();
    the.aref = array_reference();
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = 4;
    p.blocksize = FR_BLOCK;
    p.filters[5] = B2_FILTER_BITSHUFFLE;
    p.nthreads = 2;
    b2_schunk *s = t_new(&p);
    int ok = s && frame_fill(s, the.fref);
    size_t len = 0;
    ok = ok && b2_schunk_to_buffer(s, frame_buf, &len) == B2_OK &&
         t_open_buffer(*frame_buf, len, 0, &the.frames[0]) == B2_OK;
    b2_schunk_free(s);
    for (int k = 1; k < 3 && ok; k++) {
        snprintf(path, sizeof path, "%s/frame%d", dir, k);
        s = NULL;
        ok = (k == 1 ? t_create(path, &p, &s) : t_create_sparse(path, &p, &s)) ==
                 B2_OK &&
             b2_schunk_set_sync(s, 0) == B2_OK && frame_fill(s, the.fref);
        b2_schunk_free(s);
        ok = ok && t_open(path, B2_OPEN_READONLY, &the.frames[k]) == B2_OK;
    }
    /* the file frame again: mapped, and through user I/O */
    snprintf(path, sizeof path, "%s/frame1", dir);
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.mmap = 1;
    ok = ok && b2_schunk_open_with(&o, &the.frames[3]) == B2_OK;
    b2_open_options_init(&o);
    fd_user = open(path, O_RDONLY);
    o.io = &fd_io;
    o.io_user = &fd_user;
    o.nthreads = 2;
    ok = ok && fd_user >= 0 && b2_schunk_open_with(&o, &the.frames[4]) == B2_OK;
    CHECK(ok, "shared frames: %s", b2_last_error_message());
    if (!ok)
        return 0;
    b2_schunk_set_nthreads(the.frames[1], 2); /* each reader then decodes with 2 threads */

    b2_cparams ap;
    b2_cparams_init(&ap);
    ap.codec = B2_CODEC_LZ4;
    ap.filters[4] = B2_FILTER_SHUFFLE;
    ap.filters[5] = B2_FILTER_BYTEDELTA;
    b2_nd_params np = {.ndim = AR_NDIM, .typesize = 2, .dtype = "<i2", .cparams = &ap};
    for (int i = 0; i < AR_NDIM; i++) {
        np.shape[i] = ar_shape[i];
        np.chunkshape[i] = ar_chunk[i];
        np.blockshape[i] = ar_block[i];
    }
    for (int k = 0; k < 3 && ok; k++) {
        snprintf(path, sizeof path, "%s/array%d", dir, k);
        b2_nd_storage st = {k == 0 ? B2_STORAGE_MEMORY : k == 1 ? B2_STORAGE_FILE : B2_STORAGE_SPARSE,
                            path};
        b2_nd_array *a = NULL;
        ok = b2_nd_from_cbuffer(&np, &st, the.aref, AR_NITEMS * 2, &a) == B2_OK;
        ok = ok && b2_nd_chunkshape(a)[0] == ar_chunk[0] &&
             b2_schunk_chunk_special(b2_nd_schunk(a), 0) == B2_SPECIAL_ZEROS;
        if (k == 0)
            ok = ok && b2_nd_to_frame_buffer(a, array_buf, &len) == B2_OK &&
                 b2_nd_open_buffer(*array_buf, len, 0, &the.arrays[0]) == B2_OK;
        b2_nd_free(a);
        if (k > 0)
            ok = ok && b2_nd_open(path, B2_OPEN_READONLY, &the.arrays[k]) == B2_OK;
    }
    CHECK(ok, "shared arrays: %s", b2_last_error_message());
    if (!ok)
        return 0;
    b2_nd_set_nthreads(the.arrays[2], 2);
    return 1;
}

int main(void)
{
    char dir[] = "/tmp/b2_threads_XXXXXX";
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp\n");
        return 1;
    }
    run(own_contexts, "own contexts");

    uint8_t *frame_buf = NULL, *array_buf = NULL;
    b2_dctx *lent = b2_dctx_new(1);
    if (build_shared(dir, &frame_buf, &array_buf)) {
        /* one array decodes with a context lent to it: one read at a time takes
         * it, the others their own */
        b2_nd_set_dctx(the.arrays[1], lent);
        run(shared_reads, "shared reads");
        CHECK(b2_schunk_bytes_read(the.frames[1]) > 0 && b2_schunk_bytes_read(the.frames[2]) > 0,
              "disk frames count the bytes they read");
        for (int k = 0; k < 3; k++)
            CHECK(b2_nd_blocks_decoded(the.arrays[k]) > 0, "%s array counts decoded blocks",
                  storage_name[k]);
        CHECK(b2_dctx_blocks_decoded(lent) > 0, "the lent context decoded blocks");
    }
    for (int k = 0; k < 5; k++)
        b2_schunk_free(the.frames[k]);
    for (int k = 0; k < 3; k++)
        b2_nd_free(the.arrays[k]);
    b2_dctx_free(lent);
    free(frame_buf);
    free(array_buf);
    free((void *)the.fref);
    free((void *)the.aref);
    test_rm_tree(dir);
    return b2t_summary("test_threads");
}
