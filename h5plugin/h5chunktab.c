/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunk table of a read of many chunks: every chunk's file address, stored
 * size and filter mask from one H5Dchunk_iter, instead of one look-up per chunk.
 *
 * H5Dget_chunk_info_by_coord walks the chunk index on every call (HDF5 1.10 to
 * 2.0: about 6 to 9 ns a stored chunk), H5Dget_chunk_storage_size +
 * H5Dread_chunk cost microseconds a chunk, all on the calling thread, which is
 * then what a parallel read waits for. H5Dchunk_iter visits every stored chunk
 * of the dataset once (tens of ns each, callback included), whatever the read
 * needs: worth it once the read needs more than a small share of the
 * dataset's chunks (b2_h5_chunk_table_wanted).
 *
 * The index is the file's, so the callback trusts nothing: an offset off the
 * chunk grid or a chunk listed twice stops the pass with an error naming it;
 * chunks outside the read's box (or the dataset's extent) are passed over, as a
 * look-up by coordinates would never meet them. Addresses and sizes are checked
 * where the bytes are read, as for a look-up by coordinates. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5read_int.h"

/* Measured on the calling thread under h5py 3.16's HDF5 2.0.0 and 3.15.1's
 * 1.14.6 (Intel Xeon, 4 KiB to 16 KiB chunks, 16 to 16,384 of them; see
 * doc/format/hdf5-filter.md §11a): a pass costs 110-150 ns a stored chunk
 * (ITER_NS) plus about 4 us (ITER_FIXED_NS); a look-up by coordinates 700 ns
 * plus 16 ns a stored chunk (its walk); H5Dget_chunk_storage_size +
 * H5Dread_chunk 1.2 us and more (READ_NS, with the copy). A read takes the
 * table when its chunks would cost more asked one by one (the cheaper way) than
 * one pass over the whole grid (stored chunks are at most the grid's): beyond
 * about one chunk in 13 of a large dataset, beyond a handful of a small one. */
#define ITER_NS 150
#define ITER_FIXED_NS 5000
#define COORD_NS 700
#define COORD_NS_PER_CHUNK 16
#define READ_NS 2000
/* A table's entries are 32 bytes: beyond 2^21 chunks (64 MiB) a read asks
 * chunk by chunk rather than hold that much (b2blosc.h5 reads 64 MiB slabs). */
#define TABLE_MAX ((int64_t)1 << 21)

int b2_h5_chunk_table_wanted(const reader *r, int64_t nchunks)
{
    int mode = r->ds->lookup;
    if (!r->h->Dchunk_iter || nchunks < 1 || nchunks > TABLE_MAX ||
        (mode != B2_H5_LOOKUP_AUTO && mode != B2_H5_LOOKUP_ITER))
        return 0;
    if (mode == B2_H5_LOOKUP_ITER)
        return 1;
    uint64_t g = r->grid_chunks > ((uint64_t)1 << 40) ? (uint64_t)1 << 40 : r->grid_chunks;
    uint64_t each = COORD_NS + COORD_NS_PER_CHUNK * g;
    if (each > READ_NS)
        each = READ_NS;
    return (uint64_t)nchunks * each > g * ITER_NS + ITER_FIXED_NS;
}

typedef struct iter_ctx {
    b2_h5_chunk_table *t;
    const hsize_t *dims; /* the dataset's extent */
    int64_t visited;
    int err;
    char msg[200];
} iter_ctx;

/* Stop the iteration: the index lists "<what> <offset><why>". */
static int iter_corrupt(iter_ctx *c, const hsize_t *offset, const char *what, const char *why)
{
    char where[128];
    b2_h5_coords_text(where, sizeof where, c->t->rank, offset, NULL);
    snprintf(c->msg, sizeof c->msg, "H5Dchunk_iter: the chunk index lists %s %.100s%s", what,
             where, why);
    c->err = B2_ERR_CORRUPT;
    return -1;
}

static int iter_cb(const hsize_t *offset, unsigned filter_mask, haddr_t addr, hsize_t size,
                   void *op_data)
{
    iter_ctx *c = op_data;
    b2_h5_chunk_table *t = c->t;
    c->visited++;
    uint64_t idx = 0;
    int inside = 1;
    for (int d = 0; d < t->rank; d++) {
        if (offset[d] % t->cdims[d])
            return iter_corrupt(c, offset, "a chunk at", ", off the chunk grid");
        hsize_t ci = offset[d] / t->cdims[d];
        /* outside the box: a chunk this read does not need (or one past the
         * extent, which no read meets) */
        if (offset[d] >= c->dims[d] || ci < t->c0[d] || ci - t->c0[d] >= t->n[d])
            inside = 0;
        idx = idx * t->n[d] + (ci - t->c0[d]);
    }
    if (!inside)
        return 0;
    b2_h5_chunk_ent *e = &t->e[idx];
    if (e->seen)
        return iter_corrupt(c, offset, "the chunk at", " twice");
    e->seen = 1;
    e->addr = addr;
    e->size = size;
    e->mask = filter_mask;
    return 0;
}

int b2_h5_chunk_table_fill(reader *r, const hsize_t *c0, const hsize_t *c1, int64_t nchunks,
                           b2_h5_chunk_table *t)
{
    b2_h5_reader *rd = r->ds;
    size_t need = (size_t)nchunks * sizeof *rd->tab;
    if (rd->tabcap < (size_t)nchunks) {
        b2_h5_chunk_ent *e = realloc(rd->tab, need);
        if (!e)
            return B2_FAIL(B2_ERR_NOMEM, "a table of %lld chunks", (long long)nchunks);
        rd->tab = e;
        rd->tabcap = (size_t)nchunks;
    }
    memset(rd->tab, 0, need);
    t->rank = r->rank;
    t->cdims = r->cdims;
    t->e = rd->tab;
    for (int d = 0; d < r->rank; d++) {
        t->c0[d] = c0[d];
        t->n[d] = c1[d] - c0[d] + 1;
    }
    iter_ctx c = {.t = t, .dims = r->dims};
    /* our callback's refusals carry their own message: HDF5's printing of its
     * error stack is off for the pass (a pair of calls, once a read) */
    const b2_h5_read_api *h = r->h;
    H5E_auto2_t efn = NULL;
    void *efn_data = NULL;
    h->Eget_auto2(H5E_DEFAULT, &efn, &efn_data);
    h->Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int64_t t0 = b2_h5_now_ns();
    herr_t hr = h->Dchunk_iter(r->dset, H5P_DEFAULT, iter_cb, &c);
    rd->st.hdf5_ns += b2_h5_now_ns() - t0;
    h->Eset_auto2(H5E_DEFAULT, efn, efn_data);
    rd->st.iterations++;
    rd->st.iterated += c.visited;
    if (c.err < 0)
        return B2_FAIL(c.err, "%s", c.msg);
    if (hr < 0)
        return B2_FAIL(B2_ERR_IO, "H5Dchunk_iter failed after %lld chunks", (long long)c.visited);
    return B2_OK;
}

const b2_h5_chunk_ent *b2_h5_chunk_table_at(const b2_h5_chunk_table *t, const hsize_t *coff)
{
    uint64_t idx = 0;
    for (int d = 0; d < t->rank; d++)
        idx = idx * t->n[d] + (coff[d] / t->cdims[d] - t->c0[d]);
    return &t->e[idx];
}
