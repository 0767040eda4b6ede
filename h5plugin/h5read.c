/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_h5_read_box: read a box of a Blosc2 (32026) dataset by decoding, for every
 * chunk it meets, only the blocks of the stored frame that hold the box. When
 * the chunk's place in the file comes from H5Dget_chunk_info_by_coord, the frame
 * is opened in place (b2_schunk_open_with at an offset), which reads its header, trailer
 * and index, and the b2nd or item slice reads the needed blocks' bytes only
 * (doc/format/hdf5-filter.md §11; the way b2h5py does it from Python). In datasets of many
 * small chunks, where that look-up costs more than the chunk's bytes, they are
 * read whole with H5Dread_chunk instead (b2_h5_locate).
 *
 * Whatever this path cannot do exactly as HDF5 would goes through H5Dread: the
 * whole box when the dataset does not qualify (layout, pipeline, type
 * conversion, file driver), one chunk's part when that chunk does not
 * (unallocated: fill value; stored raw: filter mask set; a frame we cannot
 * map). The bytes are then always H5Dread's.
 *
 * Boxes of 256 KiB or more over several chunks go to the parallel path
 * (h5readpar.c), which reads each chunk's stored bytes whole on pool workers.
 * Both paths find chunks with h5locate.c (h5chunktab.c for many at once) and
 * fill the box with h5box.c; whether the dataset qualifies is h5dataset.c's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_frame.h"
#include "b2_h5filter.h"
#include "b2_nd.h"
#include "h5api.h"
#include "h5context.h"
#include "h5dataset.h"
#include "h5params.h"
#include "h5read_int.h"
#include "b2_frame_experimental.h"
#include "b2_nd_experimental.h"

/* Decode the chunk part [lo, hi) (chunk coordinates) from the frame s (opened
 * on the chunk's stored bytes; freed here) into tmp (C order of the part).
 * where names the frame in messages. B2_ERR_UNSUPPORTED: its items are not the
 * dataset's elements (array types: H5Dread takes it). A frame longer or
 * shorter than HDF5 stores, or decoding to another size than the chunk's, is
 * corrupt: the filter refuses the first and, for a frame decoding to fewer
 * bytes, HDF5 would hand back bytes nobody wrote. */
