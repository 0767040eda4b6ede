/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame-relative I/O on the storage of a contiguous frame (a memory buffer or a
 * file at some offset), plus atomic whole-file replacement and a write-counting
 * hook that lets tests simulate a crash at any write boundary. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_internal.h"

int b2_fio_hook(b2_schunk *s)
{
    B2_FAIL_IF(s->io_fail_at >= 0 && s->io_writes >= s->io_fail_at, B2_ERR_IO,
               "simulated crash at write %lld", (long long)s->io_writes);
    s->io_writes++;
    return B2_OK;
}

static int pread_all(int fd, void *dst, size_t n, int64_t pos)
{
    uint8_t *d = dst;
    while (n > 0) {
        ssize_t r = pread(fd, d, n, (off_t)pos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return B2_FAIL(B2_ERR_IO, "reading %zu bytes at %lld: %s", n, (long long)pos,
                           strerror(errno));
        if (r == 0)
            return B2_FAIL(B2_ERR_TRUNCATED, "file ends before byte %lld (%zu more wanted)",
                           (long long)pos, n);
        d += r;
        n -= (size_t)r;
        pos += r;
    }
    return B2_OK;
}

static int pwrite_all(int fd, const void *src, size_t n, int64_t pos)
{
    const uint8_t *p = src;
    while (n > 0) {
        ssize_t r = pwrite(fd, p, n, (off_t)pos);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return B2_FAIL(B2_ERR_IO, "writing %zu bytes at %lld: %s", n, (long long)pos,
                           r < 0 ? strerror(errno) : "nothing written");
        p += r;
        n -= (size_t)r;
        pos += r;
    }
    return B2_OK;
}

int b2_fio_read(b2_schunk *s, int64_t pos, void *dst, size_t n)
{
    B2_FAIL_IF(pos < 0, B2_ERR_RANGE, "read at frame offset %lld", (long long)pos);
    if (s->storage == B2_STORAGE_MEMORY) {
        B2_FAIL_IF((uint64_t)pos > s->view_len || n > s->view_len - (size_t)pos, B2_ERR_TRUNCATED,
                   "%zu bytes at offset %lld of a %zu-byte frame", n, (long long)pos, s->view_len);
        memcpy(dst, s->view + pos, n);
        return B2_OK;
    }
    int rc = pread_all(s->fd, dst, n, s->file_off + pos);
    if (rc >= 0)
        b2_fio_count(s, (int64_t)n);
    if (rc < 0 && s->path)
        return B2_FAIL(rc, "%s: %s", s->path, b2_err_detail());
    return rc;
}

static int fio_write_impl(b2_schunk *s, int64_t pos, const void *src, size_t n);

/* Any failed write leaves the handle's state ahead of its storage: refuse further
 * modifications (the storage itself holds the old or the new frame). */
int b2_fio_write(b2_schunk *s, int64_t pos, const void *src, size_t n)
{
    int rc = fio_write_impl(s, pos, src, n);
    if (rc < 0)
        s->writable = 0;
    return rc;
}

static int fio_write_impl(b2_schunk *s, int64_t pos, const void *src, size_t n)
{
    B2_FAIL_IF(!s->writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(pos < 0, B2_ERR_INVALID_PARAM, "write at frame offset %lld", (long long)pos);
    int rc = b2_fio_hook(s);
    if (rc < 0) {
        /* Simulated crash in the middle of this write. A write inside one 512-byte
         * sector (the header's changing fields, a metalayer update) is atomic on
         * real disks, so only longer writes are torn. */
        int64_t a = s->file_off + pos, b = a + (int64_t)n - 1;
        if (s->io_tear && s->storage == B2_STORAGE_FILE && n > 1 && a / 512 != b / 512)
            pwrite_all(s->fd, src, n / 2, s->file_off + pos);
        return rc;
    }
    if (s->storage == B2_STORAGE_MEMORY) {
        size_t end = (size_t)pos + n;
        if (end > s->buf_cap) {
            size_t cap = s->buf_cap ? s->buf_cap : 4096;
            while (cap < end)
                cap *= 2;
            uint8_t *p = realloc(s->buf, cap);
            if (!p)
                return B2_FAIL_CODE(B2_ERR_NOMEM);
            s->buf = p;
            s->buf_cap = cap;
            s->view = p;
        }
        memmove(s->buf + pos, src, n);
        if (end > s->view_len)
            s->view_len = end;
        return B2_OK;
    }
    rc = pwrite_all(s->fd, src, n, s->file_off + pos);
    if (rc < 0 && s->path)
        return B2_FAIL(rc, "%s: %s", s->path, b2_err_detail());
    return rc;
}

int b2_fio_sync(b2_schunk *s)
{
    if (s->storage == B2_STORAGE_MEMORY || s->nosync)
        return B2_OK;
    if (fsync(s->fd) != 0)
        return B2_FAIL(B2_ERR_IO, "fsync %s: %s", s->path ? s->path : "frame", strerror(errno));
    return B2_OK;
}

int b2_fio_truncate(b2_schunk *s, int64_t len)
{
    int rc = b2_fio_hook(s);
    if (rc < 0) {
        s->writable = 0;
        return rc;
    }
    if (s->storage == B2_STORAGE_MEMORY) {
        if ((uint64_t)len < s->view_len)
            s->view_len = (size_t)len;
        return B2_OK;
    }
    if (ftruncate(s->fd, (off_t)(s->file_off + len)) != 0)
        return B2_FAIL(B2_ERR_IO, "truncating %s to %lld bytes: %s", s->path ? s->path : "frame",
                       (long long)(s->file_off + len), strerror(errno));
    return B2_OK;
}

static void sync_parent_dir(const char *path)
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

int b2_fio_pwrite_fd(b2_schunk *s, int fd, const void *src, size_t n, int64_t pos)
{
    int rc = b2_fio_hook(s);
    return rc < 0 ? rc : pwrite_all(fd, src, n, pos);
}

int b2_fio_rename(b2_schunk *s, const char *tmp, const char *path)
{
    int rc = b2_fio_hook(s);
    if (rc >= 0 && rename(tmp, path) != 0)
        rc = B2_FAIL(B2_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
    if (rc >= 0 && !s->nosync)
        sync_parent_dir(path);
    return rc;
}

int b2_fio_replace_file(b2_schunk *s, const char *path, const uint8_t *data, size_t n)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 8);
    if (!tmp)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".b2tmp", 7);
    int rc = b2_fio_hook(s);
    int fd = -1;
    if (rc >= 0) {
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        rc = fd < 0 ? B2_FAIL(B2_ERR_IO, "creating %s: %s", tmp, strerror(errno))
                    : pwrite_all(fd, data, n, 0);
    }
    if (rc >= 0 && !s->nosync && fsync(fd) != 0)
        rc = B2_FAIL(B2_ERR_IO, "fsync %s: %s", tmp, strerror(errno));
    if (fd >= 0)
        close(fd);
    /* The rename is the commit point: before it the old file is intact. */
    if (rc >= 0)
        rc = b2_fio_hook(s);
    if (rc >= 0 && rename(tmp, path) != 0)
        rc = B2_FAIL(B2_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
    if (rc < 0) {
        unlink(tmp);
        s->writable = 0;
    } else if (!s->nosync)
        sync_parent_dir(path);
    free(tmp);
    return rc;
}
