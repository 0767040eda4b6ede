/* SPDX-License-Identifier: BSD-3-Clause */
/* Getting frame handles in the tests: short names for the usual
 * b2_schunk_open_with calls (the one way the library offers). Each returns what
 * b2_schunk_open_with returns and sets *out (NULL on failure). Header-only
 * (static inline), so tests that do not link b2_test_support (h5plugin/test)
 * can use it too. */
#ifndef TEST_FRAME_OPEN_H
#define TEST_FRAME_OPEN_H

#include <stddef.h>
#include <stdint.h>

#include "b2_frame.h"

/* Open the frame at offset in the file path, with a memory limit (<= 0: the default). */
static inline int t_open_at(const char *path, int64_t offset, int flags, int64_t memory_limit,
                            b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.path = path;
    o.offset = offset;
    o.flags = flags & B2_OPEN_WRITE;
    o.memory_limit = memory_limit;
    return b2_schunk_open_with(&o, out);
}

/* Open the frame file or sparse-frame directory at path (B2_OPEN_READONLY or B2_OPEN_WRITE). */
static inline int t_open(const char *path, int flags, b2_schunk **out)
{
    return t_open_at(path, 0, flags, 0, out);
}

/* Open a frame in memory, borrowed read-only (copy 0) or copied and writable (copy 1). */
static inline int t_open_buffer(const void *buf, size_t len, int copy, b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.buffer = (buf || len) ? buf : ""; /* an empty buffer still names the memory source */
    o.buffer_len = len;
    o.copy_buffer = copy;
    o.flags = copy ? B2_OPEN_WRITE : B2_OPEN_READONLY;
    return b2_schunk_open_with(&o, out);
}

/* A new, empty frame: in memory (path NULL), the file path, or (sparse) the directory path. */
static inline int t_create_with(const char *path, int sparse, const b2_cparams *cparams,
                                b2_schunk **out)
{
    b2_open_options o;
    b2_open_options_init(&o);
    o.flags = B2_OPEN_CREATE;
    o.path = path;
    o.sparse = sparse;
    o.cparams = cparams;
    return b2_schunk_open_with(&o, out);
}

/* Create a new, empty frame: in memory (path NULL) or as the frame file path. */
static inline int t_create(const char *path, const b2_cparams *cparams, b2_schunk **out)
{
    return t_create_with(path, 0, cparams, out);
}

/* Create a new, empty sparse frame in the directory dir. */
static inline int t_create_sparse(const char *dir, const b2_cparams *cparams, b2_schunk **out)
{
    return t_create_with(dir, 1, cparams, out);
}

/* A new, empty in-memory frame, or NULL on failure. */
static inline b2_schunk *t_new(const b2_cparams *cparams)
{
    b2_schunk *s;
    return t_create_with(NULL, 0, cparams, &s) < 0 ? NULL : s;
}

#endif
