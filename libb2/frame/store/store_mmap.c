/* SPDX-License-Identifier: BSD-3-Clause */
/* The mapped-file store: a frame file mapped read-only, so that chunks are read
 * in place as in memory, with no copy through a read buffer. The mapping is
 * taken once at open: bytes a writer appends later are not seen, and a file
 * that shrinks under the mapping faults (SIGBUS) on access, as with any mmap. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_internal.h"
#include "frame_store.h"

typedef struct map_store {
    frame_store base;
    uint8_t *map; /* the whole file (NULL when it is empty) */
    size_t maplen;
    size_t off; /* the frame's start */
    char *path;
} map_store;

static size_t map_frame_len(const map_store *m) { return m->maplen - m->off; }

static int map_read(frame_store *st, int64_t pos, void *dst, size_t n)
{
    map_store *m = (map_store *)st;
    size_t len = map_frame_len(m);
    B2_FAIL_IF(pos < 0 || (uint64_t)pos > len || n > len - (size_t)pos, B2_ERR_TRUNCATED,
               "%s: %zu bytes at offset %lld of a %zu-byte mapped frame", m->path, n,
               (long long)pos, len);
    if (n)
        memcpy(dst, m->map + m->off + pos, n);
    return B2_OK;
}

static const uint8_t *map_map(frame_store *st, size_t *len)
{
    map_store *m = (map_store *)st;
    *len = map_frame_len(m);
    return m->map ? m->map + m->off : (const uint8_t *)"";
}

static int map_read_only(frame_store *st)
{
    return B2_FAIL(B2_ERR_READ_ONLY, "%s is mapped read-only", ((map_store *)st)->path);
}

static int map_write(frame_store *st, int64_t pos, const void *src, size_t n)
{
    (void)pos, (void)src, (void)n;
    return map_read_only(st);
}

static int map_sync(frame_store *st)
{
    (void)st;
    return B2_OK;
}

static int map_truncate(frame_store *st, int64_t len)
{
    (void)len;
    return map_read_only(st);
}

static int map_length(frame_store *st, int64_t *len)
{
    *len = (int64_t)map_frame_len((map_store *)st);
    return B2_OK;
}

static int map_begin_replace(frame_store *st, frame_store **tmp)
{
    *tmp = NULL;
    return map_read_only(st);
}

static int map_finish_replace(frame_store *st, frame_store *tmp, int durable)
{
    (void)durable;
    b2_store_free(tmp);
    return map_read_only(st);
}

static void map_abort_replace(frame_store *st, frame_store *tmp)
{
    (void)st;
    b2_store_free(tmp);
}

static void map_free(frame_store *st)
{
    map_store *m = (map_store *)st;
    if (m->map)
        munmap(m->map, m->maplen);
    free(m->path);
    free(m);
}

static const frame_store_ops map_ops = {
    .kind = "mmap",
    .read = map_read,
    .map = map_map,
    .write = map_write,
    .sync = map_sync,
    .truncate = map_truncate,
    .length = map_length,
    .begin_replace = map_begin_replace,
    .finish_replace = map_finish_replace,
    .abort_replace = map_abort_replace,
    .free = map_free,
};

int b2_store_mmap(const char *path, int64_t offset, frame_store **out)
{
    *out = NULL;
    B2_FAIL_IF(!path || offset < 0, B2_ERR_INVALID_PARAM, "file %s at offset %lld",
               path ? path : "NULL", (long long)offset);
    map_store *m = calloc(1, sizeof *m);
    if (!m)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    m->base.ops = &map_ops;
    m->path = strdup(path);
    m->base.name = m->path;
    int fd = m->path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat sb;
    int rc = B2_OK;
    if (!m->path)
        rc = B2_FAIL(B2_ERR_NOMEM, "copying the path %s", path);
    else if (fd < 0 || fstat(fd, &sb) != 0)
        rc = B2_FAIL(errno == ENOENT ? B2_ERR_NOT_FOUND : B2_ERR_IO, "opening %s: %s", path,
                     strerror(errno));
    else if (!S_ISREG(sb.st_mode) || sb.st_size < offset || (uint64_t)sb.st_size > SIZE_MAX)
        rc = B2_FAIL(B2_ERR_FORMAT, "%s is not a regular file of at least %lld bytes", path,
                     (long long)offset);
    else if (sb.st_size > 0) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            rc = B2_FAIL(B2_ERR_IO, "mapping %s: %s", path, strerror(errno));
        else {
            m->map = p;
            m->maplen = (size_t)sb.st_size;
        }
    }
    m->off = (size_t)offset;
    if (fd >= 0)
        close(fd); /* the mapping keeps the file */
    if (rc < 0) {
        map_free(&m->base);
        return rc;
    }
    *out = &m->base;
    return B2_OK;
}
