/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory store: a frame in one buffer, owned and growing, or borrowed and
 * read-only. Its bytes are mapped, so chunks are read in place. */
#include <stdlib.h>
#include <string.h>

#include "b2_internal.h"
#include "frame_store.h"

typedef struct mem_store {
    frame_store base;
    uint8_t *buf; /* owned bytes (NULL for a borrowed view) */
    int borrowed; /* view is the caller's: read-only */
    size_t cap;
    const uint8_t *view; /* the frame: buf, or the borrowed bytes */
    size_t len;
} mem_store;

static int mem_read(frame_store *st, int64_t pos, void *dst, size_t n)
{
    mem_store *m = (mem_store *)st;
    B2_FAIL_IF(pos < 0 || (uint64_t)pos > m->len || n > m->len - (size_t)pos, B2_ERR_TRUNCATED,
               "%zu bytes at offset %lld of a %zu-byte frame", n, (long long)pos, m->len);
    if (n)
        memcpy(dst, m->view + pos, n);
    return B2_OK;
}

static const uint8_t *mem_map(frame_store *st, size_t *len)
{
    mem_store *m = (mem_store *)st;
    *len = m->len;
    return m->view ? m->view : (const uint8_t *)"";
}

static int mem_write(frame_store *st, int64_t pos, const void *src, size_t n)
{
    mem_store *m = (mem_store *)st;
    B2_FAIL_IF(m->borrowed, B2_ERR_READ_ONLY, "a borrowed frame buffer is read-only");
    B2_FAIL_IF(pos < 0 || (uint64_t)pos > SIZE_MAX - n, B2_ERR_INVALID_PARAM,
               "write of %zu bytes at offset %lld", n, (long long)pos);
    size_t end = (size_t)pos + n;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < end)
            cap = cap > SIZE_MAX / 2 ? end : cap * 2;
        uint8_t *p = realloc(m->buf, cap);
        if (!p)
            return B2_FAIL(B2_ERR_NOMEM, "growing a frame buffer to %zu bytes", cap);
        m->buf = p;
        m->cap = cap;
        m->view = p;
    }
    memmove(m->buf + pos, src, n);
    if (end > m->len)
        m->len = end;
    return B2_OK;
}

static int mem_sync(frame_store *st)
{
    (void)st;
    return B2_OK;
}

static int mem_truncate(frame_store *st, int64_t len)
{
    mem_store *m = (mem_store *)st;
    if (len >= 0 && (uint64_t)len < m->len)
        m->len = (size_t)len;
    return B2_OK;
}

static int mem_length(frame_store *st, int64_t *len)
{
    *len = (int64_t)((mem_store *)st)->len;
    return B2_OK;
}

static int mem_begin_replace(frame_store *st, frame_store **tmp)
{
    (void)st;
    return b2_store_memory(NULL, 0, 1, tmp);
}

/* The replacement's buffer becomes st's: nothing is copied. */
static int mem_finish_replace(frame_store *st, frame_store *tmp, int durable)
{
    (void)durable;
    mem_store *m = (mem_store *)st, *t = (mem_store *)tmp;
    free(m->buf);
    m->buf = t->buf;
    m->cap = t->cap;
    m->view = t->view;
    m->len = t->len;
    m->borrowed = 0;
    t->buf = NULL;
    b2_store_free(tmp);
    return B2_OK;
}

static void mem_abort_replace(frame_store *st, frame_store *tmp)
{
    (void)st;
    b2_store_free(tmp);
}

static void mem_free(frame_store *st)
{
    free(((mem_store *)st)->buf);
    free(st);
}

static const frame_store_ops mem_ops = {
    .kind = "memory",
    .read = mem_read,
    .map = mem_map,
    .write = mem_write,
    .sync = mem_sync,
    .truncate = mem_truncate,
    .length = mem_length,
    .begin_replace = mem_begin_replace,
    .finish_replace = mem_finish_replace,
    .abort_replace = mem_abort_replace,
    .free = mem_free,
};

int b2_store_memory(const void *buf, size_t len, int copy, frame_store **out)
{
    *out = NULL;
    mem_store *m = calloc(1, sizeof *m);
    if (!m)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    m->base.ops = &mem_ops;
    if (copy && len) {
        m->buf = malloc(len);
        if (!m->buf) {
            free(m);
            return B2_FAIL(B2_ERR_NOMEM, "copying a %zu-byte frame", len);
        }
        memcpy(m->buf, buf, len);
        m->cap = len;
        m->view = m->buf;
    } else if (!copy) {
        m->view = buf;
        m->borrowed = 1;
    }
    m->len = len;
    *out = &m->base;
    return B2_OK;
}
