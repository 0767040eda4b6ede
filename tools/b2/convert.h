/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal header of `b2 convert` (convert*.c): the shared state and helpers.
 *   cmd_convert.c      options, entry point and run
 *   convert.c          report and common helpers
 *   convert_types.c    element types (NumPy <-> HDF5)
 *   convert_h5_b2nd.c  HDF5 dataset -> b2nd array
 *   convert_b2nd_h5.c  b2nd array -> HDF5 dataset */
#ifndef B2CLI_CONVERT_H
#define B2CLI_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "b2cli.h"
#include "compress.h"

#define CMD "convert"

typedef struct conv {
    const char *src, *dst;
    b2cli_cparam_opts cpo;
    int nchunks_dims, nblocks_dims;
    int32_t chunks[B2_ND_MAX_DIM], blocks[B2_ND_MAX_DIM];
    int force, recompress, quiet, nthreads;
    int64_t moved, recompressed;
    char reason[200]; /* first reason a chunk was recompressed */
} conv;

#ifdef B2CLI_HAVE_HDF5
#include <hdf5.h>

#define H5_FILTER_BLOSC2 32026

/* ---- convert.c ---- */

/* Keep the first reason a chunk was recompressed (later ones are dropped). */
void conv_why(conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one-line summary (unless --quiet). */
void conv_report(const conv *c);
int conv_file_exists(const char *path);
/* "(i,j,..)": a chunk's coordinates (its first element) for messages, in buf. */
const char *conv_coords(int rank, const int64_t *start, char *buf, size_t cap);
/* Grow *buf to at least n bytes (contents kept); -1 when out of memory. */
int conv_grow(uint8_t **buf, size_t *cap, size_t n);

/* Number of chunks along each dimension and in all; coordinates of chunk i.
 * Inline: called once per chunk in both directions. */
static inline int64_t conv_grid(int nd, const int64_t *shape, const int32_t *cs, int64_t *nper)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        nper[d] = shape[d] == 0 ? 0 : (shape[d] + cs[d] - 1) / cs[d];
        n *= nper[d];
    }
    return n;
}

static inline void conv_chunk_box(int nd, int64_t i, const int64_t *nper, const int64_t *shape,
                                  const int32_t *cs, int64_t *start, int64_t *stop)
{
    for (int d = nd - 1; d >= 0; d--) {
        int64_t k = i % nper[d];
        i /= nper[d];
        start[d] = k * cs[d];
        stop[d] = start[d] + cs[d] < shape[d] ? start[d] + cs[d] : shape[d];
    }
}

/* An empty super-chunk (in memory, or a new frame file at path) with the
 * header of array tmpl resized to shape: its cparams and b2nd metalayer, as
 * b2_nd_create would make it but holding no chunk, so that chunks can be
 * appended as they are (b2_nd_from_schunk wants all chunks present). */
int conv_bare_schunk(b2_nd_array *tmpl, const int64_t *shape, const char *path, b2_schunk **out);

/* ---- convert_types.c ---- */

/* NumPy typestr for an HDF5 type, or -1 for types without one fixed size. */
int conv_dtype_of(hid_t t, char *buf, size_t cap);
/* HDF5 type for a NumPy typestr of item size ts (opaque when unknown). */
hid_t conv_h5type_of(const char *dt, int32_t ts);
/* ---- the two directions ---- */

int conv_h5_to_b2nd(conv *c, const char *file, const char *dname);
int conv_b2nd_to_h5(conv *c, const char *file, const char *dname);
#endif

#endif
