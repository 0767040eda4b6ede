/* SPDX-License-Identifier: BSD-3-Clause */
/* The super-chunk's I/O through its store (frame_store.h), with the handle's
 * policy on top: a read-only handle refuses writes, bytes read are counted, and
 * after any failed write the handle's state is ahead of its storage, so it
 * refuses further modifications (the storage itself holds the old or the new
 * frame). */
#include <string.h>

#include "frame_internal.h"

int b2_fio_read(b2_schunk *s, int64_t pos, void *dst, size_t n)
{
    B2_FAIL_IF(pos < 0, B2_ERR_RANGE, "read at frame offset %lld", (long long)pos);
    int rc = s->io.store->ops->read(s->io.store, pos, dst, n);
    size_t mapped;
    if (rc >= 0 && !b2_fio_map(s, &mapped)) /* storage reads only, not memory copies */
        b2_fio_count(s, (int64_t)n);
    return rc;
}

/* A failed write makes the handle read-only; rc passes through. */
static int fio_failed(b2_schunk *s, int rc)
{
    if (rc < 0)
        s->io.writable = 0;
    return rc;
}

int b2_fio_write(b2_schunk *s, int64_t pos, const void *src, size_t n)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    B2_FAIL_IF(pos < 0, B2_ERR_INVALID_PARAM, "write at frame offset %lld", (long long)pos);
    return fio_failed(s, s->io.store->ops->write(s->io.store, pos, src, n));
}

int b2_fio_sync(b2_schunk *s)
{
    return s->io.nosync ? B2_OK : fio_failed(s, s->io.store->ops->sync(s->io.store));
}

int b2_fio_truncate(b2_schunk *s, int64_t len)
{
    return fio_failed(s, s->io.store->ops->truncate(s->io.store, len));
}

int b2_fio_begin_replace(b2_schunk *s, frame_store **tmp)
{
    B2_FAIL_IF(!s->io.writable, B2_ERR_READ_ONLY, B2_READ_ONLY_WHY);
    return s->io.store->ops->begin_replace(s->io.store, tmp);
}

int b2_fio_finish_replace(b2_schunk *s, frame_store *tmp)
{
    return fio_failed(s, s->io.store->ops->finish_replace(s->io.store, tmp, !s->io.nosync));
}

void b2_fio_abort_replace(b2_schunk *s, frame_store *tmp)
{
    s->io.store->ops->abort_replace(s->io.store, tmp);
}

int b2_fio_replace(b2_schunk *s, const uint8_t *data, size_t n)
{
    frame_store *tmp;
    int rc = b2_fio_begin_replace(s, &tmp);
    if (rc >= 0 && (rc = tmp->ops->write(tmp, 0, data, n)) < 0)
        b2_fio_abort_replace(s, tmp);
    else if (rc >= 0)
        return b2_fio_finish_replace(s, tmp);
    return fio_failed(s, rc);
}

const uint8_t *b2_fio_map(b2_schunk *s, size_t *len)
{
    return s->io.store->ops->map(s->io.store, len);
}

int b2_fio_length(b2_schunk *s, int64_t *len)
{
    return s->io.store->ops->length(s->io.store, len);
}

int b2_schunk_inject_write_faults(b2_schunk *s, int64_t fail_at, int tear)
{
    B2_FAIL_IF(!s, B2_ERR_INVALID_PARAM, "schunk is NULL");
    if (!strcmp(s->io.store->ops->kind, "fault")) {
        b2_store_fault_set(s->io.store, fail_at, tear);
        return B2_OK;
    }
    frame_store *f;
    int rc = b2_store_fault(s->io.store, fail_at, tear, &f);
    if (rc >= 0)
        s->io.store = f;
    return rc;
}
