/* SPDX-License-Identifier: BSD-3-Clause */
/* Sparse frames (doc/format/sframe.md): a directory holding chunks.b2frame (header, index of
 * chunk ids, trailer) and one %08X.chunk file per stored chunk. New chunks always
 * get a fresh id and chunks.b2frame is replaced atomically, so a crash leaves the
 * old or the new super-chunk; files no longer referenced are removed only after
 * the new index is in place.
 *
 * Ids are never reused. A reader that loaded an older index may still open the
 * files it names; a removed chunk's file is then missing (a clean error), but
 * if its id had gone to a new chunk the reader would take that chunk for the
 * old one. A new id is therefore above every id in the index and every chunk
 * file in the directory, and the file of the highest id ever used is not
 * removed with its chunk but kept, unreferenced, so that later writers see it,
 * until a higher id is committed. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frame_internal.h"

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

static char *chunk_path(const b2_schunk *s, int64_t id)
{
    char name[32];
    if (id < 0 || id > (int64_t)UINT32_MAX)
        return NULL;
    snprintf(name, sizeof name, "%08X.chunk", (unsigned)id);
    return join(s->path, name);
}

/* Open chunk file id and check its size; *fd stays open on success. */
static int open_chunk(const b2_schunk *s, int64_t id, int *fd, int64_t *size)
{
    char *path = chunk_path(s, id);
    B2_FAIL_IF(!path, B2_ERR_CORRUPT, "index entry %lld names no chunk file", (long long)id);
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = B2_OK;
    struct stat st;
    if (*fd < 0)
        rc = B2_FAIL(B2_ERR_NOT_FOUND, "%s: %s", path, strerror(errno));
    else if (fstat(*fd, &st) != 0)
        rc = B2_FAIL(B2_ERR_IO, "%s: %s", path, strerror(errno));
    else if (st.st_size < B2_MIN_HEADER_LEN || st.st_size > INT32_MAX)
        rc = B2_FAIL(B2_ERR_CORRUPT, "%s: %lld bytes is no chunk", path, (long long)st.st_size);
    else
        *size = st.st_size;
    if (rc < 0 && *fd >= 0)
        close(*fd);
    free(path);
    return rc;
}

/* Read n bytes at off of an open chunk file (n within its size). */
static int read_at(int fd, int64_t id, uint8_t *dst, size_t n, off_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, dst + done, n - done, off + (off_t)done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? B2_FAIL(B2_ERR_IO, "reading chunk file %08llX: %s",
                                   (unsigned long long)id, strerror(errno))
                         : B2_FAIL(B2_ERR_TRUNCATED, "chunk file %08llX shrank while read",
                                   (unsigned long long)id);
        done += (size_t)r;
    }
    return B2_OK;
}

int b2_sframe_read_chunk(b2_schunk *s, frame_rd *r, int64_t id, int32_t *size)
{
    int fd;
    int64_t n = 0;
    int rc = open_chunk(s, id, &fd, &n);
    if (rc < 0)
        return rc;
    rc = b2_frame_rd_scratch(r, (size_t)n);
    if (rc >= 0)
        rc = read_at(fd, id, r->scratch, (size_t)n, 0);
    close(fd);
    if (rc < 0)
        return rc;
    b2_fio_count(s, n);
    *size = (int32_t)n;
    return B2_OK;
}

int b2_sframe_read_header(b2_schunk *s, int64_t id, uint8_t *hdr, int32_t *size)
{
    int fd;
    int64_t n = 0;
    int rc = open_chunk(s, id, &fd, &n);
    if (rc < 0)
        return rc;
    size_t want = n < B2_HEADER_LEN ? (size_t)n : B2_HEADER_LEN;
    memset(hdr, 0, B2_HEADER_LEN);
    rc = read_at(fd, id, hdr, want, 0);
    close(fd);
    if (rc < 0)
        return rc;
    b2_fio_count(s, (int64_t)want);
    *size = (int32_t)n;
    return B2_OK;
}

