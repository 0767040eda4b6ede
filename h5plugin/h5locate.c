/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a chunk is stored: its look-up (the read's chunk table, by address, or
 * its size alone when HDF5 reads the bytes) and the stored bytes read through
 * H5Dread_chunk (b2_h5_locate, b2_h5_read_stored; shared by the serial and
 * parallel paths). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5read_int.h"

/* A chunk's bytes in the element size of r. */
hsize_t b2_h5_chunk_bytes(const reader *r)
{
    hsize_t n = r->ts;
    for (int d = 0; d < r->rank; d++)
        n *= r->cdims[d];
    return n;
}

/* The error for a chunk stored raw in another size than the chunk's. */
int b2_h5_raw_size_error(const reader *r, const hsize_t *coff, hsize_t size)
{
    char where[128];
    b2_h5_coords_text(where, sizeof where, r->rank, coff, NULL);
    return B2_FAIL(B2_ERR_CORRUPT, "chunk at %.100s: stored raw (filter mask) in %llu bytes, "
                   "not the chunk's %llu (HDF5 would read past them)", where,
                   (unsigned long long)size, (unsigned long long)b2_h5_chunk_bytes(r));
}

/* Look up the chunk at dataset offset coff (see B2_H5_LOOKUP_AUTO). */
void b2_h5_locate(const reader *r, const hsize_t *coff, b2_h5_chunk_loc *loc)
{
    const b2_h5_read_api *h = r->h;
    memset(loc, 0, sizeof *loc);
    loc->addr = HADDR_UNDEF;
    int mode = r->ds->lookup;
    r->ds->st.chunks++;
    if (r->tab) { /* found by this read's H5Dchunk_iter; not there: not stored */
        const b2_h5_chunk_ent *e = b2_h5_chunk_table_at(r->tab, coff);
        loc->ok = 1;
        if (e->seen) {
            loc->mask = e->mask;
            loc->addr = e->addr;
            loc->size = loc->stored = e->size;
        }
        return;
    }
    int64_t t0 = b2_h5_now_ns();
    if (r->may_read_whole) {
        /* It fails on a chunk not allocated (quietly: read_box silenced HDF5's
         * error printing), and then the look-up by address below tells that
         * from a failure. */
        hsize_t size = 0;
        herr_t hr = h->Dget_chunk_storage_size(r->dset, coff, &size);
        r->ds->st.by_coord++;
        uint64_t addr_ns = r->grid_chunks * B2_H5_ADDR_NS_PER_CHUNK;
        if (hr >= 0 && size > 0 &&
            (mode == B2_H5_LOOKUP_READ ||
             addr_ns > B2_H5_READ_NS + size / B2_H5_READ_BYTES_PER_NS)) {
            loc->ok = loc->via_hdf5 = 1;
            loc->size = loc->stored = size;
            r->ds->st.hdf5_ns += b2_h5_now_ns() - t0;
            return;
        }
    }
    loc->ok = h->Dget_chunk_info_by_coord(r->dset, coff, &loc->mask, &loc->addr, &loc->size) >= 0;
    loc->stored = loc->size;
    r->ds->st.by_coord++;
    r->ds->st.hdf5_ns += b2_h5_now_ns() - t0;
}

/* A via_hdf5 chunk's stored bytes through H5Dread_chunk into *buf (grown). */
int b2_h5_read_stored(reader *r, const hsize_t *coff, b2_h5_chunk_loc *loc,
                      uint8_t **buf, size_t *cap)
{
    int64_t limit = r->ds->mem_limit > 0 ? r->ds->mem_limit : B2_DEFAULT_MEMORY_LIMIT;
    hsize_t n = loc->size > loc->stored ? loc->size : loc->stored;
    if (n > (hsize_t)limit || n > (hsize_t)SIZE_MAX)
        return B2_FAIL(B2_ERR_LIMIT, "the stored size is over the memory limit "
                       "(B2_H5_MEMORY_LIMIT raises it)");
    if (b2_h5_grow(buf, cap, n ? (size_t)n : 1) < 0)
        return B2_FAIL(B2_ERR_NOMEM, "no memory for the stored bytes");
    uint32_t mask = 0;
    /* HDF5 2.0's call is told the buffer's size and refuses a chunk that grew
     * since it was looked up, rather than writing past the buffer. */
    size_t nalloc = *cap;
    int64_t t0 = b2_h5_now_ns();
    herr_t hr = r->h->Dread_chunk2
                    ? r->h->Dread_chunk2(r->dset, H5P_DEFAULT, coff, &mask, *buf, &nalloc)
                    : r->h->Dread_chunk(r->dset, H5P_DEFAULT, coff, &mask, *buf);
    r->ds->st.hdf5_ns += b2_h5_now_ns() - t0;
    r->ds->st.read_chunk++;
    if (hr < 0)
        return B2_FAIL(B2_ERR_IO, "H5Dread_chunk failed");
    if (loc->size > loc->stored)
        memset(*buf + loc->stored, 0, (size_t)(loc->size - loc->stored));
    loc->mask = mask;
    r->ds->chunks_via_hdf5++;
    return B2_OK;
}
