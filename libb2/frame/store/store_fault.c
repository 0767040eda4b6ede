/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault store: wraps another store and makes write number fail_at, and every
 * write after it, fail as if the machine had stopped there. Crash tests run each
 * modification with fail_at = 0, 1, 2, ... and check that the storage then holds
 * the old or the new frame. Writes, truncations, replacements (their writes and
 * their final rename) and chunk-file writes and removals all count. */
#include <stdlib.h>

#include "b2_internal.h"
#include "frame_store.h"

/* Shared by a fault store and the replacements it hands out. */
typedef struct fault_plan {
    int64_t fail_at, writes;
    int tear;
    int refs;
} fault_plan;

typedef struct fault_store {
    frame_store base;
    frame_store *inner;
    frame_store *owner; /* for a replacement: the inner store it will replace */
    fault_plan *plan;
} fault_store;

static int count_write(fault_plan *p)
{
    B2_FAIL_IF(p->fail_at >= 0 && p->writes >= p->fail_at, B2_ERR_IO,
               "simulated crash at write %lld", (long long)p->writes);
    p->writes++;
    return B2_OK;
}

#define INNER(st) (((fault_store *)(st))->inner)
#define PLAN(st) (((fault_store *)(st))->plan)

static int fault_read(frame_store *st, int64_t pos, void *dst, size_t n)
{
    return INNER(st)->ops->read(INNER(st), pos, dst, n);
}

static const uint8_t *fault_map(frame_store *st, size_t *len)
{
    return INNER(st)->ops->map(INNER(st), len);
}

static int fault_write(frame_store *st, int64_t pos, const void *src, size_t n)
{
    int rc = count_write(PLAN(st));
    if (rc >= 0)
        return INNER(st)->ops->write(INNER(st), pos, src, n);
    /* A write inside one 512-byte sector (the header's changing fields, a
     * metalayer update) is atomic on real disks, so only longer writes tear. */
    if (PLAN(st)->tear && n > 1 && pos / 512 != (pos + (int64_t)n - 1) / 512)
        (void)INNER(st)->ops->write(INNER(st), pos, src, n / 2);
    return rc;
}

static int fault_sync(frame_store *st)
{
    return INNER(st)->ops->sync(INNER(st));
}

static int fault_truncate(frame_store *st, int64_t len)
{
    int rc = count_write(PLAN(st));
    return rc < 0 ? rc : INNER(st)->ops->truncate(INNER(st), len);
}

static int fault_length(frame_store *st, int64_t *len)
{
    return INNER(st)->ops->length(INNER(st), len);
}

static int wrap(frame_store *inner, fault_plan *plan, frame_store **out);

static int fault_begin_replace(frame_store *st, frame_store **tmp)
{
    *tmp = NULL;
    frame_store *t;
    int rc = count_write(PLAN(st));
    if (rc >= 0)
        rc = INNER(st)->ops->begin_replace(INNER(st), &t);
    if (rc >= 0 && (rc = wrap(t, PLAN(st), tmp)) < 0)
        INNER(st)->ops->abort_replace(INNER(st), t);
    return rc;
}

/* Unwrap a replacement: give back its inner store, free the wrapper. */
static frame_store *unwrap(frame_store *tmp)
{
    frame_store *t = INNER(tmp);
    INNER(tmp) = NULL;
    tmp->ops->free(tmp);
    return t;
}

static int fault_finish_replace(frame_store *st, frame_store *tmp, int durable)
{
    int rc = count_write(PLAN(st)); /* the rename */
    frame_store *t = unwrap(tmp);
    if (rc < 0) {
        INNER(st)->ops->abort_replace(INNER(st), t);
        return rc;
    }
    return INNER(st)->ops->finish_replace(INNER(st), t, durable);
}

static void fault_abort_replace(frame_store *st, frame_store *tmp)
{
    if (tmp)
        INNER(st)->ops->abort_replace(INNER(st), unwrap(tmp));
}

static int fault_chunk_open(frame_store *st, int64_t id, frame_store **chunk)
{
    return INNER(st)->chunks->chunk_open(INNER(st), id, chunk);
}

static int fault_chunk_write(frame_store *st, int64_t id, const void *src, size_t n, int durable)
{
    int rc = count_write(PLAN(st));
    return rc < 0 ? rc : INNER(st)->chunks->chunk_write(INNER(st), id, src, n, durable);
}

static int fault_chunk_remove(frame_store *st, int64_t id)
{
    int rc = count_write(PLAN(st));
    return rc < 0 ? rc : INNER(st)->chunks->chunk_remove(INNER(st), id);
}

static int fault_chunk_top_id(frame_store *st, int64_t *top)
{
    return INNER(st)->chunks->chunk_top_id(INNER(st), top);
}

static void fault_free(frame_store *st)
{
    fault_store *f = (fault_store *)st;
    b2_store_free(f->inner);
    if (--f->plan->refs == 0)
        free(f->plan);
    free(f);
}

static const frame_store_ops fault_ops = {
    .kind = "fault",
    .read = fault_read,
    .map = fault_map,
    .write = fault_write,
    .sync = fault_sync,
    .truncate = fault_truncate,
    .length = fault_length,
    .begin_replace = fault_begin_replace,
    .finish_replace = fault_finish_replace,
    .abort_replace = fault_abort_replace,
    .free = fault_free,
};

static const frame_chunk_ops fault_chunk_ops = {
    .chunk_open = fault_chunk_open,
    .chunk_write = fault_chunk_write,
    .chunk_remove = fault_chunk_remove,
    .chunk_top_id = fault_chunk_top_id,
};

static int wrap(frame_store *inner, fault_plan *plan, frame_store **out)
{
    fault_store *f = calloc(1, sizeof *f);
    if (!f)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    f->base.ops = &fault_ops;
    f->base.chunks = inner->chunks ? &fault_chunk_ops : NULL;
    f->base.name = inner->name;
    f->inner = inner;
    f->plan = plan;
    plan->refs++;
    *out = &f->base;
    return B2_OK;
}

int b2_store_fault(frame_store *inner, int64_t fail_at, int tear, frame_store **out)
{
    *out = NULL;
    fault_plan *p = calloc(1, sizeof *p);
    if (!p)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    p->fail_at = fail_at;
    p->tear = tear;
    int rc = wrap(inner, p, out);
    if (rc < 0)
        free(p);
    return rc;
}

void b2_store_fault_set(frame_store *st, int64_t fail_at, int tear)
{
    if (st->ops == &fault_ops) {
        PLAN(st)->fail_at = fail_at;
        PLAN(st)->tear = tear;
    }
}
