/* SPDX-License-Identifier: BSD-3-Clause */
/* NumPy .npy input for `b2 compress` (npy.c). */
#ifndef B2CLI_NPY_H
#define B2CLI_NPY_H

#include "b2cli.h"

typedef struct b2cli_npy {
    char dtype[32];                /* the header's descr, '=' made explicit */
    int32_t itemsize;
    int ndim;
    int64_t shape[B2_ND_MAX_DIM];
    int64_t offset;                /* where the data start */
    int64_t nbytes;                /* data bytes: prod(shape) * itemsize */
} b2cli_npy;

/* True when path is a regular file starting with the .npy magic. */
int b2cli_npy_is(const char *path);
/* Read and check the header of the .npy file path: a C-order array of a dtype
 * with a known item size, followed by exactly its data. B2_OK or an error
 * (message printed). */
int b2cli_npy_read_header(const char *path, b2cli_npy *h);

#endif
