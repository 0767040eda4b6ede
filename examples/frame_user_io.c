/* SPDX-License-Identifier: BSD-3-Clause */
/* frame_user_io.c: keep a frame inside a container of your own through user I/O
 * callbacks (b2_io): here a region of a larger file that starts after a
 * 4096-byte header of the caller's, reached with pread/pwrite.
 *
 * libb2 calls read/write/size/truncate/sync with positions relative to the
 * frame's first byte, in the same order as for its own frame files (new bytes
 * past the end, then the index, then one header write), so the region holds the
 * old or the new frame if the process stops between two calls.
 *
 * Run: ./frame_user_io [path]   (default example_container.bin, overwritten). */
#include <b2_frame.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE 4096 /* the container's own header comes first */
#define ITEMS 50000

typedef struct region {
    int fd;
    int64_t base;
} region;

static int64_t r_read(void *u, int64_t pos, void *dst, size_t n)
{
    region *r = u;
    return pread(r->fd, dst, n, (off_t)(r->base + pos));
}

static int64_t r_write(void *u, int64_t pos, const void *src, size_t n)
{
    region *r = u;
    return pwrite(r->fd, src, n, (off_t)(r->base + pos));
}

static int64_t r_size(void *u)
{
    region *r = u;
    struct stat st;
    return fstat(r->fd, &st) == 0 ? (int64_t)st.st_size - r->base : -1;
}

static int r_truncate(void *u, int64_t len)
{
    region *r = u;
    return ftruncate(r->fd, (off_t)(r->base + len));
}

static int r_sync(void *u) { return fsync(((region *)u)->fd); }

static const b2_io region_io = {r_read, r_write, r_size, r_truncate, r_sync, NULL};

static int fail(const char *what, int64_t rc)
{
    fprintf(stderr, "%s: %s (%s)\n", what, b2_strerror((int)rc), b2_last_error_message());
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example_container.bin";
    region reg = {open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), BASE};
    if (reg.fd < 0) {
        perror(path);
        return 1;
    }
    char header[BASE] = "my container, version 1";
    if (pwrite(reg.fd, header, BASE, 0) != BASE)
        return fail("container header", B2_ERR_IO);

    /* 1. Create a frame in the region and append three chunks of int64. */
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = sizeof(int64_t);
    cp.codec = B2_CODEC_ZSTD;
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.io = &region_io;
    o.io_user = &reg;
    o.cparams = &cp;
    b2_schunk *s;
    int rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("create", rc);
    int64_t *buf = malloc(ITEMS * sizeof *buf);
    for (int k = 0; k < 3; k++) {
        for (int64_t i = 0; i < ITEMS; i++)
            buf[i] = (k * ITEMS + i) / 7;
        int64_t n = b2_schunk_append_buffer(s, buf, ITEMS * sizeof *buf);
        if (n < 0)
            return fail("append", n);
    }
    printf("frame in %s at byte %d: %lld chunks, %lld bytes stored\n", path, BASE,
           (long long)b2_schunk_nchunks(s), (long long)b2_schunk_frame_len(s));
    b2_schunk_free(s);

    /* 2. Reopen read-only through the same callbacks and read a range of items. */
    b2_open_options_init(&o);
    o.io = &region_io;
    o.io_user = &reg;
    rc = b2_schunk_open_with(&o, &s);
    if (rc < 0)
        return fail("reopen", rc);
    int64_t few[4];
    int64_t got = b2_schunk_get_items(s, ITEMS - 2, 4, few, sizeof few);
    if (got != (int64_t)sizeof few)
        return fail("get_items", got);
    for (int j = 0; j < 4; j++)
        if (few[j] != (ITEMS - 2 + j) / 7) {
            fprintf(stderr, "wrong item %d\n", j);
            return 1;
        }
    printf("items %d..%d across chunks 0 and 1: %lld .. %lld, storage kind %d (user)\n",
           ITEMS - 2, ITEMS + 1, (long long)few[0], (long long)few[3], b2_schunk_storage(s));
    b2_schunk_free(s);

    /* 3. The container's own header is untouched. */
    char check[BASE];
    if (pread(reg.fd, check, BASE, 0) != BASE || memcmp(check, header, BASE)) {
        fprintf(stderr, "container header changed\n");
        return 1;
    }
    close(reg.fd);
    free(buf);
    printf("frame_user_io: OK\n");
    return 0;
}
