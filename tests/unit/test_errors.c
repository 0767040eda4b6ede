/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors with detail: every failure leaves "<b2_strerror>: <detail> (<function>)"
 * on the calling thread (b2_last_error_message) and in the context the call was
 * made on (b2_{cctx,dctx,schunk,nd}_last_error); the detail names the offending
 * value. Also the codes that used to share B2_ERR_INVALID_PARAM, per-thread and
 * per-context separation, and helper threads' failures reaching the caller. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "b2_chunk.h"
#include "b2_frame.h"
#include "b2_nd.h"
#include "check.h"
#include "b2_chunk_experimental.h"
#include "frame_open.h"

#define NITEMS 20000 /* int32 items: 80000 bytes, several blocks */

static int has(const char *msg, const char *part) { return msg && strstr(msg, part) != NULL; }

/* A chunk of NITEMS int32 (zstd, small blocks); returns cbytes. */
static int make_chunk(uint8_t *dst, size_t cap, int32_t blocksize)
{
    static int32_t src[NITEMS];
    for (int i = 0; i < NITEMS; i++)
        src[i] = (i * 7919) % 1000;
    b2_cparams p;
    b2_cparams_init(&p);
    p.codec = B2_CODEC_ZSTD;
    p.typesize = 4;
    p.blocksize = blocksize;
    b2_cctx *c = b2_cctx_new(&p);
    int cb = b2_chunk_compress(c, src, sizeof src, dst, cap);
    b2_cctx_free(c);
    return cb;
}

static void test_strerror(void)
{
    /* Every code, old and new, has its own non-empty text. */
    const char *seen[32];
    int n = 0;
    for (int code = B2_ERR_INVALID_PARAM; code >= B2_ERR_CALLBACK; code--) {
        const char *s = b2_strerror(code);
        CHECK(s && *s && strcmp(s, "unknown error"), "code %d has no text", code);
        for (int i = 0; i < n; i++)
            CHECK(strcmp(seen[i], s), "codes %d and %d share \"%s\"", -1 - i, code, s);
        seen[n++] = s;
    }
    CHECK(!strcmp(b2_strerror(B2_ERR_CALLBACK - 1), "unknown error"), "past the last code");
    CHECK(B2_ERR_READ_ONLY == -17 && B2_ERR_BAD_CODEC == -18 && B2_ERR_LIMIT == -19 &&
              B2_ERR_CHECKSUM == -20 && B2_ERR_CALLBACK == -21, "new codes are appended");
}

