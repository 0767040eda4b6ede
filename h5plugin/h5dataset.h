/* SPDX-License-Identifier: BSD-3-Clause */
/* What the direct paths (the box reader, h5read.c, and writer, h5write.c) require
 * of a dataset, checked by one function (internal to the plugin). */
#ifndef B2_H5DATASET_H
#define B2_H5DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "b2_h5filter.h"
#include "h5api.h"
#include "h5params.h"

/* The checks' input, and what they find on the way. */
typedef struct b2_h5_dset_check {
    int write;              /* 1: the writer's checks and wording; 0: the reader's */
    hid_t mem_type;         /* write: the call's memory type (H5P_DEFAULT: the file's) */
    int rank;
    size_t ts;              /* the element size */
    hsize_t cdims[B2_H5_READ_MAXRANK]; /* the chunk shape */
    /* the reader's */
    hsize_t userblock;
    int writable;           /* the file is open for writing */
    char *path;             /* the file's name (malloc'd; the caller frees it) */
    /* the writer's */
    b2_h5_params p;         /* the dataset's cd_values, nthreads 1 */
    size_t nbytes;          /* full chunk bytes */
    uint8_t *fill;          /* one element of fill value (malloc'd), or NULL: zeros */
} b2_h5_dset_check;

/* Why dataset dset cannot take the direct path ("" when it can), filling in c on
 * the way. Common to both: a chunked dataset whose pipeline is Blosc2 alone, in
 * a sec2 (plain POSIX) file. The writer also needs H5Dwrite_chunk, a fixed-size
 * type equal to the memory type, cd_values it can compress with and a readable
 * fill value; the reader H5Dget_chunk_info_by_coord, the user block and the
 * file's name. Messages with details are formatted into why_buf (cap bytes). */
B2_HIDDEN const char *b2_h5_dataset_refusal(const b2_h5_read_api *h, hid_t dset,
                                           b2_h5_dset_check *c, char *why_buf, size_t cap);

#endif
