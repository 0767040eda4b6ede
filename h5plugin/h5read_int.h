/* SPDX-License-Identifier: BSD-3-Clause */
/* What the box reader's serial path (h5read.c) and its parallel path
 * (h5readpar.c) share: the reader's state, chunk look-ups (h5locate.c,
 * h5chunktab.c) and box helpers (h5box.c); the writer (h5write.c) uses a few
 * (internal to the plugin). */
#ifndef B2_H5READ_INT_H
#define B2_H5READ_INT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

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

/* How chunks are found (b2_h5_reader_set_lookup, a test seam). HDF5 1.10's
 * H5Dget_chunk_info_by_coord walks the whole chunk index on every call (about
 * 6 ns a stored chunk here: 114 us a look-up with 16,384 chunks), while
 * H5Dget_chunk_storage_size and H5Dread_chunk find a chunk in a few
 * microseconds whatever their number. So a chunk is looked up by address only
 * when that walk costs less than copying its stored bytes through HDF5 (AUTO);
 * otherwise the calling thread reads them with H5Dread_chunk. */
enum { B2_H5_LOOKUP_AUTO = 0, B2_H5_LOOKUP_ADDR = 1, B2_H5_LOOKUP_READ = 2 };
/* Where the HDF5 of the process has H5Dchunk_iter (1.10.10+, 1.12.3+, 1.14, 2.x),
 * AUTO finds the chunks of a read of many chunks in one pass over the chunk index
 * instead (a table, h5chunktab.c; b2_h5_chunk_table_wanted says when). ITER takes
 * the table for any read where the call exists; NOITER is AUTO without it (what
 * HDF5 releases without the call get). */
enum { B2_H5_LOOKUP_ITER = 3, B2_H5_LOOKUP_NOITER = 4 };

/* A look-up by address costs about 6 ns per chunk of the dataset (HDF5 1.10
 * walks its chunk index); copying stored bytes through HDF5 about 1 us plus
 * 1/8 ns a byte. Look up by address when that is the cheaper of the two. */
#define B2_H5_ADDR_NS_PER_CHUNK 6
#define B2_H5_READ_NS 1000
#define B2_H5_READ_BYTES_PER_NS 8

/* One chunk of a read's grid box as H5Dchunk_iter gave it (seen 0: not stored). */
typedef struct b2_h5_chunk_ent {
    haddr_t addr;
    hsize_t size;
    unsigned mask;
    unsigned seen;
} b2_h5_chunk_ent;

/* The chunks of the grid box [c0, c0 + n) (chunk indices), C order. */
typedef struct b2_h5_chunk_table {
    int rank;
    hsize_t c0[MAXDIM], n[MAXDIM];
    const hsize_t *cdims;
    b2_h5_chunk_ent *e;
} b2_h5_chunk_table;

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
    int lookup;                     /* B2_H5_LOOKUP_* */
    struct b2_h5_par_buf *bufs;     /* stored bytes read through HDF5, queued or decoding */
    int nbufs;
    int64_t chunks_via_hdf5;        /* chunks b2_h5_read_stored read (calling thread; tests) */
    b2_h5_chunk_ent *tab;           /* the chunk table's entries, kept for the next read */
    size_t tabcap;
    b2_h5_lookup_stats st;          /* the calling thread's HDF5 work (b2_h5_reader_lookup_stats) */
};

/* Everything one call works with. */
typedef struct reader {
    const b2_h5_read_api *h;
    b2_h5_reader *ds;
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
    uint64_t grid_chunks;           /* chunks in the dataset's grid: bounds a look-up's cost */
    int may_read_whole;             /* b2_h5_locate may read chunks through HDF5 */
    const b2_h5_chunk_table *tab;   /* the box's chunks from H5Dchunk_iter, or NULL */
} reader;

/* Where one chunk is stored. */
typedef struct b2_h5_chunk_loc {
    int ok;          /* HDF5 answered */
    int via_hdf5;    /* not looked up by address: read the bytes with b2_h5_read_stored */
    unsigned mask;   /* filter mask (once the bytes are read, when via_hdf5) */
    haddr_t addr;    /* HADDR_UNDEF when via_hdf5 or not allocated */
    hsize_t size;    /* stored bytes; 0: not allocated */
    hsize_t stored;  /* what HDF5 said the size is (size may come from a test hook) */
} b2_h5_chunk_loc;