static void test_truncated_chunk(void)
{
    static uint8_t chunk[NITEMS * 4 + B2_MAX_OVERHEAD], out[NITEMS * 4];
    int cb = make_chunk(chunk, sizeof chunk, 4096);
    CHECK(cb > 0, "compress: %d", cb);
    b2_dctx *d = b2_dctx_new(1);
    CHECK(!strcmp(b2_dctx_last_error(d), ""), "fresh context has no message");
    int rc = b2_chunk_decompress(d, chunk, (size_t)cb - 10, out, sizeof out);
    char want[80];
    snprintf(want, sizeof want, "chunk cbytes %d but only %d bytes given", cb, cb - 10);
    CHECK(rc == B2_ERR_TRUNCATED, "truncated chunk: %d", rc);
    CHECK(has(b2_dctx_last_error(d), want), "dctx message: %s", b2_dctx_last_error(d));
    CHECK(has(b2_dctx_last_error(d), b2_strerror(B2_ERR_TRUNCATED)), "starts with the code's text");
    CHECK(!strcmp(b2_last_error_message(), b2_dctx_last_error(d)) &&
              b2_last_error_code() == B2_ERR_TRUNCATED,
          "thread message: %s", b2_last_error_message());
    /* A success leaves the context's last failure in place. */
    CHECK(b2_chunk_decompress(d, chunk, (size_t)cb, out, sizeof out) == NITEMS * 4, "full chunk");
    CHECK(has(b2_dctx_last_error(d), want), "kept after a success: %s", b2_dctx_last_error(d));
    /* No context: the thread's message says it. */
    b2_chunk_info info;
    CHECK(b2_chunk_get_info(chunk, 5, &info) == B2_ERR_TRUNCATED, "5-byte header");
#ifdef B2_ERROR_FUNCS /* the debug build names the function that failed */
    CHECK(has(b2_last_error_message(), "chunk of 5 bytes, a header needs 16") &&
              has(b2_last_error_message(), "(b2_chunk_get_info)"),
#else
    CHECK(has(b2_last_error_message(), "chunk of 5 bytes, a header needs 16") &&
              !has(b2_last_error_message(), "(b2_"),
#endif
          "get_info message: %s", b2_last_error_message());
    b2_dctx_free(d);
}

typedef struct rows_arg {
    pthread_t caller;
    uint8_t *out;
} rows_arg;

static int rows_fn(void *ud, int32_t block, b2_block_rows *r)
{
    rows_arg *a = ud;
    if (pthread_equal(pthread_self(), a->caller))
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    r->nd = 0;
    r->run = block == (NITEMS * 4 - 1) / 4096 ? NITEMS * 4 - block * 4096 : 4096;
    r->user = a->out + block * 4096;
    return B2_OK;
}

static void test_bad_header_field(void)
{
    static uint8_t chunk[NITEMS * 4 + B2_MAX_OVERHEAD], out[NITEMS * 4];
    int cb = make_chunk(chunk, sizeof chunk, 4096);
    b2_dctx *d = b2_dctx_new(1);
    uint8_t bad[B2_HEADER_LEN + 8];
    memcpy(bad, chunk, sizeof bad);
    bad[8] = 0xf9, bad[9] = bad[10] = bad[11] = 0xff; /* blocksize -7 */
    CHECK(b2_chunk_decompress(d, bad, sizeof bad, out, sizeof out) == B2_ERR_INVALID_HEADER,
          "blocksize -7");
    CHECK(has(b2_dctx_last_error(d), "blocksize -7 is not 1..") &&
              has(b2_dctx_last_error(d), "invalid or corrupted header"),
          "bad blocksize: %s", b2_dctx_last_error(d));
    memcpy(bad, chunk, sizeof bad);
    bad[2] = (uint8_t)((bad[2] & 0x1f) | 6 << 5); /* codec format 6: a plugin */
    CHECK(b2_chunk_decompress(d, bad, sizeof bad, out, sizeof out) < 0, "codec format 6");
    /* A damaged stream: the codec library's own words, and which block. */
    int32_t b3 = (int32_t)(chunk[32 + 12] | chunk[33 + 12] << 8 | chunk[34 + 12] << 16 |
                           (uint32_t)chunk[35 + 12] << 24);
    static uint8_t dam[sizeof chunk];
    memcpy(dam, chunk, (size_t)cb);
    memset(dam + b3 + 8, 0x5a, 24);
    int rc = b2_chunk_decompress(d, dam, (size_t)cb, out, sizeof out);
    CHECK(rc < 0 && has(b2_dctx_last_error(d), "block 3 stream "), "damaged block 3 (%d): %s",
          rc, b2_dctx_last_error(d));
    /* Multi-threaded: the failing block may be a helper thread's; its message still
     * reaches the caller and the context. */
    b2_dctx *d2 = b2_dctx_new(2);
    memcpy(dam, chunk, (size_t)cb);
    int32_t nblocks = (NITEMS * 4 + 4095) / 4096;
    uint8_t *last = dam + 32 + 4 * (nblocks - 1);
    last[0] = 0xf0, last[1] = last[2] = last[3] = 0x7f; /* last block at 0x7f7f7ff0 */
    for (int k = 0; k < 8; k++) {
        rc = b2_chunk_decompress(d2, dam, (size_t)cb, out, sizeof out);
        char want[64];
        snprintf(want, sizeof want, "block %d starts at byte 2139062256", nblocks - 1);
        CHECK(rc == B2_ERR_CORRUPT && has(b2_dctx_last_error(d2), want), "2 threads (%d): %s",
              rc, b2_dctx_last_error(d2));
    }
    /* Force a helper thread to meet the damage: the calling thread sleeps in its
     * first block's callback, so the helper decodes the rest. */
    rows_arg ra = {pthread_self(), out};
    for (int k = 0; k < 3; k++) {
        b2_chunk_info info; /* leaves another failure on this thread */
        CHECK(b2_chunk_get_info(dam, 5, &info) == B2_ERR_TRUNCATED, "5 bytes");
        rc = b2_chunk_decompress_rows(d2, dam, (size_t)cb, NULL, 0, rows_fn, &ra);
        char want[64];
        snprintf(want, sizeof want, "block %d starts at byte 2139062256", nblocks - 1);
        CHECK(rc == B2_ERR_CORRUPT && has(b2_dctx_last_error(d2), want) &&
                  has(b2_last_error_message(), want),
              "helper thread's failure (%d): %s", rc, b2_dctx_last_error(d2));
    }
    b2_dctx_free(d2);
    b2_dctx_free(d);
}

static void test_invalid_param(void)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.clevel = 12;
    CHECK(b2_cparams_check(&p) == B2_ERR_INVALID_PARAM, "clevel 12");
    CHECK(has(b2_last_error_message(), "clevel 12 is not 0..9"), "clevel: %s", b2_last_error_message());
    CHECK(b2_cctx_new(&p) == NULL && has(b2_last_error_message(), "clevel 12"),
          "cctx_new says why it returned NULL: %s", b2_last_error_message());
    b2_cparams_init(&p);
    p.typesize = 0;
    CHECK(b2_cparams_check(&p) == B2_ERR_INVALID_PARAM &&
              has(b2_last_error_message(), "typesize 0"),
          "typesize: %s", b2_last_error_message());
    b2_cparams_init(&p);
    p.codec = 42;
    CHECK(b2_cparams_check(&p) == B2_ERR_BAD_CODEC && has(b2_last_error_message(), "codec 42"),
          "unknown codec: %s", b2_last_error_message());
    b2_cparams_init(&p);
    p.filters[0] = 37;
    CHECK(b2_cparams_check(&p) == B2_ERR_INVALID_PARAM &&
              has(b2_last_error_message(), "filter id 37 in slot 0"),
          "filter: %s", b2_last_error_message());

    b2_cparams_init(&p);
    b2_cctx *c = b2_cctx_new(&p);
    uint8_t dst[64];
    CHECK(b2_chunk_compress(c, NULL, 10, dst, sizeof dst) == B2_ERR_INVALID_PARAM &&
              has(b2_cctx_last_error(c), "src is NULL"),
          "cctx message: %s", b2_cctx_last_error(c));
    b2_cctx_free(c);

    b2_nd_params np = {.ndim = 2, .shape = {10, 20}, .chunkshape = {5, 10},
                       .blockshape = {5, 20}, .typesize = 4};
    b2_nd_array *a = NULL;
    CHECK(b2_nd_create(&np, NULL, B2_ND_FILL_ZEROS, NULL, &a) == B2_ERR_INVALID_PARAM &&
              has(b2_last_error_message(), "blockshape[1] = 20 is larger than chunkshape[1] = 10"),
          "blockshape: %s", b2_last_error_message());
    np.blockshape[1] = 5;
    CHECK(b2_nd_create(&np, NULL, B2_ND_FILL_ZEROS, NULL, &a) == B2_OK, "valid array");
    CHECK(b2_nd_delete(a, 5, 0, 1) == B2_ERR_INVALID_PARAM &&
              has(b2_nd_last_error(a), "axis 5 of 2 dimensions"),
          "axis: %s", b2_nd_last_error(a));
    int64_t start[2] = {0, 0}, stop[2] = {10, 21};
    uint8_t buf[1000];
    CHECK(b2_nd_get_slice_cbuffer(a, start, stop, buf, sizeof buf) == B2_ERR_RANGE &&
              has(b2_nd_last_error(a), "dimension 1: [0, 21) outside [0, 20)"),
          "slice: %s", b2_nd_last_error(a));
    b2_nd_free(a);
}

