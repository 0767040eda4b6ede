/* SPDX-License-Identifier: BSD-3-Clause */
/* The sparse store: a directory holding chunks.b2frame (the frame's bytes: header,
 * index of chunk ids, trailer; read and replaced as a file store's) and one
 * %08X.chunk file per stored chunk. Which ids are free, and when a file may go,
 * is the super-chunk's business (sframe.c). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2_internal.h"
#include "store_file.h"

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

static char *chunk_path(const file_store *f, int64_t id)
{
    char name[32];
    if (id < 0 || id > (int64_t)UINT32_MAX)
        return NULL;
    snprintf(name, sizeof name, "%08X.chunk", (unsigned)id);
    return join(f->dir, name);
}

static int sparse_chunk_open(frame_store *st, int64_t id, frame_store **chunk)
{
    *chunk = NULL;
    char *path = chunk_path((file_store *)st, id);
    B2_FAIL_IF(!path, B2_ERR_CORRUPT, "index entry %lld names no chunk file", (long long)id);
    file_store *c = calloc(1, sizeof *c);
    int rc = c ? b2_file_store_init(c, path, 0, O_RDONLY, 1) : B2_FAIL_CODE(B2_ERR_NOMEM);
    free(path);
    if (rc < 0) {
        if (c)
            c->base.ops->free(&c->base);
        return rc;
    }
    *chunk = &c->base;
    return B2_OK;
}

static int sparse_chunk_write(frame_store *st, int64_t id, const void *src, size_t n, int durable)
{
    char *path = chunk_path((file_store *)st, id);
    if (!path)
        return B2_FAIL(B2_ERR_DOES_NOT_FIT, "chunk file id %lld", (long long)id);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = fd < 0 ? B2_FAIL(B2_ERR_IO, "creating %s: %s", path, strerror(errno))
                    : b2_file_pwrite_all(fd, src, n, 0, path);
    if (rc >= 0 && durable && fsync(fd) != 0)
        rc = B2_FAIL(B2_ERR_IO, "fsync %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(path);
    return rc;
}

static int sparse_chunk_remove(frame_store *st, int64_t id)
{
    char *path = chunk_path((file_store *)st, id);
    if (!path)
        return B2_FAIL(B2_ERR_CORRUPT, "chunk file id %lld", (long long)id);
    int rc = B2_OK;
    if (unlink(path) != 0 && errno != ENOENT)
        rc = B2_FAIL(B2_ERR_IO, "removing %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

/* Id of a chunk file name ("%08X.chunk"), or -1. */
static int64_t chunk_file_id(const char *name)
{
    for (int i = 0; i < 8; i++)
        if (!isxdigit((unsigned char)name[i]))
            return -1;
    return strcmp(name + 8, ".chunk") ? -1 : (int64_t)strtoul(name, NULL, 16);
}

static int sparse_chunk_top_id(frame_store *st, int64_t *top)
{
    file_store *f = (file_store *)st;
    DIR *d = opendir(f->dir);
    if (!d)
        return B2_FAIL(B2_ERR_IO, "listing %s: %s", f->dir, strerror(errno));
    *top = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t id = chunk_file_id(e->d_name);
        if (id > *top)
            *top = id;
    }
    closedir(d);
    return B2_OK;
}

static const frame_chunk_ops sparse_chunk_ops = {
    .chunk_open = sparse_chunk_open,
    .chunk_write = sparse_chunk_write,
    .chunk_remove = sparse_chunk_remove,
    .chunk_top_id = sparse_chunk_top_id,
};

int b2_store_sparse(const char *dir, int create, frame_store **out)
{
    *out = NULL;
    B2_FAIL_IF(!dir || !*dir, B2_ERR_INVALID_PARAM, "no directory name");
    file_store *f = calloc(1, sizeof *f);
    if (!f)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    f->base.ops = &b2_file_store_ops;
    f->fd = -1;
    f->dir = strdup(dir);
    size_t l = f->dir ? strlen(f->dir) : 0;
    if (l > 1 && f->dir[l - 1] == '/')
        f->dir[l - 1] = 0;
    char *index = f->dir ? join(f->dir, "chunks.b2frame") : NULL;
    int rc = B2_OK;
    if (!index)
        rc = B2_FAIL(B2_ERR_NOMEM, "copying the path %s", dir);
    else if (create && mkdir(f->dir, 0755) != 0)
        rc = B2_FAIL(errno == EEXIST ? B2_ERR_EXISTS : B2_ERR_IO, "creating directory %s: %s",
                     f->dir, strerror(errno));
    else /* a new directory has no chunks.b2frame until the first commit */
        rc = b2_file_store_init(f, index, 0, O_RDONLY, !create);
    free(index);
    f->base.chunks = &sparse_chunk_ops;
    if (rc < 0) {
        f->base.ops->free(&f->base);
        return rc;
    }
    *out = &f->base;
    return B2_OK;
}