int b2_sframe_write_chunk(b2_schunk *s, int64_t id, const uint8_t *chunk, int32_t len)
{
    char *path = chunk_path(s, id);
    if (!path)
        return B2_FAIL_CODE(B2_ERR_DOES_NOT_FIT);
    int rc = b2_fio_hook(s);
    int fd = -1;
    if (rc >= 0) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        rc = fd < 0 ? B2_FAIL(B2_ERR_IO, "creating %s: %s", path, strerror(errno)) : B2_OK;
    }
    size_t done = 0;
    while (rc >= 0 && done < (size_t)len) {
        ssize_t r = write(fd, chunk + done, (size_t)len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            rc = B2_FAIL(B2_ERR_IO, "writing %s: %s", path, r < 0 ? strerror(errno) : "nothing written");
        else
            done += (size_t)r;
    }
    if (rc >= 0 && !s->nosync && fsync(fd) != 0)
        rc = B2_FAIL(B2_ERR_IO, "fsync %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(path);
    if (rc < 0)
        s->writable = 0;
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

/* Learn the highest id in use: in the index or as a file in the directory (a
 * kept file, or one a crashed writer left). Once per handle. */
static int scan_ids(b2_schunk *s)
{
    if (s->sparse_next_id > 0)
        return B2_OK;
    int64_t top = -1, top_index;
    for (int64_t i = 0; i < s->nchunks; i++)
        if (frame_entry(s, i) > top)
            top = frame_entry(s, i);
    top_index = top;
    DIR *d = opendir(s->path);
    if (!d)
        return B2_FAIL(B2_ERR_IO, "listing %s: %s", s->path, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t id = chunk_file_id(e->d_name);
        if (id > top)
            top = id;
    }
    closedir(d);
    s->sparse_next_id = top + 1;
    s->sparse_marker_id = top > top_index ? top : -1;
    return B2_OK;
}

int b2_sframe_new_id(b2_schunk *s, int64_t *id)
{
    int rc = scan_ids(s);
    if (rc < 0)
        return rc;
    B2_FAIL_IF(s->sparse_next_id > (int64_t)UINT32_MAX, B2_ERR_DOES_NOT_FIT,
               "chunk file ids of %s are used up", s->path);
    *id = s->sparse_next_id++;
    return B2_OK;
}

static int unlink_chunk(b2_schunk *s, int64_t id)
{
    char *path = chunk_path(s, id);
    if (!path)
        return B2_FAIL_CODE(B2_ERR_CORRUPT);
    int rc = B2_OK;
    if (unlink(path) != 0 && errno != ENOENT)
        rc = B2_FAIL(B2_ERR_IO, "removing %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

/* Remove the kept file once a higher id is committed (best effort: it is only
 * garbage now). */
static void drop_marker(b2_schunk *s)
{
    if (s->sparse_next_id > 0 && s->sparse_marker_id >= 0 &&
        s->sparse_marker_id < s->sparse_next_id - 1) {
        (void)unlink_chunk(s, s->sparse_marker_id);
        s->sparse_marker_id = -1;
    }
}

int b2_sframe_remove_chunk(b2_schunk *s, int64_t id)
{
    int rc = scan_ids(s);
    if (rc >= 0)
        rc = b2_fio_hook(s);
    if (rc >= 0 && id == s->sparse_next_id - 1) {
        s->sparse_marker_id = id; /* the highest id: keep the file */
    } else if (rc >= 0) {
        rc = unlink_chunk(s, id);
    }
    if (rc < 0)
        s->writable = 0;
    return rc;
}

int b2_sframe_commit(b2_schunk *s, int runlength_index)
{
    uint8_t *idx, *trl, *buf = NULL;
    int32_t idx_len;
    int64_t trl_len;
    int rc = b2_frame_build_meta_parts(s, runlength_index, &idx, &idx_len, &trl, &trl_len);
    if (rc < 0)
        return rc;
    s->h.frame_type = FRAME_TYPE_SPARSE;
    s->h.frame_len = s->h.header_len + idx_len + trl_len;
    char *path = join(s->path, "chunks.b2frame");
    buf = malloc((size_t)s->h.frame_len);
    rc = buf && path ? b2_frame_header_write(&s->h, s->meta, s->nmeta, buf)
                     : B2_FAIL(B2_ERR_NOMEM, "frame of %lld bytes", (long long)s->h.frame_len);
    if (rc >= 0) {
        if (idx_len)
            memcpy(buf + s->h.header_len, idx, (size_t)idx_len);
        memcpy(buf + s->h.header_len + idx_len, trl, (size_t)trl_len);
        rc = b2_fio_replace_file(s, path, buf, (size_t)s->h.frame_len);
    }
    if (rc >= 0)
        drop_marker(s);
    s->trailer_len = trl_len;
    free(path);
    free(buf);
    free(idx);
    free(trl);
    return rc;
}

int b2_sframe_load(b2_schunk *s)
{
    char *path = join(s->path, "chunks.b2frame");
    if (!path)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        int rc = B2_FAIL(B2_ERR_NOT_FOUND, "%s: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    free(path);
    struct stat st;
    int rc = fstat(s->fd, &st) == 0 ? b2_frame_load(s, (int64_t)st.st_size)
                                    : B2_FAIL(B2_ERR_IO, "fstat: %s", strerror(errno));
    /* Everything needed later is in memory now; chunk files are opened on demand. */
    close(s->fd);
    s->fd = -1;
    return rc;
}

int b2_schunk_create_sframe(const char *dir, const b2_cparams *cparams, b2_schunk **out)
{
    *out = NULL;
    B2_FAIL_IF(!dir || !*dir, B2_ERR_INVALID_PARAM, "no directory name");
    if (cparams && b2_cparams_check(cparams) < 0)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s", b2_err_detail());
    b2_schunk *s = b2_schunk_alloc(cparams);
    if (!s)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    s->storage = B2_STORAGE_SPARSE;
    s->writable = 1;
    s->h.frame_type = FRAME_TYPE_SPARSE;
    s->path = strdup(dir);
    size_t l = s->path ? strlen(s->path) : 0;
    if (l > 1 && (s->path[l - 1] == '/' || s->path[l - 1] == '\\'))
        s->path[l - 1] = 0;
    int rc = B2_OK;
    if (!s->path)
        rc = B2_FAIL(B2_ERR_NOMEM, "copying the path %s", dir);
    else if (mkdir(s->path, 0755) != 0)
        rc = B2_FAIL(errno == EEXIST ? B2_ERR_EXISTS : B2_ERR_IO, "creating directory %s: %s",
                     s->path, strerror(errno));
    if (rc >= 0)
        rc = b2_sframe_commit(s, 0);
    if (rc < 0) {
        b2_schunk_free(s);
        return rc;
    }
    *out = s;
    return B2_OK;
}