static void test_read_only(void)
{
    b2_cparams p;
    b2_cparams_init(&p);
    p.typesize = 4;
    b2_schunk *s = t_new(&p);
    int32_t v[256] = {1, 2, 3};
    CHECK(b2_schunk_append_buffer(s, v, sizeof v) == 1, "append");
    uint8_t *frame;
    size_t len;
    CHECK(b2_schunk_to_buffer(s, &frame, &len) == B2_OK, "to_buffer");
    b2_schunk_free(s);

    /* A view of the caller's buffer cannot be written. */
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = frame;
    o.buffer_len = len;
    CHECK(b2_schunk_open_with(&o, &s) == B2_OK, "open view");
    CHECK(b2_schunk_append_buffer(s, v, sizeof v) == B2_ERR_READ_ONLY, "append on a view");
    CHECK(has(b2_schunk_last_error(s), "handle is read-only") &&
              has(b2_schunk_last_error(s), "B2_OPEN_WRITE"),
          "read-only message: %s", b2_schunk_last_error(s));
    CHECK(b2_schunk_vlmeta_add(s, "x", "y", 1) == B2_ERR_READ_ONLY, "vlmeta_add on a view");
    CHECK(b2_schunk_delete_chunk(s, 0) == B2_ERR_READ_ONLY, "delete on a view");
    /* A bad argument on a writable handle keeps its own code. */
    b2_schunk_free(s);
    o.copy_buffer = 1;
    o.flags = B2_OPEN_WRITE;
    CHECK(b2_schunk_open_with(&o, &s) == B2_OK, "open copy");
    CHECK(b2_schunk_delete_chunk(s, 7) == B2_ERR_RANGE && has(b2_schunk_last_error(s), "chunk 7 of 1"),
          "delete 7: %s", b2_schunk_last_error(s));
    CHECK(b2_schunk_meta_add(s, "", "y", 1) == B2_ERR_INVALID_PARAM &&
              has(b2_schunk_last_error(s), "metalayer name \"\""),
          "empty name: %s", b2_schunk_last_error(s));
    b2_schunk_free(s);

    /* A frame file opened without B2_OPEN_WRITE. */
    char path[] = "/tmp/b2_test_errors_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, frame, len) == (ssize_t)len, "temp file");
    close(fd);
    b2_open_options_init(&o);
    o.path = path;
    o.flags = B2_OPEN_READONLY;
    CHECK(b2_schunk_open_with(&o, &s) == B2_OK, "open file read-only");
    CHECK(b2_schunk_append_buffer(s, v, sizeof v) == B2_ERR_READ_ONLY, "append on a read-only file");
    b2_schunk_free(s);
    /* Damaged frame file: the path and the values. */
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, frame, len / 2) == (ssize_t)(len / 2), "truncate");
    close(fd);
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_TRUNCATED, "half a frame");
    char want[300];
    snprintf(want, sizeof want, "truncated: %s: %zu of the frame's %zu bytes", path, len / 2, len);
    CHECK(has(b2_last_error_message(), want), "open message: %s", b2_last_error_message());
    unlink(path);
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_NOT_FOUND &&
              has(b2_last_error_message(), path) &&
              has(b2_last_error_message(), "No such file or directory"),
          "missing file: %s", b2_last_error_message());
    free(frame);
}