static int decode_part(reader *r, b2_schunk *s, const char *where, hsize_t size,
                       const hsize_t *lo, const hsize_t *hi, uint8_t *tmp, size_t tmpcap)
{
    int rc;
    if (b2_schunk_frame_len(s) != (int64_t)size) {
        long long fl = (long long)b2_schunk_frame_len(s);
        b2_schunk_free(s);
        return B2_FAIL(B2_ERR_CORRUPT, "the frame %s is %lld bytes long, HDF5 stores %llu",
                       where, fl, (unsigned long long)size);
    }
    /* A frame holding checksums is checked whole (its chunk is read whole) before
     * any block of it is decoded; frames without them are read as before. */
    char why[300];
    if (b2_h5_frame_verify(s, why, sizeof why) < 0) {
        b2_schunk_free(s);
        return B2_FAIL(B2_ERR_CHECKSUM, "the frame %s: %s", where, why);
    }
    if (b2_schunk_typesize(s) != (int32_t)r->ts) {
        b2_schunk_free(s);
        return B2_ERR_UNSUPPORTED;
    }
    uint8_t *meta = NULL;
    int32_t mlen = 0;
    int is_nd = b2_schunk_meta_get(s, B2_ND_META_NAME, &meta, &mlen) >= 0 ||
                b2_schunk_meta_get(s, B2_ND_META_LEGACY_NAME, &meta, &mlen) >= 0;
    free(meta);
    if (is_nd) {
        b2_nd_array *a = NULL;
        int64_t bytes = 0;
        if ((rc = b2_nd_from_schunk(s, &a)) < 0) {
            b2_schunk_free(s);
            return B2_FAIL(rc, "the frame %s: %s", where, b2_err_detail());
        }
        if (r->dctx)
            b2_nd_set_dctx(a, r->dctx);
        int64_t blocks0 = b2_nd_blocks_decoded(a); /* the shared context counts on */
        int fits = b2_nd_ndim(a) == r->rank;
        for (int d = 0; fits && d < r->rank; d++)
            fits = b2_nd_shape(a)[d] == (int64_t)r->cdims[d];
        if (!fits) {
            int64_t nb = b2_nd_nitems(a) * b2_nd_typesize(a), cn = (int64_t)r->ts;
            for (int d = 0; d < r->rank; d++)
                cn *= (int64_t)r->cdims[d];
            b2_nd_free(a);
            if (nb != cn)
                return B2_FAIL(B2_ERR_CORRUPT, "the frame %s decodes to the wrong size (%lld "
                               "bytes, the chunk holds %lld)", where, (long long)nb, (long long)cn);
            return B2_ERR_UNSUPPORTED;
        }
        int64_t st[MAXDIM], sp[MAXDIM];
        for (int d = 0; d < r->rank; d++) {
            st[d] = (int64_t)lo[d];
            sp[d] = (int64_t)hi[d];
        }
        rc = b2_nd_get_slice_cbuffer(a, st, sp, tmp, tmpcap);
        bytes = b2_schunk_bytes_read(b2_nd_schunk(a));
        if (r->rep) {
            r->rep->bytes_read += bytes;
            r->rep->blocks_decoded += b2_nd_blocks_decoded(a) - blocks0;
        }
        b2_nd_free(a);
        return rc < 0 ? rc : B2_OK;
    }
    /* A plain frame holds the chunk's elements in C order: one item range per
     * row of the part's last dimension (the whole part when rank is 1). */
    int64_t cstr[MAXDIM];
    b2_h5_strides_of(r->rank, r->cdims, cstr);
    int64_t nitems = 1;
    for (int d = 0; d < r->rank; d++)
        nitems *= (int64_t)r->cdims[d];
    /* the filter decodes the frame's first chunk: it must be the whole chunk */
    if (b2_schunk_nchunks(s) < 1 || b2_schunk_chunk_nbytes(s, 0) != nitems * (int64_t)r->ts) {
        b2_schunk_free(s);
        return B2_FAIL(B2_ERR_CORRUPT, "the frame %s decodes to the wrong size (not the "
                       "chunk's %lld bytes)", where, (long long)(nitems * (int64_t)r->ts));
    }
    hsize_t cnt[MAXDIM], idx[MAXDIM] = {0};
    for (int d = 0; d < r->rank; d++)
        cnt[d] = hi[d] - lo[d];
    int64_t run = (int64_t)cnt[r->rank - 1];
    uint8_t *out = tmp;
    for (rc = B2_OK; rc >= 0;) {
        int64_t first = 0;
        for (int d = 0; d < r->rank; d++)
            first += (int64_t)(lo[d] + (d < r->rank - 1 ? idx[d] : 0)) * cstr[d];
        int64_t got = b2_schunk_get_items(s, first, run, out, (size_t)run * r->ts);
        rc = got < 0 ? (int)got : B2_OK;
        out += run * (int64_t)r->ts;
        int d = r->rank - 2;
        while (d >= 0 && ++idx[d] == cnt[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
    if (r->rep)
        r->rep->bytes_read += b2_schunk_bytes_read(s);
    b2_schunk_free(s);
    return rc;
}

/* Open the frame of chunk coff found at loc (its bytes read into *sbuf first
 * when via_hdf5); where gets its name for messages. B2_ERR_UNSUPPORTED: H5Dread
 * takes the chunk (no frame opens there: then H5Dread fails as the filter
 * does; or the chunk is stored raw). */
static int open_frame(reader *r, const hsize_t *coff, b2_h5_chunk_loc *loc, uint8_t **sbuf,
                      size_t *scap, b2_schunk **s, char *where, size_t wcap)
{
    size_t k = (size_t)snprintf(where, wcap, "of chunk ");
    b2_h5_coords_text(where + k, wcap - k, r->rank, coff, NULL);
    if (!loc->via_hdf5) {
        k = strlen(where);
        snprintf(where + k, wcap - k, " at file offset %llu", (unsigned long long)loc->addr);
        b2_open_options o;
        b2_open_options_init(&o);
        o.path = r->path;
        o.offset = (int64_t)loc->addr;
        int rc = b2_schunk_open_with(&o, s);
        if (rc < 0 && r->userblock) { /* addresses may be relative to the user block */
            o.offset = (int64_t)(loc->addr + r->userblock);
            rc = b2_schunk_open_with(&o, s);
        }
        return rc < 0 ? B2_ERR_UNSUPPORTED : B2_OK;
    }
    int rc = b2_h5_read_stored(r, coff, loc, sbuf, scap);
    if (rc < 0)
        return rc;
    if (r->rep)
        r->rep->bytes_read += (int64_t)loc->stored;
    if (loc->mask) {
        if (loc->size != b2_h5_chunk_bytes(r))
            return b2_h5_raw_size_error(r, coff, loc->size);
        b2_h5_note(r->rep, "%s", "a chunk is stored unfiltered (filter mask set)");
        return B2_ERR_UNSUPPORTED;
    }
    rc = b2_h5_frame_open(*sbuf, (size_t)loc->size, r->ds->mem_limit, s);
    return rc < 0 ? B2_ERR_UNSUPPORTED : B2_OK;
}

/* rc, with the thread's message naming the chunk at coff (its HDF5 chunk
 * coordinates, as H5Dread_chunk takes them) unless it already does. */
static int chunk_error(const reader *r, const hsize_t *coff, int rc)
{
    char at[160];
    b2_h5_coords_text(at, sizeof at, r->rank, coff, NULL);
    const char *detail = b2_last_error_code() == rc ? b2_error_detail() : b2_strerror(rc);
    if (strstr(detail, at))
        return rc;
    return B2_FAIL(rc, "chunk at %s: %s", at, detail);
}

/* Chunk at chunk-grid index ci: its part of the box straight from its frame, or
 * through H5Dread when that cannot be done exactly. */
static int read_chunk(reader *r, const hsize_t *ci, uint8_t **tmp, size_t *tmpcap, uint8_t **sbuf,
                      size_t *scap)
{
    hsize_t coff[MAXDIM], lo[MAXDIM], hi[MAXDIM], clo[MAXDIM], chi[MAXDIM], cnt[MAXDIM];
    size_t n = r->ts;
    for (int d = 0; d < r->rank; d++) {
        coff[d] = ci[d] * r->cdims[d];
        lo[d] = r->start[d] > coff[d] ? r->start[d] : coff[d];
        hsize_t e = r->start[d] + r->count[d], ce = coff[d] + r->cdims[d];
        hi[d] = e < ce ? e : ce;
        clo[d] = lo[d] - coff[d];
        chi[d] = hi[d] - coff[d];
        cnt[d] = hi[d] - lo[d];
        n *= cnt[d];
    }
    b2_h5_chunk_loc loc;
    b2_h5_locate(r, coff, &loc);
    int rc = loc.ok ? B2_OK : B2_ERR_UNSUPPORTED;
    if (rc >= 0 && (loc.size == 0 || (!loc.via_hdf5 && loc.addr == HADDR_UNDEF))) {
        b2_h5_note(r->rep, "%s", "a chunk is not allocated (fill value)");
        rc = B2_ERR_UNSUPPORTED;
    } else if (rc >= 0 && loc.mask) {
        if (loc.size != b2_h5_chunk_bytes(r))
            return b2_h5_raw_size_error(r, coff, loc.size);
        b2_h5_note(r->rep, "%s", "a chunk is stored unfiltered (filter mask set)");
        rc = B2_ERR_UNSUPPORTED;
    }
    if (rc >= 0 && *tmpcap < n) {
        uint8_t *p = realloc(*tmp, n);
        if (!p)
            return B2_FAIL(B2_ERR_NOMEM, "%zu bytes for a chunk's part", n);
        *tmp = p;
        *tmpcap = n;
    }
    b2_schunk *s = NULL;
    char where[160];
    if (rc >= 0)
        rc = open_frame(r, coff, &loc, sbuf, scap, &s, where, sizeof where);
    if (rc >= 0) {
        rc = decode_part(r, s, where, loc.size, clo, chi, *tmp, n);
        if (rc == B2_ERR_UNSUPPORTED)
            b2_h5_note(r->rep, "%s", "a chunk's frame does not map onto the chunk");
    }
    if (rc == B2_ERR_UNSUPPORTED) {
        if (r->rep)
            r->rep->chunks_h5dread++;
        rc = b2_h5_dread_part(r, lo, hi);
        return rc < 0 ? chunk_error(r, coff, rc) : rc;
    }
    if (rc < 0)
        return chunk_error(r, coff, rc);
    if (r->rep)
        r->rep->chunks_direct++;
    int64_t ustr[MAXDIM], pstr[MAXDIM];
    b2_h5_strides_of(r->rank, r->count, ustr);
    b2_h5_strides_of(r->rank, cnt, pstr);
    int64_t uoff = 0;
    for (int d = 0; d < r->rank; d++)
        uoff += (int64_t)(lo[d] - r->start[d]) * ustr[d];
    b2_h5_copy_box(r->rank, cnt, r->ts, r->buf + uoff * (int64_t)r->ts, ustr, *tmp, pstr);
    return B2_OK;
}

/* Chunks still in HDF5's cache reach the file before we read it directly. */
static void flush_if_writable(const b2_h5_reader *rd)
{
    if (!rd->writable)
        return;
    hid_t fid = rd->h->Iget_file_id(rd->dset);
    if (fid >= 0) {
        rd->h->Fflush(fid, H5F_SCOPE_LOCAL);
        rd->h->Fclose(fid);
    }
}

static int read_box(reader *r, b2_h5_reader *rd, size_t bufsize)
{
    const b2_h5_read_api *h = r->h;
    B2_FAIL_IF(h->Sget_simple_extent_type(r->fspace) != H5S_SIMPLE, B2_ERR_UNSUPPORTED,
               "the dataspace is not simple");
    B2_FAIL_IF(h->Sget_simple_extent_ndims(r->fspace) != r->rank, B2_ERR_INVALID_PARAM,
               "the dataset's rank changed");
    h->Sget_simple_extent_dims(r->fspace, r->dims, NULL);
    uint64_t nelem = 1;
    for (int d = 0; d < r->rank; d++) {
        B2_FAIL_IF(r->count[d] > r->dims[d] || r->start[d] > r->dims[d] - r->count[d],
                   B2_ERR_RANGE, "box [%llu, %llu) outside dimension %d of size %llu",
                   (unsigned long long)r->start[d],
                   (unsigned long long)(r->start[d] + r->count[d]), d,
                   (unsigned long long)r->dims[d]);
        nelem *= r->count[d];
    }
    const char *why = r->ds->why;
    r->ts = r->ds->ts;
    if (r->mem_type != H5P_DEFAULT) {
        hid_t ftype = h->Dget_type(r->dset);
        B2_FAIL_IF(ftype < 0, B2_ERR_INVALID_PARAM, "the dataset has no datatype");
        if (!*why && h->Tequal(r->mem_type, ftype) <= 0)
            why = "the memory type differs from the file type (conversion)";
        b2_h5_api_get(NULL)->Tclose(ftype);
        r->ts = b2_h5_api_get(NULL)->Tget_size(r->mem_type);
    }
    size_t ts = r->ts;
    if (ts == 0 || nelem > SIZE_MAX / ts || bufsize < nelem * ts)
        return B2_FAIL(B2_ERR_DST_TOO_SMALL, "the box needs %llu elements of %zu bytes, buf has %zu",
                       (unsigned long long)nelem, ts, bufsize);
    if (nelem == 0) {
        if (r->rep)
            r->rep->path = B2_H5_READ_DIRECT;
        return B2_OK;
    }
    if (*why) {
        if (r->rep) {
            r->rep->path = B2_H5_READ_H5DREAD;
            b2_h5_note(r->rep, "%s", why);
        }
        hsize_t hi[MAXDIM];
        for (int d = 0; d < r->rank; d++)
            hi[d] = r->start[d] + r->count[d];
        return b2_h5_dread_part(r, r->start, hi);
    }
    flush_if_writable(r->ds);
    hsize_t c0[MAXDIM], c1[MAXDIM], ci[MAXDIM];
    int64_t nchunks = 1;
    r->grid_chunks = 1;
    for (int d = 0; d < r->rank; d++) {
        uint64_t g = (r->dims[d] + r->cdims[d] - 1) / r->cdims[d];
        r->grid_chunks = g && r->grid_chunks > UINT64_MAX / g ? UINT64_MAX : r->grid_chunks * g;
        c0[d] = ci[d] = r->start[d] / r->cdims[d];
        c1[d] = (r->start[d] + r->count[d] - 1) / r->cdims[d];
        nchunks *= (int64_t)(c1[d] - c0[d] + 1);
    }
    /* Chunks may be read whole through HDF5 when looking them up by address
     * could cost more (b2_h5_locate). H5Dget_chunk_storage_size then fails on
     * every chunk not allocated: HDF5's error printing is off meanwhile (our
     * errors carry their own messages), set once, as a pair of calls costs
     * more than the look-up. */
    const b2_h5_read_api *hh = r->h;
    b2_h5_chunk_table tab;
    if (b2_h5_chunk_table_wanted(r, nchunks)) {
        int trc = b2_h5_chunk_table_fill(r, c0, c1, nchunks, &tab);
        if (trc < 0)
            return trc;
        r->tab = &tab;
    }
    r->may_read_whole = !r->tab && hh->Dget_chunk_storage_size &&
                        (hh->Dread_chunk || hh->Dread_chunk2) &&
                        (rd->lookup == B2_H5_LOOKUP_READ ||
                         (rd->lookup != B2_H5_LOOKUP_ADDR &&
                          r->grid_chunks * B2_H5_ADDR_NS_PER_CHUNK > B2_H5_READ_NS));
    H5E_auto2_t efn = NULL;
    void *efn_data = NULL;
    if (r->may_read_whole) {
        hh->Eget_auto2(H5E_DEFAULT, &efn, &efn_data);
        hh->Eset_auto2(H5E_DEFAULT, NULL, NULL);
    }
    int rc;
    if (b2_h5_par_wanted(r, nchunks, nelem * ts)) {
        rc = b2_h5_par_read(r, rd, c0, c1, nchunks);
    } else {
        uint8_t *tmp = NULL, *sbuf = NULL;
        size_t tmpcap = 0, scap = 0;
        for (;;) {
            if ((rc = read_chunk(r, ci, &tmp, &tmpcap, &sbuf, &scap)) < 0)
                break;
            if (!b2_h5_next_chunk(r->rank, ci, c0, c1))
                break;
        }
        free(tmp);
        free(sbuf);
    }
    if (r->may_read_whole)
        hh->Eset_auto2(H5E_DEFAULT, efn, efn_data);
    if (r->rep)
        r->rep->path = r->rep->chunks_h5dread == 0 ? B2_H5_READ_DIRECT
                     : r->rep->chunks_direct == 0  ? B2_H5_READ_H5DREAD
                                                   : B2_H5_READ_MIXED;
    return rc;
}

int b2_h5_reader_open(hid_t dset, b2_h5_reader **out)
{
    if (!out)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "out is NULL");
    *out = NULL;
    const b2_h5_read_api *h = b2_h5_read_api_get();
    if (!h)
        return B2_FAIL(B2_ERR_UNSUPPORTED, "no HDF5 library found in this process");
    b2_h5_reader *rd = calloc(1, sizeof *rd);
    if (!rd)
        return B2_FAIL(B2_ERR_NOMEM, "a dataset reader");
    rd->h = h;
    rd->dset = dset;
    hid_t fspace = h->Dget_space(dset), ftype = -1;
    int rc = B2_OK;
    if (fspace < 0) {
        rc = B2_FAIL(B2_ERR_INVALID_PARAM, "not a dataset (no dataspace)");
    } else {
        rd->rank = h->Sget_simple_extent_ndims(fspace);
        rd->nthreads = b2_h5_nthreads_from_env();
        rd->par_min = B2_H5_PAR_MIN_BYTES;
        rd->mem_limit = b2_h5_memory_limit_from_env();
        rd->lookup = b2_h5_lookup_from_env();
        h->Sclose(fspace);
        if (rd->rank < 1 || rd->rank > MAXDIM)
            rc = B2_FAIL(B2_ERR_UNSUPPORTED, "dataspace rank %d (1..%d supported)", rd->rank, MAXDIM);
    }
    if (rc >= 0 && (ftype = h->Dget_type(dset)) < 0)
        rc = B2_FAIL(B2_ERR_INVALID_PARAM, "the dataset has no datatype");
    if (rc >= 0) {
        rd->ts = b2_h5_api_get(NULL)->Tget_size(ftype);
        b2_h5_api_get(NULL)->Tclose(ftype);
        b2_h5_dset_check c = {.rank = rd->rank, .ts = rd->ts};
        char why_buf[128];
        snprintf(rd->why, sizeof rd->why, "%s",
                 b2_h5_dataset_refusal(h, dset, &c, why_buf, sizeof why_buf));
        memcpy(rd->cdims, c.cdims, sizeof rd->cdims);
        rd->userblock = c.userblock;
        rd->writable = c.writable;
        rd->path = c.path;
    }
    if (rc < 0) {
        b2_h5_reader_free(rd);
        return rc;
    }
    *out = rd;
    return B2_OK;
}

int b2_h5_reader_read(b2_h5_reader *rd, hid_t mem_type, const hsize_t *start,
                      const hsize_t *count, void *buf, size_t bufsize,
                      b2_h5_read_report *report)
{
    if (report)
        memset(report, 0, sizeof *report);
    if (!rd || !start || !count || (!buf && bufsize))
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !rd ? "reader" : !start ? "start"
                       : !count ? "count" : "buf");
    const b2_h5_read_api *h = rd->h;
    reader r = {.h = h, .ds = rd, .dset = rd->dset, .mem_type = mem_type, .rank = rd->rank,
                .cdims = rd->cdims, .start = start, .count = count, .buf = buf,
                .path = rd->path, .userblock = rd->userblock, .rep = report};
    r.fspace = h->Dget_space(rd->dset);
    if (r.fspace < 0)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "not a dataset (no dataspace)");
    b2_h5_ctx *ctx = b2_h5_ctx_get(rd->nthreads);
    r.dctx = ctx ? ctx->dctx : NULL;
    int rc = read_box(&r, rd, bufsize);
    h->Sclose(r.fspace);
    return rc;
}

