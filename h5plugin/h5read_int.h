/* SPDX-License-Identifier: BSD-3-Clause */
/* What the box reader's serial path (h5read.c) and its parallel path
 * (h5readpar.c) share (internal to the plugin). */
#ifndef B2_H5READ_INT_H
#define B2_H5READ_INT_H

#include <stddef.h>
#include <stdint.h>

#include "b2_chunk.h"
#include "b2_h5filter.h"
#include "h5api.h"

#define MAXDIM B2_H5_READ_MAXRANK

struct b2_pool;
struct b2_h5_par_worker; /* one pool worker's context and buffers (h5readpar.c) */

/* Test seam: called after each chunk look-up of the parallel path, it may change
 * what HDF5 said (hostile addresses and sizes without touching HDF5's metadata). */
typedef void (*b2_h5_chunk_hook)(void *ud, const hsize_t *coff, unsigned *mask,
                                 haddr_t *addr, hsize_t *size);

/* What stays true of a dataset while it is open: checked once by
 * b2_h5_reader_open, so repeated small reads skip HDF5's property-list copies. */
struct b2_h5_reader {
    const b2_h5_read_api *h;
    hid_t dset;
    int rank;
    size_t ts;                      /* the file type's element size */
    hsize_t cdims[MAXDIM];          /* chunk shape */
    char why[128];                  /* why the direct path is refused ("" when it is not) */
    char *path;                     /* the HDF5 file, for opening frames in place */
    hsize_t userblock;
    int writable;                   /* open for writing: flush before each read */
    int nthreads;                   /* b2_h5_reader_set_nthreads; default B2_H5_NTHREADS */
    int64_t mem_limit;              /* B2_H5_MEMORY_LIMIT at open (0: the default) */
    struct b2_pool *pool;           /* the parallel path's workers (created on first use) */
    struct b2_h5_par_worker *wk;    /* nthreads of them */
    int nwk;
    uint64_t par_min;               /* smallest box (bytes) read in parallel */
    b2_h5_chunk_hook hook;
    void *hook_ud;
};

/* Everything one call works with. */
typedef struct reader {
    const b2_h5_read_api *h;
    const b2_h5_reader *ds;
    hid_t dset, mem_type, fspace;
    int rank;
    size_t ts;                      /* element size */
    hsize_t dims[MAXDIM];
    const hsize_t *cdims;
    const hsize_t *start, *count;
    uint8_t *buf;
    const char *path;
    b2_dctx *dctx;                  /* this thread's, shared with the filter (scratch reused) */
    hsize_t userblock;
    b2_h5_read_report *rep;
} reader;

B2_HIDDEN void b2_h5_note(b2_h5_read_report *rep, const char *fmt, const char *arg);
/* H5Dread of the part [lo, hi) (dataset coordinates) of the box into its place in buf. */
B2_HIDDEN int b2_h5_dread_part(reader *r, const hsize_t *lo, const hsize_t *hi);
/* Copy an nd box of cnt elements between C-order layouts with element strides. */
B2_HIDDEN void b2_h5_copy_box(int nd, const hsize_t *cnt, size_t ts, uint8_t *dst,
                             const int64_t *dstr, const uint8_t *src, const int64_t *sstr);
B2_HIDDEN void b2_h5_strides_of(int nd, const hsize_t *ext, int64_t *str);
/* A chunk's bytes in the element size of r. */
B2_HIDDEN hsize_t b2_h5_chunk_bytes(const reader *r);
/* The error for a chunk stored raw (filter mask) in another size than the
 * chunk's: H5Dread would copy past the stored bytes (HDF5 trusts the size). */
B2_HIDDEN int b2_h5_raw_size_error(const reader *r, const hsize_t *coff, hsize_t size);

/* Step chunk coordinates ci through the grid box [c0, c1] in C order; 0 once
 * past the last chunk. */
static inline int b2_h5_next_chunk(int rank, hsize_t *ci, const hsize_t *c0, const hsize_t *c1)
{
    int d = rank - 1;
    while (d >= 0 && ci[d] == c1[d])
        ci[d] = c0[d], d--;
    if (d < 0)
        return 0;
    ci[d]++;
    return 1;
}

/* The parallel path: 1 when read r qualifies (several threads, several chunks,
 * a large enough box, no user block), 0 when the serial path takes it. */
B2_HIDDEN int b2_h5_par_wanted(const reader *r, int64_t nchunks, uint64_t nbytes);
/* Read the box of r (which qualifies) on the reader's pool. */
B2_HIDDEN int b2_h5_par_read(reader *r, b2_h5_reader *rd, const hsize_t *c0, const hsize_t *c1,
                             int64_t nchunks);
/* Free the pool and workers' buffers. */
B2_HIDDEN void b2_h5_par_free(b2_h5_reader *rd);
/* Test seams (tests and the fuzz target link the filter statically): the hook
 * above, and the smallest box read in parallel (default B2_H5_PAR_MIN_BYTES). */
#define B2_H5_PAR_MIN_BYTES (256 * 1024)
B2_HIDDEN void b2_h5_reader_set_chunk_hook(b2_h5_reader *rd, b2_h5_chunk_hook fn, void *ud);
B2_HIDDEN void b2_h5_reader_set_par_min(b2_h5_reader *rd, uint64_t bytes);

#endif