/* Two threads, each failing in its own way on its own context, many times. */
typedef struct worker_arg {
    const uint8_t *chunk;
    int cb, kind, bad;
    b2_dctx *d;
    char last[B2_ERRMSG_LEN];
} worker_arg;

static void *worker(void *p)
{
    worker_arg *w = p;
    static _Thread_local uint8_t out[NITEMS * 4];
    uint8_t bad[B2_HEADER_LEN + 8];
    memcpy(bad, w->chunk, sizeof bad);
    bad[3] = 0; /* typesize 0 */
    for (int i = 0; i < 2000; i++) {
        int rc = w->kind == 0 ? b2_chunk_decompress(w->d, w->chunk, (size_t)w->cb - 3, out, sizeof out)
                              : b2_chunk_decompress(w->d, bad, sizeof bad, out, sizeof out);
        const char *want = w->kind == 0 ? "only" : "typesize is 0";
        if (rc >= 0 || !has(b2_last_error_message(), want) || !has(b2_dctx_last_error(w->d), want))
            w->bad++;
    }
    snprintf(w->last, sizeof w->last, "%s", b2_last_error_message());
    return NULL;
}

static void test_threads(void)
{
    static uint8_t chunk[NITEMS * 4 + B2_MAX_OVERHEAD];
    int cb = make_chunk(chunk, sizeof chunk, 4096);
    worker_arg a[2] = {{chunk, cb, 0, 0, b2_dctx_new(1), ""}, {chunk, cb, 1, 0, b2_dctx_new(1), ""}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &a[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(a[0].bad == 0 && a[1].bad == 0, "messages mixed up: %d, %d", a[0].bad, a[1].bad);
    CHECK(has(a[0].last, "only") && has(b2_dctx_last_error(a[0].d), "only") &&
              !has(b2_dctx_last_error(a[0].d), "typesize"),
          "thread 0: %s", b2_dctx_last_error(a[0].d));
    CHECK(has(a[1].last, "typesize is 0") && has(b2_dctx_last_error(a[1].d), "typesize is 0"),
          "thread 1: %s", b2_dctx_last_error(a[1].d));
    for (int i = 0; i < 2; i++)
        b2_dctx_free(a[i].d);
}

int main(void)
{
    test_strerror();
    test_truncated_chunk();
    test_bad_header_field();
    test_invalid_param();
    test_read_only();
    test_threads();
    return b2t_summary("errors");
}