void b2_h5_reader_free(b2_h5_reader *rd)
{
    if (!rd)
        return;
    b2_h5_par_free(rd);
    free(rd->tab);
    free(rd->path);
    free(rd);
}

int b2_h5_reader_set_nthreads(b2_h5_reader *rd, int nthreads)
{
    if (!rd)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "reader is NULL");
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > 256)
        nthreads = 256;
    if (nthreads != rd->nthreads)
        b2_h5_par_free(rd); /* the pool and workers are made again for the new count */
    rd->nthreads = nthreads;
    return B2_OK;
}

int b2_h5_reader_lookup_stats(const b2_h5_reader *rd, b2_h5_lookup_stats *out)
{
    if (!rd || !out)
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !rd ? "reader" : "out");
    *out = rd->st;
    return B2_OK;
}

int b2_h5_reader_nthreads(const b2_h5_reader *rd)
{
    return rd ? rd->nthreads : 0;
}

void b2_h5_reader_set_par_min(b2_h5_reader *rd, uint64_t bytes)
{
    rd->par_min = bytes;
}

void b2_h5_reader_set_lookup(b2_h5_reader *rd, int mode)
{
    rd->lookup = mode;
}

int64_t b2_h5_reader_chunks_via_hdf5(const b2_h5_reader *rd)
{
    return rd->chunks_via_hdf5;
}

void b2_h5_reader_set_chunk_hook(b2_h5_reader *rd, b2_h5_chunk_hook fn, void *ud)
{
    rd->hook = fn;
    rd->hook_ud = ud;
}

const char *b2_h5_last_error_message(void) { return b2_last_error_message(); }

int b2_h5_read_box(hid_t dset, hid_t mem_type, const hsize_t *start, const hsize_t *count,
                   void *buf, size_t bufsize, b2_h5_read_report *report)
{
    if (report)
        memset(report, 0, sizeof *report);
    if (!start || !count || (!buf && bufsize))
        return B2_FAIL(B2_ERR_INVALID_PARAM, "%s is NULL", !start ? "start" : !count ? "count" : "buf");
    b2_h5_reader *rd = NULL;
    int rc = b2_h5_reader_open(dset, &rd);
    if (rc >= 0)
        rc = b2_h5_reader_read(rd, mem_type, start, count, buf, bufsize, report);
    b2_h5_reader_free(rd);
    return rc;
}