/* Monotonic nanoseconds (the look-up statistics). */
static inline int64_t b2_h5_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- h5chunktab.c ---- */
/* 1 when read r of the grid box [c0, c1] (nchunks chunks) should find its
 * chunks with one H5Dchunk_iter (see h5chunktab.c for the costs). */
B2_HIDDEN int b2_h5_chunk_table_wanted(const reader *r, int64_t nchunks);
/* Fill t with the chunks of [c0, c1] in one H5Dchunk_iter (entries in rd->tab).
 * A negative B2_ERR_* with a message naming the entry when the index is not
 * one of this grid (an offset off the grid, a chunk listed twice) or HDF5 fails. */
B2_HIDDEN int b2_h5_chunk_table_fill(reader *r, const hsize_t *c0, const hsize_t *c1,
                                     int64_t nchunks, b2_h5_chunk_table *t);
/* The table's entry for the chunk at dataset offset coff (inside the box). */
B2_HIDDEN const b2_h5_chunk_ent *b2_h5_chunk_table_at(const b2_h5_chunk_table *t,
                                                      const hsize_t *coff);

/* ---- h5locate.c ---- */
/* Look up the chunk at dataset offset coff (see B2_H5_LOOKUP_AUTO). */
B2_HIDDEN void b2_h5_locate(const reader *r, const hsize_t *coff, b2_h5_chunk_loc *loc);
/* Read a via_hdf5 chunk's stored bytes with H5Dread_chunk into *buf (grown to
 * loc->size; bytes past what HDF5 stores are zero) and set loc->mask. */
B2_HIDDEN int b2_h5_read_stored(reader *r, const hsize_t *coff, b2_h5_chunk_loc *loc,
                                uint8_t **buf, size_t *cap);
/* A chunk's bytes in the element size of r. */
B2_HIDDEN hsize_t b2_h5_chunk_bytes(const reader *r);
/* The error for a chunk stored raw (filter mask) in another size than the
 * chunk's: H5Dread would copy past the stored bytes (HDF5 trusts the size). */
B2_HIDDEN int b2_h5_raw_size_error(const reader *r, const hsize_t *coff, hsize_t size);

/* ---- h5box.c ---- */
/* A chunk's place in messages, "(20,10)": rank coordinates, each off[d] rounded
 * down to a multiple of unit[d] when unit is given (a box corner to its chunk's
 * start). Returns s. */
B2_HIDDEN const char *b2_h5_coords_text(char *s, size_t cap, int rank, const hsize_t *off,
                                        const hsize_t *unit);
/* Grow *p to n bytes (contents kept); -1 without memory. */
B2_HIDDEN int b2_h5_grow(uint8_t **p, size_t *cap, size_t n);
/* The report's reason (fmt with arg), unless it has one already. */
B2_HIDDEN void b2_h5_note(b2_h5_read_report *rep, const char *fmt, const char *arg);
/* H5Dread of the part [lo, hi) (dataset coordinates) of the box into its place in buf. */
B2_HIDDEN int b2_h5_dread_part(reader *r, const hsize_t *lo, const hsize_t *hi);
/* Copy an nd box of cnt elements between C-order layouts with element strides. */
B2_HIDDEN void b2_h5_copy_box(int nd, const hsize_t *cnt, size_t ts, uint8_t *dst,
                             const int64_t *dstr, const uint8_t *src, const int64_t *sstr);
/* C-order element strides of an nd extent. */
B2_HIDDEN void b2_h5_strides_of(int nd, const hsize_t *ext, int64_t *str);

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

/* 1 when the part of cnt elements of a box of extent box is one run of the box's
 * C-order buffer: every dimension after the first the part spans partly (more
 * than one index of it) the part spans whole. */
static inline int b2_h5_part_is_run(int rank, const hsize_t *cnt, const hsize_t *box)
{
    for (int d = 1, partial = 0; d < rank; d++) {
        partial |= cnt[d - 1] > 1;
        if (partial && cnt[d] != box[d])
            return 0;
    }
    return 1;
}

/* ---- h5readpar.c ---- */
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
B2_HIDDEN void b2_h5_reader_set_lookup(b2_h5_reader *rd, int mode);
B2_HIDDEN int64_t b2_h5_reader_chunks_via_hdf5(const b2_h5_reader *rd);

#endif
