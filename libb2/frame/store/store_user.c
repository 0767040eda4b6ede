/* SPDX-License-Identifier: BSD-3-Clause */
/* The user store: a contiguous frame behind the caller's b2_io callbacks. A
 * whole-frame replacement (compaction, new metalayers on an empty frame) is
 * built in memory and then written over the frame from its start: atomic only
 * as far as the callbacks make it so. */
#include <stdlib.h>
#include <string.h>

#include "b2_frame.h"
#include "b2_internal.h"
#include "frame_store.h"

typedef struct user_store {
    frame_store base;
    const b2_io *io;
    void *user;
} user_store;

#define IO(st) (((user_store *)(st))->io)
#define USER(st) (((user_store *)(st))->user)

static int user_read(frame_store *st, int64_t pos, void *dst, size_t n)
{
    int64_t r = n ? IO(st)->read(USER(st), pos, dst, n) : 0;
    B2_FAIL_IF(r < 0, B2_ERR_IO, "user read of %zu bytes at %lld failed (%lld)", n,
               (long long)pos, (long long)r);
    B2_FAIL_IF((uint64_t)r != n, B2_ERR_TRUNCATED, "user read of %zu bytes at %lld gave %lld",
               n, (long long)pos, (long long)r);
    return B2_OK;
}

static const uint8_t *user_map(frame_store *st, size_t *len)
{
    (void)st;
    *len = 0;
    return NULL;
}

static int user_write(frame_store *st, int64_t pos, const void *src, size_t n)
{
    B2_FAIL_IF(!IO(st)->write, B2_ERR_READ_ONLY, "the user I/O has no write callback");
    int64_t r = n ? IO(st)->write(USER(st), pos, src, n) : 0;
    B2_FAIL_IF((uint64_t)r != n, B2_ERR_IO, "user write of %zu bytes at %lld failed (%lld)", n,
               (long long)pos, (long long)r);
    return B2_OK;
}

static int user_sync(frame_store *st)
{
    int r = IO(st)->sync ? IO(st)->sync(USER(st)) : 0;
    B2_FAIL_IF(r < 0, B2_ERR_IO, "user sync failed (%d)", r);
    return B2_OK;
}

static int user_truncate(frame_store *st, int64_t len)
{
    int r = IO(st)->truncate ? IO(st)->truncate(USER(st), len) : 0;
    B2_FAIL_IF(r < 0, B2_ERR_IO, "user truncate to %lld bytes failed (%d)", (long long)len, r);
    return B2_OK;
}

static int user_length(frame_store *st, int64_t *len)
{
    *len = IO(st)->size(USER(st));
    B2_FAIL_IF(*len < 0, B2_ERR_IO, "user size failed (%lld)", (long long)*len);
    return B2_OK;
}

static int user_begin_replace(frame_store *st, frame_store **tmp)
{
    *tmp = NULL;
    B2_FAIL_IF(!IO(st)->write, B2_ERR_READ_ONLY, "the user I/O has no write callback");
    return b2_store_memory(NULL, 0, 1, tmp);
}

static int user_finish_replace(frame_store *st, frame_store *tmp, int durable)
{
    size_t len;
    const uint8_t *p = tmp->ops->map(tmp, &len);
    int rc = user_write(st, 0, p, len);
    if (rc >= 0)
        rc = user_truncate(st, (int64_t)len);
    if (rc >= 0 && durable)
        rc = user_sync(st);
    b2_store_free(tmp);
    return rc;
}

static void user_abort_replace(frame_store *st, frame_store *tmp)
{
    (void)st;
    b2_store_free(tmp);
}

static void user_free(frame_store *st)
{
    if (IO(st)->close)
        IO(st)->close(USER(st));
    free(st);
}

static const frame_store_ops user_ops = {
    .kind = "user",
    .read = user_read,
    .map = user_map,
    .write = user_write,
    .sync = user_sync,
    .truncate = user_truncate,
    .length = user_length,
    .begin_replace = user_begin_replace,
    .finish_replace = user_finish_replace,
    .abort_replace = user_abort_replace,
    .free = user_free,
};

int b2_store_user(const b2_io *io, void *user, frame_store **out)
{
    *out = NULL;
    B2_FAIL_IF(!io || !io->read || !io->size, B2_ERR_INVALID_PARAM,
               "user I/O needs read and size callbacks");
    user_store *u = calloc(1, sizeof *u);
    if (!u)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    u->base.ops = &user_ops;
    u->io = io;
    u->user = user;
    *out = &u->base;
    return B2_OK;
}
