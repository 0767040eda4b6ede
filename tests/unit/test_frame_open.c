/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_schunk_open_with: its options are checked, the old open names give the same
 * super-chunks, a frame inside a larger file reads the same mapped or not, and
 * user I/O that fails gives clean errors and leaves the committed frame intact. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b2_frame.h"
#include "b2_frame_experimental.h"
#include "check.h"
#include "user_io.h"
#include "frame_open.h"

static b2_schunk *make_frame(int nchunks)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_schunk *s = t_new(&cp);
    int32_t d[2000];
    for (int c = 0; c < nchunks; c++) {
        for (int i = 0; i < 2000; i++)
            d[i] = c * 7919 + i * (c + 1);
        b2_schunk_append_buffer(s, d, sizeof d);
    }
    return s;
}

static int same_content(b2_schunk *a, b2_schunk *b)
{
    if (b2_schunk_nchunks(a) != b2_schunk_nchunks(b) || b2_schunk_nbytes(a) != b2_schunk_nbytes(b))
        return 0;
    int64_t n = b2_schunk_nbytes(a) / 4;
    int32_t *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    int ok = b2_schunk_get_items(a, 0, n, x, (size_t)n * 4) == n * 4 &&
             b2_schunk_get_items(b, 0, n, y, (size_t)n * 4) == n * 4 && !memcmp(x, y, (size_t)n * 4);
    /* a range inside one chunk: the partial (lazy or in-place) path */
    ok = ok && b2_schunk_get_items(b, 2100, 50, y, 200) == 200 && !memcmp(x + 2100, y, 200);
    free(x);
    free(y);
    return ok;
}

static void options_checked(const char *path)
{
    b2_open_options o;
    b2_schunk *s = NULL;
    b2_open_options_init(&o);
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM && !s, "no source refused");
    o.path = path;
    o.buffer = "x";
    o.buffer_len = 1;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM, "two sources refused");
    b2_open_options_init(&o);
    o.path = path;
    o.mmap = 1;
    o.flags = B2_OPEN_WRITE;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM, "mmap for writing refused");
    b2_open_options_init(&o);
    o.buffer = "abc";
    o.buffer_len = 3;
    o.offset = 1;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM, "offset into a buffer refused");
    b2_open_options_init(&o);
    o.size = 0;
    o.path = path;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM, "uninitialised options refused");
    CHECK(b2_schunk_open_with(NULL, &s) == B2_ERR_INVALID_PARAM, "NULL options refused");
    b2_open_options_init(&o);
    o.path = path;
    o.cparams = NULL;
    o.sparse = 1;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM, "sparse without create refused");
    /* a caller built against a shorter struct: the missing fields take defaults */
    b2_open_options_init(&o);
    o.path = path;
    o.size = offsetof(b2_open_options, offset);
    CHECK(b2_schunk_open_with(&o, &s) == B2_OK, "older options struct: %s", b2_last_error_message());
    b2_schunk_free(s);
}

/* A frame at an offset inside a larger file, as in an HDF5 file. */
static void frame_at_offset(const char *path, b2_schunk *ref)
{
    uint8_t *f;
    size_t len;
    b2_schunk_to_buffer(ref, &f, &len);
    FILE *fp = fopen(path, "wb");
    fwrite("0123456789abcdef", 1, 16, fp);
    fwrite(f, 1, len, fp);
    fwrite("trailing bytes", 1, 14, fp);
    fclose(fp);
    free(f);
    for (int mapped = 0; mapped < 2; mapped++) {
        b2_open_options o;
        b2_open_options_init(&o);
        o.path = path;
        o.offset = 16;
        o.mmap = mapped;
        o.nthreads = 2;
        b2_schunk *s = NULL;
        int rc = b2_schunk_open_with(&o, &s);
        CHECK(rc == B2_OK, "open at offset (mmap %d): %s", mapped, b2_last_error_message());
        if (rc < 0)
            continue;
        CHECK(same_content(ref, s), "frame at offset, mmap %d: content", mapped);
        CHECK(b2_schunk_storage(s) == B2_STORAGE_FILE, "storage kind");
        /* mapped frames are read in place: no bytes read from the file */
        CHECK(mapped ? b2_schunk_bytes_read(s) == 0 : b2_schunk_bytes_read(s) > 0,
              "bytes read, mmap %d: %lld", mapped, (long long)b2_schunk_bytes_read(s));
        CHECK(b2_schunk_append_buffer(s, "abcd", 4) == B2_ERR_READ_ONLY, "offset frame read-only");
        b2_schunk_free(s);
    }
}

static void user_io_failures(b2_schunk *ref)
{
    /* the buffer backend (user_io.h) without truncate and close; ro: without write */
    b2_io io = test_membuf_io, ro = test_membuf_io;
    io.truncate = ro.truncate = NULL;
    io.close = ro.close = NULL;
    ro.write = NULL;
    test_membuf b = {.fail_write_at = -1};
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = 4;
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.cparams = &cp;
    o.io = &io;
    o.io_user = &b;
    b2_schunk *s = NULL;
    CHECK(b2_schunk_open_with(&o, &s) == B2_OK, "create through user I/O");
    int32_t d[2000];
    for (int64_t c = 0; c < b2_schunk_nchunks(ref); c++) {
        b2_schunk_decompress_chunk(ref, c, d, sizeof d);
        b2_schunk_append_buffer(s, d, sizeof d);
    }
    CHECK(b2_schunk_storage(s) == B2_STORAGE_USER, "storage kind user");
    CHECK(same_content(ref, s), "user frame content");
    /* the device fails in the middle of the next append */
    b.fail_write_at = 1;
    b.writes = 0;
    CHECK(b2_schunk_append_buffer(s, d, sizeof d) == B2_ERR_IO, "failed user write reported");
    b.fail_write_at = -1;
    CHECK(b2_schunk_append_buffer(s, d, sizeof d) == B2_ERR_READ_ONLY,
          "handle read-only after a failed write");
    b2_schunk_free(s);
    /* the committed frame is still what it was */
    b2_open_options_init(&o);
    o.io = &ro;
    o.io_user = &b;
    o.flags = B2_OPEN_WRITE; /* no write callback: opens read-only */
    s = NULL;
    CHECK(b2_schunk_open_with(&o, &s) == B2_OK, "reopen user frame: %s", b2_last_error_message());
    CHECK(s && same_content(ref, s), "user frame intact after the failed append");
    CHECK(s && b2_schunk_append_buffer(s, d, sizeof d) == B2_ERR_READ_ONLY,
          "no write callback: read-only");
    b2_schunk_free(s);
    /* reads that fail, and a frame cut short */
    b.fail_reads = 1;
    s = NULL;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_IO && !s, "failing user reads refused");
    b.fail_reads = 0;
    b.len /= 2;
    CHECK(b2_schunk_open_with(&o, &s) < 0 && !s, "a cut user frame refused");
    free(b.p);
    b2_io none = {0};
    none.size = test_membuf_io.size;
    o.io = &none;
    CHECK(b2_schunk_open_with(&o, &s) == B2_ERR_INVALID_PARAM, "user I/O without read refused");
}

int main(void)
{
    char path[] = "/tmp/b2_frame_openXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    b2_schunk *ref = make_frame(5);
    b2_schunk *f = NULL;
    CHECK(t_create(path, NULL, &f) == B2_OK, "create");
    b2_schunk_free(f);
    options_checked(path);
    frame_at_offset(path, ref);
    user_io_failures(ref);
    b2_schunk_free(ref);
    unlink(path);
    return b2t_summary("frame open");
}
