/* SPDX-License-Identifier: BSD-3-Clause */
/* The life of a super-chunk handle: allocating, opening and creating (one call
 * takes every option, b2_schunk_open_with, and picks the store), and freeing. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "frame_internal.h"

void b2_open_options_init(b2_open_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
}

b2_schunk *b2_schunk_alloc(const b2_cparams *cp)
{
    b2_cparams def;
    if (!cp) {
        b2_cparams_init(&def);
        cp = &def;
    }
    if (cp->nthreads > 256) { /* what a decoding context takes (readers make them later) */
        b2_err_record(B2_ERR_INVALID_PARAM, __func__, "%d threads, at most 256", cp->nthreads);
        return NULL;
    }
    b2_schunk *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->codec.cparams = *cp;
    s->io.place = b2_frame_place_for(s->io.storage);
    s->codec.nthreads = cp->nthreads > 0 ? cp->nthreads : 1;
    if (pthread_mutex_init(&s->readers.mu, NULL) != 0) {
        free(s);
        return NULL;
    }
    b2_frame_header_init(&s->head.h, cp, 0);
    s->head.h.header_len = (int32_t)b2_frame_header_size(NULL, 0);
    return s;
}

void b2_schunk_free(b2_schunk *s)
{
    if (!s)
        return;
    if (s->io.commit_pending) /* deferred appends are committed, best effort */
        (void)b2_frame_commit(s, 0);
    b2_frame_meta_free_all(s->head.meta, s->head.nmeta);
    b2_frame_meta_free_all(s->head.vlmeta, s->head.nvlmeta);
    free(s->head.vlmeta);
    b2_frame_sums_free(s->check.table);
    free(s->ix.entries);
    b2_store_free(s->io.store);
    free(s->io.path);
    b2_frame_rd_drop(s);
    pthread_mutex_destroy(&s->readers.mu);
    b2_cctx_free(s->codec.cctx);
    free(s->codec.cbuf);
    free(s);
}

/* Exactly one source (none: a new frame in memory); options that fit it. */
static int check_options(const b2_open_options *o, int create, int write)
{
    int sources = (o->path != NULL) + (o->buffer != NULL || o->buffer_len > 0) + (o->io != NULL);
    B2_FAIL_IF(sources > 1, B2_ERR_INVALID_PARAM, "open options name %d sources (path, buffer, io)",
               sources);
    B2_FAIL_IF(sources == 0 && !create, B2_ERR_INVALID_PARAM,
               "open options name no path, buffer or io");
    B2_FAIL_IF(create && o->buffer, B2_ERR_INVALID_PARAM,
               "B2_OPEN_CREATE makes a new frame: it takes no buffer");
    B2_FAIL_IF(o->offset < 0 || (o->offset > 0 && !o->path), B2_ERR_INVALID_PARAM,
               "offset %lld (files only)", (long long)o->offset);
    B2_FAIL_IF(o->mmap && (!o->path || write), B2_ERR_INVALID_PARAM,
               "mmap maps a file read-only");
    B2_FAIL_IF(o->sparse && !(create && o->path), B2_ERR_INVALID_PARAM,
               "sparse: with B2_OPEN_CREATE and a path (opening tells a directory by itself)");
    B2_FAIL_IF(create && o->offset, B2_ERR_INVALID_PARAM, "B2_OPEN_CREATE at an offset");
    B2_FAIL_IF(o->cparams && !create, B2_ERR_INVALID_PARAM, "cparams: with B2_OPEN_CREATE only");
    B2_FAIL_IF(o->checksums < B2_CHECKSUMS_KEEP || o->checksums > B2_CHECKSUMS_IGNORE,
               B2_ERR_INVALID_PARAM, "checksums policy %d", o->checksums);
    B2_FAIL_IF(!write && (o->checksums == B2_CHECKSUMS_ON || o->checksums == B2_CHECKSUMS_OFF),
               B2_ERR_INVALID_PARAM, "checksums ON or OFF change the frame: open it writable");
    return B2_OK;
}

