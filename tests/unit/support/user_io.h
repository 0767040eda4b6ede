/* SPDX-License-Identifier: BSD-3-Clause */
/* User I/O backends for the frame tests (b2_io): a growable buffer with
 * failure switches, a hash map of pages, and a wrapper that counts calls. */
#ifndef TEST_USER_IO_H
#define TEST_USER_IO_H

#include <stddef.h>
#include <stdint.h>

#include "b2_frame.h"

/* A frame in one growable buffer. fail_reads: reads fail; fail_write_at >= 0:
 * writes fail from the (fail_write_at + 1)-th one counted in writes on;
 * closed: close calls seen. Zero-initialise, then set fail_write_at = -1. */
typedef struct test_membuf {
    uint8_t *p;
    size_t len, cap;
    int closed, fail_reads, fail_write_at, writes;
} test_membuf;
extern const b2_io test_membuf_io;

/* A frame kept as 4 KiB pages in a hash map keyed by page number, as an
 * object store might keep it; pages never written read as zeros. */
typedef struct test_pagemap test_pagemap;
test_pagemap *test_pagemap_new(void);
void test_pagemap_free(test_pagemap *m);
/* Pages held now. */
int64_t test_pagemap_pages(const test_pagemap *m);
extern const b2_io test_pagemap_io;

/* Counts the calls to another backend (io, user) and the bytes they move. */
typedef struct test_counted {
    const b2_io *io;
    void *user;
    int64_t reads, read_bytes, writes, write_bytes;
} test_counted;
extern const b2_io test_counted_io;

#endif
