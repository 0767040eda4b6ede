/* SPDX-License-Identifier: BSD-3-Clause */
/* The file store's parts that the sparse store builds on (frame layer, internal). */
#ifndef B2_STORE_FILE_H
#define B2_STORE_FILE_H

#include "frame_store.h"

typedef struct file_store {
    frame_store base;
    int fd; /* -1 while the file does not exist (a sparse frame being created) */
    int64_t off;
    char *path;
    char *dir; /* sparse stores: the directory of chunk files */
} file_store;

B2_HIDDEN extern const frame_store_ops b2_file_store_ops;

/* Open path with oflags into f; without must_exist a missing file leaves fd -1. */
B2_HIDDEN int b2_file_store_init(file_store *f, const char *path, int64_t offset, int oflags, int must_exist);
/* pread/pwrite all n bytes at pos of fd; name goes into messages. */
B2_HIDDEN int b2_file_pread_all(int fd, void *dst, size_t n, int64_t pos, const char *name);
B2_HIDDEN int b2_file_pwrite_all(int fd, const void *src, size_t n, int64_t pos, const char *name);
/* fsync the directory holding path (best effort: a rename is then durable). */
B2_HIDDEN void b2_file_sync_parent_dir(const char *path);

#endif