/* The store and storage kind for an existing frame at o's source. */
static int open_store(b2_schunk *s, const b2_open_options *o)
{
    if (o->io) {
        s->io.storage = B2_STORAGE_USER;
        s->io.writable = s->io.writable && o->io->write;
        return b2_store_user(o->io, o->io_user, &s->io.store);
    }
    if (!o->path) {
        s->io.storage = B2_STORAGE_MEMORY;
        s->io.writable = s->io.writable && o->copy_buffer;
        return b2_store_memory(o->buffer, o->buffer_len, o->copy_buffer, &s->io.store);
    }
    struct stat st;
    if (stat(o->path, &st) != 0)
        return B2_FAIL(errno == ENOENT ? B2_ERR_NOT_FOUND : B2_ERR_IO, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        B2_FAIL_IF(o->offset != 0 || o->mmap, B2_ERR_INVALID_PARAM,
                   "a sparse frame: no offset, no mmap");
        s->io.storage = B2_STORAGE_SPARSE;
        return b2_store_sparse(o->path, 0, &s->io.store);
    }
    s->io.storage = B2_STORAGE_FILE;
    B2_FAIL_IF(!S_ISREG(st.st_mode) || st.st_size < o->offset, B2_ERR_FORMAT,
               "not a regular file of at least %lld bytes", (long long)o->offset);
    /* Writes go past the frame's end, which would clobber what follows it. */
    s->io.writable = s->io.writable && o->offset == 0;
    return o->mmap ? b2_store_mmap(o->path, o->offset, &s->io.store)
                   : b2_store_file(o->path, o->offset, s->io.writable, 0, &s->io.store);
}

/* A new store for B2_OPEN_CREATE, and the empty frame written to it. */
static int create_store(b2_schunk *s, const b2_open_options *o)
{
    int rc;
    if (o->io) {
        s->io.storage = B2_STORAGE_USER;
        rc = b2_store_user(o->io, o->io_user, &s->io.store);
    } else if (!o->path) {
        s->io.storage = B2_STORAGE_MEMORY;
        rc = b2_store_memory(NULL, 0, 1, &s->io.store);
    } else if (o->sparse) {
        s->io.storage = B2_STORAGE_SPARSE;
        s->head.h.frame_type = FRAME_TYPE_SPARSE;
        rc = b2_store_sparse(o->path, 1, &s->io.store);
    } else {
        s->io.storage = B2_STORAGE_FILE;
        rc = b2_store_file(o->path, 0, 1, 1, &s->io.store);
    }
    if (rc < 0)
        return rc;
    s->io.place = b2_frame_place_for(s->io.storage);
    return b2_frame_commit(s, 0);
}

static int open_with(const b2_open_options *o, b2_schunk **out)
{
    int create = (o->flags & B2_OPEN_CREATE) != 0;
    int rc = check_options(o, create, create || (o->flags & B2_OPEN_WRITE));
    if (rc < 0)
        return rc;
    if (create && o->cparams && (rc = b2_cparams_check(o->cparams)) < 0)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s", b2_err_detail());
    b2_schunk *s = b2_schunk_alloc(create ? o->cparams : NULL);
    if (!s)
        return B2_FAIL_CODE(B2_ERR_NOMEM);
    s->mem_limit = o->memory_limit > 0 ? o->memory_limit : 0;
    s->io.writable = create || (o->flags & B2_OPEN_WRITE);
    s->io.offset = o->offset;
    s->io.mmap = o->mmap;
    if (o->path) {
        size_t l = strlen(o->path);
        s->io.path = strdup(o->path);
        if (s->io.path && l > 1 && s->io.path[l - 1] == '/') /* a directory named with its slash */
            s->io.path[l - 1] = 0;
        if (!s->io.path)
            rc = B2_FAIL(B2_ERR_NOMEM, "copying the path %s", o->path);
    }
    if (rc >= 0 && create) {
        rc = create_store(s, o);
    } else if (rc >= 0) {
        int64_t len = 0;
        rc = open_store(s, o);
        s->io.place = b2_frame_place_for(s->io.storage);
        if (rc >= 0)
            rc = b2_fio_length(s, &len);
        if (rc >= 0)
            rc = b2_frame_load(s, len);
    }
    if (rc >= 0)
        rc = b2_frame_sums_load(s, o->checksums);
    if (rc >= 0 && s->io.writable && (o->checksums == B2_CHECKSUMS_ON || o->checksums == B2_CHECKSUMS_OFF))
        rc = b2_schunk_set_checksums_body(s, o->checksums);
    s->check.verify = o->verify != 0;
    if (rc >= 0 && o->nthreads > 1)
        rc = b2_schunk_set_nthreads_body(s, o->nthreads);
    if (rc >= 0 && o->registry)
        rc = b2_schunk_set_registry(s, o->registry);
    if (rc < 0) {
        rc = B2_PREFIX(rc, o->path ? o->path : o->io ? "user I/O" : "frame buffer");
        b2_schunk_free(s);
        return rc;
    }
    *out = s;
    return B2_OK;
}

int b2_schunk_open_with(const b2_open_options *o, b2_schunk **out)
{
    if (!out)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "out is NULL");
    *out = NULL;
    B2_FAIL_IF(!o || o->size == 0 || o->size > sizeof *o, B2_ERR_INVALID_PARAM,
               "open options not set by b2_open_options_init");
    b2_open_options all; /* a caller built with an older, shorter struct gets defaults */
    b2_open_options_init(&all);
    memcpy(&all, o, o->size);
    return open_with(&all, out);
}
