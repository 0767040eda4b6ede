/* SPDX-License-Identifier: BSD-3-Clause */
/* The file store: a frame in a file, from some offset on (a frame may sit inside
 * a larger file). A replacement is written to "<path>.b2tmp" and renamed over
 * the file, so that a crash leaves the old or the new frame; the replacement's
 * descriptor then becomes the frame's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_internal.h"
#include "store_file.h"

int b2_file_pread_all(int fd, void *dst, size_t n, int64_t pos, const char *name)
{
    uint8_t *d = dst;
    while (n > 0) {
        ssize_t r = pread(fd, d, n, (off_t)pos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return B2_FAIL(B2_ERR_IO, "%s: reading %zu bytes at %lld: %s", name, n,
                           (long long)pos, strerror(errno));
        if (r == 0)
            return B2_FAIL(B2_ERR_TRUNCATED, "%s: file ends before byte %lld (%zu more wanted)",
                           name, (long long)pos, n);
        d += r;
        n -= (size_t)r;
        pos += r;
    }
    return B2_OK;
}

int b2_file_pwrite_all(int fd, const void *src, size_t n, int64_t pos, const char *name)
{
    const uint8_t *p = src;
    while (n > 0) {
        ssize_t r = pwrite(fd, p, n, (off_t)pos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return B2_FAIL(B2_ERR_IO, "%s: writing %zu bytes at %lld: %s", name, n,
                           (long long)pos, r < 0 ? strerror(errno) : "nothing written");
        p += r;
        n -= (size_t)r;
        pos += r;
    }
    return B2_OK;
}

void b2_file_sync_parent_dir(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = 0;
    else if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

static int file_read(frame_store *st, int64_t pos, void *dst, size_t n)
{
    file_store *f = (file_store *)st;
    B2_FAIL_IF(f->fd < 0, B2_ERR_NOT_FOUND, "%s does not exist yet", f->path);
    return b2_file_pread_all(f->fd, dst, n, f->off + pos, f->path);
}

static const uint8_t *file_map(frame_store *st, size_t *len)
{
    (void)st;
    *len = 0;
    return NULL;
}

static int file_write(frame_store *st, int64_t pos, const void *src, size_t n)
{
    file_store *f = (file_store *)st;
    B2_FAIL_IF(f->fd < 0, B2_ERR_NOT_FOUND, "%s does not exist yet", f->path);
    return b2_file_pwrite_all(f->fd, src, n, f->off + pos, f->path);
}

static int file_sync(frame_store *st)
{
    file_store *f = (file_store *)st;
    if (f->fd >= 0 && fsync(f->fd) != 0)
        return B2_FAIL(B2_ERR_IO, "fsync %s: %s", f->path, strerror(errno));
    return B2_OK;
}

static int file_truncate(frame_store *st, int64_t len)
{
    file_store *f = (file_store *)st;
    if (f->fd >= 0 && ftruncate(f->fd, (off_t)(f->off + len)) != 0)
        return B2_FAIL(B2_ERR_IO, "truncating %s to %lld bytes: %s", f->path,
                       (long long)(f->off + len), strerror(errno));
    return B2_OK;
}

static int file_length(frame_store *st, int64_t *len)
{
    file_store *f = (file_store *)st;
    struct stat sb;
    B2_FAIL_IF(f->fd < 0, B2_ERR_NOT_FOUND, "%s does not exist yet", f->path);
    if (fstat(f->fd, &sb) != 0)
        return B2_FAIL(B2_ERR_IO, "fstat %s: %s", f->path, strerror(errno));
    *len = (int64_t)sb.st_size - f->off;
    return B2_OK;
}

static int file_begin_replace(frame_store *st, frame_store **tmp)
{
    file_store *f = (file_store *)st;
    *tmp = NULL;
    if (f->off != 0) /* a frame inside a larger file stays where it is */
        return B2_FAIL(B2_ERR_UNSUPPORTED, "%s: a frame at offset %lld cannot be replaced",
                       f->path, (long long)f->off);
    size_t l = strlen(f->path);
    char *path = malloc(l + 8);
    if (!path)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    memcpy(path, f->path, l);
    memcpy(path + l, ".b2tmp", 7);
    int rc = b2_store_file(path, 0, 1, 1, tmp);
    free(path);
    return rc;
}

static void file_free(frame_store *st)
{
    file_store *f = (file_store *)st;
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f->dir);
    free(f);
}

static void file_abort_replace(frame_store *st, frame_store *tmp)
{
    (void)st;
    if (tmp) {
        unlink(((file_store *)tmp)->path);
        b2_store_free(tmp);
    }
}

/* The rename is the commit point: before it the old file is intact. */
static int file_finish_replace(frame_store *st, frame_store *tmp, int durable)
{
    file_store *f = (file_store *)st, *t = (file_store *)tmp;
    int rc = B2_OK;
    if (durable && fsync(t->fd) != 0)
        rc = B2_FAIL(B2_ERR_IO, "fsync %s: %s", t->path, strerror(errno));
    if (rc >= 0 && rename(t->path, f->path) != 0)
        rc = B2_FAIL(B2_ERR_IO, "renaming %s to %s: %s", t->path, f->path, strerror(errno));
    if (rc < 0) {
        file_abort_replace(st, tmp);
        return rc;
    }
    if (durable)
        b2_file_sync_parent_dir(f->path);
    if (f->fd >= 0)
        close(f->fd);
    f->fd = t->fd; /* the renamed file is the frame now */
    t->fd = -1;
    file_free(tmp);
    return B2_OK;
}

const frame_store_ops b2_file_store_ops = {
    .kind = "file",
    .read = file_read,
    .map = file_map,
    .write = file_write,
    .sync = file_sync,
    .truncate = file_truncate,
    .length = file_length,
    .begin_replace = file_begin_replace,
    .finish_replace = file_finish_replace,
    .abort_replace = file_abort_replace,
    .free = file_free,
};

int b2_file_store_init(file_store *f, const char *path, int64_t offset, int oflags, int must_exist)
{
    f->base.ops = &b2_file_store_ops;
    f->fd = -1;
    f->off = offset;
    f->path = strdup(path);
    f->base.name = f->path;
    if (!f->path)
        return B2_FAIL(B2_ERR_NOMEM, "copying the path %s", path);
    f->fd = open(path, oflags | O_CLOEXEC, 0644);
    if (f->fd >= 0 || (!must_exist && errno == ENOENT))
        return B2_OK;
    int e = errno;
    return B2_FAIL(e == ENOENT ? B2_ERR_NOT_FOUND : B2_ERR_IO, "%s %s: %s",
                   oflags & O_CREAT ? "creating" : "opening", path, strerror(e));
}

int b2_store_file(const char *path, int64_t offset, int writable, int create,
                     frame_store **out)
{
    *out = NULL;
    B2_FAIL_IF(!path || offset < 0, B2_ERR_INVALID_PARAM, "file %s at offset %lld",
               path ? path : "NULL", (long long)offset);
    file_store *f = calloc(1, sizeof *f);
    if (!f)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    int flags = create ? O_RDWR | O_CREAT | O_TRUNC : writable ? O_RDWR : O_RDONLY;
    int rc = b2_file_store_init(f, path, offset, flags, 1);
    if (rc < 0) {
        file_free(&f->base);
        return rc;
    }
    *out = &f->base;
    return B2_OK;
}
