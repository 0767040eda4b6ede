/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 convert FILE.h5:/DATASET FILE.b2nd`: stored filter-32026 chunks become
 * the array's chunks as they are (H5Dread_chunk, then appended to the array's
 * super-chunk); the others are read through HDF5 and compressed again. The
 * array is written under a temporary name and renamed into place. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"

#ifdef B2CLI_HAVE_HDF5

#include "b2_frame_experimental.h"
#include "b2_h5filter.h"

typedef struct h5src {
    hid_t d;
    int rank;
    int32_t ts;
    int32_t cdims[B2_ND_MAX_DIM]; /* HDF5 chunk dims (chunked only) */
    int chunked;
    uint8_t *buf;
    size_t cap;
} h5src;

/* Replace a finished temporary file with dst. */
static int commit_tmp(const char *tmp, const char *dst)
{
    if (rename(tmp, dst) != 0) {
        b2cli_data_error(dst, "cannot rename %s into place: %s", tmp, strerror(errno));
        unlink(tmp);
        return B2_ERR_IO;
    }
    return B2_OK;
}

/* Open the frame of the stored chunk at offset off. 1 with *s open (the frame
 * lives in h->buf), 0 when it is not one to move (reason given), < 0 on error. */
static int h5_chunk_frame(conv *c, h5src *h, const hsize_t *off, b2_schunk **s)
{
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    *s = NULL;
    if (H5Dget_chunk_info_by_coord(h->d, off, &mask, &addr, &size) < 0 || addr == HADDR_UNDEF) {
        conv_why(c, "unallocated chunks (fill value)");
        return 0;
    }
    if (mask != 0) {
        conv_why(c, "chunks stored without the filter (filter mask %u)", mask);
        return 0;
    }
    if (conv_grow(&h->buf, &h->cap, (size_t)size) < 0)
        return B2_ERR_NOMEM;
    uint32_t m2 = 0;
    if (H5Dread_chunk(h->d, H5P_DEFAULT, off, &m2, h->buf) < 0)
        return B2_ERR_IO;
    if (b2_schunk_open_buffer(h->buf, (size_t)size, 0, s) < 0 || b2_schunk_nchunks(*s) != 1) {
        b2_schunk_free(*s);
        *s = NULL;
        conv_why(c, "stored chunks that are not one-chunk Blosc2 frames");
        return 0;
    }
    return 1;
}

/* Block shape of the b2nd chunk in frame s, if it maps onto the HDF5 chunk. */
static int frame_blockshape(h5src *h, b2_schunk *s, int32_t *bs)
{
    uint8_t *m = NULL;
    int32_t mlen = 0;
    if (b2_schunk_meta_get(s, "b2nd", &m, &mlen) >= 0) {
        b2_nd_meta meta;
        int rc = b2_nd_meta_decode(m, (size_t)mlen, &meta);
        free(m);
        if (rc < 0)
            return 0;
        int ok = meta.ndim == h->rank;
        for (int i = 0; ok && i < h->rank; i++) {
            ok = meta.shape[i] == h->cdims[i] && meta.chunkshape[i] == h->cdims[i];
            bs[i] = meta.blockshape[i];
        }
        b2_nd_meta_clear(&meta);
        return ok;
    }
    /* A plain frame (rank 1): its chunk's blocks are the array's blocks when
     * they divide the chunk (no padding). */
    const uint8_t *ch;
    int32_t cb;
    b2_chunk_info ci;
    if (h->rank != 1 || b2_schunk_chunk_view(s, 0, &ch, &cb) < 0 ||
        b2_chunk_get_info(ch, (size_t)cb, &ci) < 0 || ci.vlblocks || ci.special)
        return 0;
    if (ci.blocksize <= 0 || ci.blocksize % h->ts || ci.nbytes != (int64_t)h->cdims[0] * h->ts ||
        ci.nbytes % ci.blocksize)
        return 0;
    bs[0] = ci.blocksize / h->ts;
    return 1;
}

/* Move stored chunk idx (box start) into the array's super-chunk out, whose
 * chunk geometry is scratch's. 1 moved, 0 not, < 0 error. */
static int h5_move_chunk(conv *c, h5src *h, b2_nd_array *scratch, b2_schunk *out, int64_t idx,
                         const int64_t *start)
{
    hsize_t off[B2_ND_MAX_DIM];
    b2_schunk *s;
    int32_t bs[B2_ND_MAX_DIM];
    for (int i = 0; i < h->rank; i++)
        off[i] = (hsize_t)start[i];
    int rc = h5_chunk_frame(c, h, off, &s);
    if (rc <= 0)
        return rc;
    const int32_t *abs = b2_nd_blockshape(scratch);
    int ok = frame_blockshape(h, s, bs);
    for (int i = 0; ok && i < h->rank; i++)
        ok = bs[i] == abs[i];
    if (!ok) {
        conv_why(c, "chunks whose block shape is not the array's");
        b2_schunk_free(s);
        return 0;
    }
    const int32_t *acs = b2_nd_chunkshape(scratch);
    int64_t chunk_bytes = h->ts; /* the padded chunk: whole blocks */
    for (int i = 0; i < h->rank; i++)
        chunk_bytes *= (acs[i] + abs[i] - 1) / abs[i] * abs[i];
    const uint8_t *ch;
    int32_t cb;
    b2_chunk_info ci;
    rc = b2_schunk_chunk_view(s, 0, &ch, &cb);
    if (rc >= 0)
        rc = b2_chunk_get_info(ch, (size_t)cb, &ci);
    if (rc < 0 || ci.special == B2_SPECIAL_UNINIT || ci.nbytes != chunk_bytes ||
        ci.typesize != (h->ts > 255 ? 1 : h->ts)) {
        conv_why(c, rc < 0 ? "unreadable stored chunks" : ci.special == B2_SPECIAL_UNINIT
                ? "uninitialised chunks" : "chunks of another size or typesize");
        b2_schunk_free(s);
        return 0;
    }
    int64_t r = b2_schunk_nchunks(out) == idx ? b2_schunk_append_chunk(out, ch, cb) : B2_ERR_RANGE;
    b2_schunk_free(s);
    return r < 0 ? (int)r : 1;
}

/* Copy the C-order box of extent ext (nd dims) into the C-order buffer of
 * extent full at its origin; the rest of dst is left as it is. */
static void place_box(int nd, const int64_t *ext, const int32_t *full, size_t ts, const uint8_t *src,
                      uint8_t *dst)
{
    if (nd == 1) {
        memcpy(dst, src, (size_t)ext[0] * ts);
        return;
    }
    size_t sstride = ts, dstride = ts;
    for (int d = 1; d < nd; d++) {
        sstride *= (size_t)ext[d];
        dstride *= (size_t)full[d];
    }
    for (int64_t i = 0; i < ext[0]; i++)
        place_box(nd - 1, ext + 1, full + 1, ts, src + (size_t)i * sstride, dst + (size_t)i * dstride);
}

/* The b2nd chunk for the C-order items of box [start, stop) of an array whose
 * chunks are scratch's one chunk: compressed by the scratch array, padding zero.
 * Appended to out. */
static int append_compressed(b2_nd_array *scratch, b2_schunk *out, int nd, const int64_t *start,
                             const int64_t *stop, const uint8_t *box, uint8_t **full, size_t *fullcap)
{
    const int32_t *cs = b2_nd_chunkshape(scratch);
    int32_t ts = b2_nd_typesize(scratch);
    int64_t ext[B2_ND_MAX_DIM], zero[B2_ND_MAX_DIM], whole[B2_ND_MAX_DIM];
    size_t n = (size_t)ts;
    int edge = 0;
    for (int d = 0; d < nd; d++) {
        ext[d] = stop[d] - start[d];
        zero[d] = 0;
        whole[d] = cs[d];
        n *= (size_t)cs[d];
        edge |= ext[d] != cs[d];
    }
    const uint8_t *src = box;
    if (edge) {
        if (conv_grow(full, fullcap, n) < 0)
            return B2_ERR_NOMEM;
        memset(*full, 0, n);
        place_box(nd, ext, cs, (size_t)ts, box, *full);
        src = *full;
    }
    int rc = b2_nd_set_slice_cbuffer(scratch, zero, whole, src, n);
    uint8_t *ch = NULL;
    int32_t cb = 0;
    if (rc >= 0)
        rc = b2_schunk_get_chunk(b2_nd_schunk(scratch), 0, &ch, &cb);
    if (rc >= 0) {
        int64_t r = b2_schunk_append_chunk(out, ch, cb);
        rc = r < 0 ? (int)r : B2_OK;
    }
    free(ch);
    return rc;
}

/* Open dataset dname with a chunk cache large enough for whole chunk rows. */
static hid_t open_dataset(hid_t f, const char *dname)
{
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 12421, 64u << 20, 1.0);
    hid_t d = H5Dopen2(f, dname, dapl);
    H5Pclose(dapl);
    return d;
}

int conv_h5_to_b2nd(conv *c, const char *file, const char *dname)
{
    int ret = B2CLI_EXIT_DATA, rc;
    hid_t f = -1, sp = -1, t = -1, dcpl = -1;
    h5src h;
    b2_nd_array *scratch = NULL;
    b2_schunk *out = NULL; /* the array's super-chunk */
    b2_h5_reader *rd = NULL;
    uint8_t *box = NULL, *full = NULL;
    size_t boxcap = 0, fullcap = 0;
    char *tmp = NULL, dtype[32];
    int tmp_made = 0;
    memset(&h, 0, sizeof h);
    h.d = -1;

    if (conv_file_exists(c->dst) && !c->force) {
        b2cli_data_error(c->dst, "exists already (--force replaces it)");
        return B2CLI_EXIT_DATA;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    b2_h5_register();
    if ((f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        b2cli_data_error(file, "cannot open as HDF5");
        return B2CLI_EXIT_DATA;
    }
    if ((h.d = open_dataset(f, dname)) < 0) {
        b2cli_data_error(file, "no dataset '%s'", dname);
        goto done;
    }
    sp = H5Dget_space(h.d);
    t = H5Dget_type(h.d);
    dcpl = H5Dget_create_plist(h.d);
    hsize_t dims[H5S_MAX_RANK];
    h.rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (h.rank < 1 || h.rank > B2_ND_MAX_DIM || H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
        b2cli_data_error(c->src, "a b2nd array needs a simple dataspace of rank 1..%d", B2_ND_MAX_DIM);
        goto done;
    }
    if (t < 0 || conv_dtype_of(t, dtype, sizeof dtype) < 0 || H5Tget_size(t) > INT32_MAX) {
        b2cli_data_error(c->src, "its element type has no fixed size (variable-length data)");
        goto done;
    }
    h.ts = (int32_t)H5Tget_size(t);
    h.chunked = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED;
    if (h.chunked) {
        hsize_t cd[H5S_MAX_RANK];
        if (H5Pget_chunk(dcpl, h.rank, cd) != h.rank)
            h.chunked = 0;
        for (int i = 0; h.chunked && i < h.rank; i++) {
            if (cd[i] > INT32_MAX)
                h.chunked = 0;
            h.cdims[i] = (int32_t)cd[i];
        }
    }
    /* The pipeline: raw chunks only when Blosc2 is the only filter. */
    int nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : 0, only_blosc2 = 0;
    unsigned cd[32];
    size_t ncd = 0;
    for (int i = 0; i < nf; i++) {
        unsigned flags, tmpcd[32];
        size_t n = 32;
        char fname[64];
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &n, tmpcd, sizeof fname, fname, NULL);
        if (id == H5_FILTER_BLOSC2) {
            ncd = n < 32 ? n : 32;
            memcpy(cd, tmpcd, ncd * sizeof *cd);
            only_blosc2 = nf == 1;
        }
    }
    if (c->nchunks_dims && c->nchunks_dims != h.rank) {
        ret = b2cli_usage_error(CMD, "--chunks needs %d values, one per dimension", h.rank);
        goto done;
    }
    if (c->nblocks_dims && c->nblocks_dims != h.rank) {
        ret = b2cli_usage_error(CMD, "--blocks needs %d values, one per dimension", h.rank);
        goto done;
    }

    /* The array's parameters. */
    b2_cparams cp;
    if (c->cpo.given)
        cp = c->cpo.p;
    else if (!ncd || b2_h5_chunk_params(cd, ncd, h.rank, h.cdims, h.ts, &cp, NULL) < 0)
        b2_cparams_init(&cp); /* not the filter's values: chunks are recompressed anyway */
    cp.typesize = h.ts;
    cp.nthreads = c->nthreads;
    b2_nd_params np;
    memset(&np, 0, sizeof np);
    np.ndim = h.rank;
    int same_chunks = h.chunked;
    for (int i = 0; i < h.rank; i++) {
        np.shape[i] = (int64_t)dims[i];
        np.chunkshape[i] = c->nchunks_dims ? c->chunks[i] : h.chunked ? h.cdims[i] : 0;
        np.blockshape[i] = c->nblocks_dims ? c->blocks[i] : 0;
        if (h.chunked && np.chunkshape[i] != h.cdims[i])
            same_chunks = 0;
    }
    int raw = only_blosc2 && same_chunks && !c->cpo.given && !c->recompress;
    if (!h.chunked)
        conv_why(c, "the dataset is not chunked");
    else if (!only_blosc2)
        conv_why(c, nf == 0 ? "the dataset is not compressed with Blosc2" : !ncd
                ? "the dataset does not use the Blosc2 filter" : "filters other than Blosc2 in the pipeline");
    else if (!same_chunks)
        conv_why(c, "another chunk shape");
    else if (c->cpo.given)
        conv_why(c, "compression options given");
    else if (c->recompress)
        conv_why(c, "--recompress");
    if (raw && !c->nblocks_dims) {
        /* The block shape of the first stored chunk that maps onto the array. */
        hsize_t nck = 0;
        H5Dget_num_chunks(h.d, sp, &nck);
        for (hsize_t k = 0; k < nck && k < 16; k++) {
            hsize_t off[H5S_MAX_RANK];
            unsigned mask;
            haddr_t addr;
            hsize_t size;
            b2_schunk *s = NULL;
            int32_t bs[B2_ND_MAX_DIM];
            char scratch[sizeof c->reason];
            memcpy(scratch, c->reason, sizeof scratch);
            if (H5Dget_chunk_info(h.d, sp, k, off, &mask, &addr, &size) < 0)
                break;
            rc = h5_chunk_frame(c, &h, off, &s);
            memcpy(c->reason, scratch, sizeof scratch);
            if (rc < 0)
                break;
            if (rc > 0 && frame_blockshape(&h, s, bs)) {
                for (int i = 0; i < h.rank; i++)
                    np.blockshape[i] = bs[i];
                b2_schunk_free(s);
                break;
            }
            b2_schunk_free(s);
        }
    }
    np.typesize = h.ts;
    np.dtype = dtype;
    np.cparams = &cp;
    if ((rc = b2_nd_default_shapes(&np)) < 0) {
        b2cli_data_error(c->dst, "cannot lay out the array: %s", b2cli_err(rc));
        goto done;
    }
    size_t tl = strlen(c->dst) + 32;
    if (!(tmp = malloc(tl)))
        goto done;
    snprintf(tmp, tl, "%s.b2convert-%ld", c->dst, (long)getpid());
    unlink(tmp);
    /* The array's chunks are appended in order, each written once: those that
     * move as they are, and the others compressed by a one-chunk scratch array
     * of the same geometry. */
    b2_nd_storage mem = {B2_STORAGE_MEMORY, NULL};
    b2_nd_params sp1 = np;
    for (int i = 0; i < h.rank; i++)
        sp1.shape[i] = np.chunkshape[i];
    if ((rc = b2_nd_create(&sp1, &mem, B2_ND_FILL_ZEROS, NULL, &scratch)) < 0 ||
        (rc = conv_bare_schunk(scratch, np.shape, tmp, &out)) < 0) {
        b2cli_data_error(c->dst, "cannot create the array: %s", b2cli_err(rc));
        goto done;
    }
    tmp_made = 1;
    b2_schunk_set_sync(out, 0);
    b2_schunk_set_defer_commit(out, 1); /* one commit at the end, not one an append */
    b2_nd_set_nthreads(scratch, c->nthreads);
    /* --threads: the reader decodes a chunk's blocks on that many threads */
    if ((rc = b2_h5_reader_open(h.d, &rd)) < 0 || (rc = b2_h5_reader_set_nthreads(rd, c->nthreads)) < 0) {
        b2cli_data_error(c->src, "cannot read the dataset: %s", b2cli_err(rc));
        goto done;
    }
    int64_t nper[B2_ND_MAX_DIM], total = h.ts;
    for (int i = 0; i < h.rank; i++)
        total *= np.shape[i];
    int64_t nchunks = conv_grid(h.rank, np.shape, np.chunkshape, nper);
    b2cli_progress pr;
    b2cli_progress_start(&pr, "convert", total);
    for (int64_t i = 0; i < nchunks; i++) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
        hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
        conv_chunk_box(h.rank, i, nper, np.shape, np.chunkshape, start, stop);
        size_t n = (size_t)h.ts;
        for (int d = 0; d < h.rank; d++) {
            hs[d] = (hsize_t)start[d];
            hc[d] = (hsize_t)(stop[d] - start[d]);
            n *= hc[d];
        }
        rc = raw ? h5_move_chunk(c, &h, scratch, out, i, start) : 0;
        if (rc > 0) {
            c->moved++;
        } else if (rc == 0) {
            if (conv_grow(&box, &boxcap, n) < 0) {
                rc = B2_ERR_NOMEM;
            } else if ((rc = b2_h5_reader_read(rd, 0, hs, hc, box, n, NULL)) < 0) {
                b2cli_data_error(c->src, "reading chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else if ((rc = append_compressed(scratch, out, h.rank, start, stop, box,
                                               &full, &fullcap)) < 0) {
                b2cli_data_error(c->dst, "writing chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else {
                c->recompressed++;
            }
        } else {
            b2cli_data_error(c->src, "chunk %lld: %s", (long long)i, b2cli_err(rc));
        }
        if (rc < 0) {
            b2cli_progress_end(&pr);
            goto done;
        }
        b2cli_progress_add(&pr, (int64_t)n);
    }
    b2cli_progress_end(&pr);
    if (b2_schunk_nchunks(out) != nchunks) {
        b2cli_data_error(c->dst, "%lld chunks written, %lld expected",
                         (long long)b2_schunk_nchunks(out), (long long)nchunks);
        goto done;
    }
    if ((rc = b2_schunk_set_defer_commit(out, 0)) < 0) {
        b2cli_data_error(c->dst, "cannot commit the array: %s", b2cli_err(rc));
        goto done;
    }
    /* Only the first commit's index and trailer are left behind; rewrite the
     * array compact when dead space is more than a little (1/64 of the file). */
    int64_t dead = b2_schunk_dead_bytes(out);
    if (dead > 0 && dead > b2_schunk_frame_len(out) / 64 &&
        (rc = b2_schunk_compact(out)) < 0) {
        b2cli_data_error(c->dst, "cannot compact the array: %s", b2cli_err(rc));
        goto done;
    }
    b2_schunk_free(out);
    out = NULL;
    if (commit_tmp(tmp, c->dst) < 0) {
        tmp_made = 0;
        goto done;
    }
    tmp_made = 0;
    conv_report(c);
    ret = B2CLI_OK;
done:
    b2_h5_reader_free(rd);
    b2_nd_free(scratch);
    b2_schunk_free(out);
    free(full);
    if (tmp_made)
        unlink(tmp);
    free(tmp);
    free(box);
    free(h.buf);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (h.d >= 0)
        H5Dclose(h.d);
    H5Fclose(f);
    return ret;
}

#endif
