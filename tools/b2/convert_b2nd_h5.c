/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 convert FILE.b2nd FILE.h5:/DATASET`: each b2nd chunk is wrapped in the
 * one-chunk frame filter 32026 writes and stored with H5Dwrite_chunk (filter
 * mask 0); chunks that cannot move are written through H5Dwrite and the filter. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "h5.h"
#include "obj.h"
#include "progress.h"

#ifdef B2CLI_HAVE_HDF5

#include "b2_h5filter.h"

/* 1 when the link path exists in f (each intermediate group checked). */
static int h5_path_exists(hid_t f, const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return 0;
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        memcpy(buf, path, i);
        buf[i] = '\0';
        if (H5Lexists(f, buf, H5P_DEFAULT) <= 0)
            return 0;
    }
    return 1;
}

/* One-chunk frames around b2nd chunks, as the filter stores them. */
typedef struct wrapper {
    b2_schunk *s; /* empty: a bare b2nd array of the chunk's shape (rank >= 2) or plain */
    int plain;
    int64_t hl;
    uint8_t *buf;
    size_t cap;
} wrapper;

static int wrapper_init(wrapper *w, int rank, const int32_t *cdims, const int32_t *bshape, int32_t ts,
                        const b2_cparams *cp)
{
    memset(w, 0, sizeof *w);
    if (rank >= 2) {
        char dtype[16];
        b2_nd_params np;
        memset(&np, 0, sizeof np);
        np.ndim = rank;
        for (int i = 0; i < rank; i++) {
            np.shape[i] = cdims[i];
            np.chunkshape[i] = cdims[i];
            np.blockshape[i] = bshape[i];
        }
        snprintf(dtype, sizeof dtype, "|V%d", (int)ts);
        np.typesize = ts;
        np.dtype = dtype;
        np.cparams = cp;
        /* A one-chunk array as template (made once), then its header alone. */
        b2_nd_array *tmpl = NULL;
        int rc = b2_nd_create(&np, NULL, B2_ND_FILL_ZEROS, NULL, &tmpl);
        if (rc >= 0)
            rc = conv_bare_schunk(tmpl, np.shape, NULL, &w->s);
        b2_nd_free(tmpl);
        if (rc < 0)
            return rc;
    } else {
        int rc = b2cli_frame_create(NULL, 0, cp, &w->s);
        if (rc < 0)
            return rc;
        w->plain = 1;
    }
    w->hl = b2_schunk_header_len(w->s);
    return w->hl < 0 ? (int)w->hl : B2_OK;
}

static void wrapper_free(wrapper *w)
{
    b2_schunk_free(w->s);
    free(w->buf);
}

/* The frame around chunk ch (cb bytes); its length or an error. */
static int64_t wrap(wrapper *w, const uint8_t *ch, int32_t cb)
{
    size_t need = (size_t)w->hl + (size_t)cb + 4096;
    if (conv_grow(&w->buf, &w->cap, need) < 0)
        return B2_ERR_NOMEM;
    memcpy(w->buf + w->hl, ch, (size_t)cb);
    int64_t flen = b2_schunk_frame_around_chunk(w->s, w->buf, w->cap, cb);
    if (flen < 0)
        return flen;
    int32_t bsize = 0;
    if (w->plain) {
        b2_chunk_info ci;
        if (b2_chunk_get_info(ch, (size_t)cb, &ci) >= 0)
            bsize = ci.blocksize;
    }
    b2_h5_frame_set_stored_fields(w->buf, (size_t)flen, bsize);
    return flen;
}

/* One b2nd -> HDF5 conversion, from opening the array to closing the file:
 * open_src, plan, open_dst, copy (rows or chunks), finish, then release. */
typedef struct to_h5 {
    conv *c;
    const char *file, *dname;
    b2_nd_array *a;
    int rank;
    int32_t ts;
    const int64_t *shape;
    const int32_t *acs, *abs;          /* the array's chunk and block shapes */
    int32_t cdims[B2_ND_MAX_DIM];      /* the HDF5 chunk shape */
    int same_chunks, movable;          /* movable: chunks can move as they are */
    unsigned cd[7];                    /* the filter's cd_values */
    b2_cparams fcp;                    /* what the filter compresses these chunks with */
    hid_t f, d, t, sp, dcpl, lcpl;
    int created, dset_made;            /* to undo on failure */
    uint8_t *box;
    size_t boxcap;
    wrapper w;
    b2_h5_write_options wo;
    b2cli_progress pr;
} to_h5;

/* Open the source array and check it and the options fit an HDF5 output.
 * B2CLI_OK or an exit code (message printed). */
static int open_src(to_h5 *j)
{
    conv *c = j->c;
    if (b2_nd_open(c->src, B2_OPEN_READONLY, &j->a) < 0) {
        b2cli_obj o;
        if (b2cli_obj_open(&o, c->src) == 0) {
            b2cli_data_error(c->src, "is a %s, not a b2nd array", b2_kind_name(o.kind));
            b2cli_obj_close(&o);
        }
        return B2CLI_EXIT_DATA;
    }
    j->rank = b2_nd_ndim(j->a);
    j->ts = b2_nd_typesize(j->a);
    j->shape = b2_nd_shape(j->a);
    j->acs = b2_nd_chunkshape(j->a);
    j->abs = b2_nd_blockshape(j->a);
    b2_nd_set_nthreads(j->a, c->nthreads);
    if (j->rank < 1)
        return b2cli_data_error(c->src, "a 0-dimensional array has no HDF5 chunks");
    if (c->nchunks_dims && c->nchunks_dims != j->rank)
        return b2cli_usage_error(CMD, "--chunks needs %d values, one per dimension", j->rank);
    if (c->nblocks_dims)
        return b2cli_usage_error(CMD, "--blocks is for b2nd outputs (HDF5 takes --blocksize)");
    return B2CLI_OK;
}

/* The HDF5 chunk shape, the filter's cd_values, and whether chunks can move
 * as they are (else why not). B2CLI_OK or an exit code. */
static int plan(to_h5 *j)
{
    conv *c = j->c;
    int rank = j->rank;
    j->same_chunks = 1;
    for (int i = 0; i < rank; i++) {
        j->cdims[i] = c->nchunks_dims ? c->chunks[i] : j->acs[i];
        j->same_chunks &= j->cdims[i] == j->acs[i];
    }
    /* cd_values: (0, blocksize, 0, 0, clevel, filter, codec | meta << 8). */
    const b2_cparams *ap = b2_schunk_cparams(b2_nd_schunk(j->a));
    b2_cparams p = c->cpo.given ? c->cpo.p : *ap;
    int filt = p.filters[B2_MAX_FILTERS - 1], others = 0;
    for (int i = 0; i < B2_MAX_FILTERS - 1; i++)
        others |= p.filters[i];
    if (c->cpo.given && (others || filt > 3 || p.use_dict))
        return b2cli_usage_error(CMD, "an HDF5 dataset's cd_values hold one filter (shuffle, "
                                 "bitshuffle, delta or none) in the last slot and no dictionary");
    if (filt > 3)
        filt = 0; /* not expressible: chunks moved as they are keep their own */
    unsigned cd[7] = {0, 0, 0, 0, (unsigned)p.clevel, (unsigned)filt,
                      (unsigned)(p.codec & 0xff) | ((unsigned)p.codec_meta << 8)};
    int32_t fbs[B2_ND_MAX_DIM]; /* the block shape the filter picks for these chunks */
    if (b2_h5_chunk_params(cd, 7, rank, j->cdims, j->ts, &j->fcp, fbs) < 0)
        return b2cli_data_error(c->src, "no Blosc2 filter parameters for it: %s", b2_last_error_message());
    int64_t block_bytes = j->ts;
    for (int i = 0; i < rank; i++)
        block_bytes *= j->abs[i];
    j->movable = j->same_chunks && !c->cpo.given && !c->recompress && rank <= 16;
    if (rank == 1 && j->acs[0] % j->abs[0]) {
        j->movable = 0; /* the filter's rank-1 frames hold unpadded chunks */
        conv_why(c, "rank-1 blocks that do not divide the chunk");
    }
    if (c->cpo.given) {
        cd[1] = (unsigned)p.blocksize;
    } else if (rank >= 2) {
        /* v1 = 0 when the filter's automatic rule gives the array's block shape
         * (then chunks stored by the filter itself are the same bytes), else
         * the block's bytes. */
        int same = 1;
        for (int i = 0; i < rank; i++)
            same &= fbs[i] == j->abs[i];
        cd[1] = same ? 0 : (unsigned)block_bytes;
    } else {
        cd[1] = (unsigned)block_bytes;
    }
    memcpy(j->cd, cd, sizeof cd);
    if (!j->same_chunks)
        conv_why(c, "another chunk shape");
    else if (c->cpo.given)
        conv_why(c, "compression options given");
    else if (c->recompress)
        conv_why(c, "--recompress");
    return B2CLI_OK;
}

/* Open or create the HDF5 file and create the dataset (an existing one only
 * replaced with --force). B2CLI_OK or an exit code. */
static int open_dst(to_h5 *j)
{
    conv *c = j->c;
    const char *file = j->file, *dname = j->dname;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    b2_h5_register();
    if (conv_file_exists(file)) {
        if (!b2cli_h5_is_hdf5(file) || (j->f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT)) < 0)
            return b2cli_data_error(file, "exists but cannot be opened as HDF5 for writing");
    } else if ((j->f = H5Fcreate(file, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        return b2cli_data_error(file, "cannot create the HDF5 file");
    } else {
        j->created = 1;
    }
    if (h5_path_exists(j->f, dname)) {
        if (!c->force)
            return b2cli_data_error(file, "'%s' exists already (--force replaces it)", dname);
        if (H5Ldelete(j->f, dname, H5P_DEFAULT) < 0)
            return b2cli_data_error(file, "cannot remove '%s'", dname);
    }
    if ((j->t = conv_h5type_of(b2_nd_dtype(j->a), j->ts)) < 0 || H5Tget_size(j->t) != (size_t)j->ts)
        return b2cli_data_error(c->src, "no HDF5 type for dtype '%s'", b2_nd_dtype(j->a));
    hsize_t hdims[B2_ND_MAX_DIM], hcd[B2_ND_MAX_DIM], hmax[B2_ND_MAX_DIM];
    for (int i = 0; i < j->rank; i++) {
        hdims[i] = (hsize_t)j->shape[i];
        hcd[i] = (hsize_t)j->cdims[i];
        /* HDF5 wants chunks within fixed dimensions: a chunk longer than its
         * dimension makes that dimension extendible */
        hmax[i] = hcd[i] > hdims[i] ? H5S_UNLIMITED : hdims[i];
    }
    j->sp = H5Screate_simple(j->rank, hdims, hmax);
    j->dcpl = H5Pcreate(H5P_DATASET_CREATE);
    j->lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(j->lcpl, 1);
    if (H5Pset_chunk(j->dcpl, j->rank, hcd) < 0 ||
        H5Pset_filter(j->dcpl, H5_FILTER_BLOSC2, H5Z_FLAG_OPTIONAL, 7, j->cd) < 0 ||
        (j->d = H5Dcreate2(j->f, dname, j->t, j->sp, j->lcpl, j->dcpl, H5P_DEFAULT)) < 0)
        return b2cli_data_error(file, "cannot create dataset '%s' with the Blosc2 filter", dname);
    j->dset_made = 1;
    return B2CLI_OK;
}

/* Every chunk recompressed: slabs of whole chunk rows (about 64 MiB, at least
 * one row), each compressed on --threads threads by b2_h5_write_box into the
 * bytes the filter stores. B2_OK or an error (message printed). */
static int copy_rows(to_h5 *j, const int64_t *nper)
{
    int rank = j->rank;
    int64_t rowb = j->ts, rows = nper[0];
    for (int k = 1; k < rank; k++)
        rowb *= j->shape[k];
    rowb *= j->cdims[0];
    int64_t step = rowb > 0 && rowb < (64 << 20) ? (64 << 20) / rowb : 1;
    for (int64_t r = 0; r < rows; r += step) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
        hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
        size_t n = (size_t)j->ts;
        b2_h5_write_report wr;
        int rc;
        for (int k = 0; k < rank; k++) {
            int64_t end = (r + step) * j->cdims[0];
            start[k] = k ? 0 : r * j->cdims[0];
            stop[k] = k ? j->shape[k] : end < j->shape[0] ? end : j->shape[0];
            hs[k] = (hsize_t)start[k];
            hc[k] = (hsize_t)(stop[k] - start[k]);
            n *= hc[k];
        }
        long long r1 = (long long)(r + step < rows ? r + step : rows);
        if (conv_grow(&j->box, &j->boxcap, n) < 0) {
            rc = B2_ERR_NOMEM;
            b2cli_data_error(j->c->src, "out of memory");
        } else if ((rc = b2_nd_get_slice_cbuffer(j->a, start, stop, j->box, n)) < 0) {
            b2cli_data_error(j->c->src, "reading chunk rows %lld..%lld: %s", (long long)r, r1,
                             b2cli_err(rc));
        } else if ((rc = b2_h5_write_box(j->d, 0, hs, hc, j->box, n, &j->wo, &wr)) < 0) {
            b2cli_data_error(j->file, "writing chunk rows %lld..%lld: %s", (long long)r, r1,
                             b2cli_err(rc));
        } else {
            j->c->recompressed += wr.chunks_direct + wr.chunks_h5dwrite;
        }
        if (rc < 0)
            return rc;
        b2cli_progress_add(&j->pr, (int64_t)n);
    }
    return B2_OK;
}

/* Chunk i moved as it is (wrapped in the filter's frame, H5Dwrite_chunk), or,
 * when it cannot be (uninitialised), recompressed through b2_h5_write_box.
 * B2_OK or an error (message printed). */
static int copy_chunk(to_h5 *j, int64_t i, const int64_t *nper)
{
    conv *c = j->c;
    int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
    hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
    conv_chunk_box(j->rank, i, nper, j->shape, j->cdims, start, stop);
    size_t n = (size_t)j->ts;
    for (int k = 0; k < j->rank; k++) {
        hs[k] = (hsize_t)start[k];
        hc[k] = (hsize_t)(stop[k] - start[k]);
        n *= hc[k];
    }
    b2_schunk *as = b2_nd_schunk(j->a);
    const uint8_t *ch;
    int32_t cb;
    int rc = 0, moved = 0;
    if (b2_schunk_chunk_special(as, i) == B2_SPECIAL_UNINIT) {
        conv_why(c, "uninitialised chunks");
    } else if ((rc = b2_schunk_chunk_view(as, i, &ch, &cb)) < 0) {
        b2cli_data_error(c->src, "chunk %lld: %s", (long long)i, b2cli_err(rc));
    } else {
        int64_t flen = wrap(&j->w, ch, cb);
        if (flen < 0) {
            rc = (int)flen;
            b2cli_data_error(c->src, "chunk %lld: %s", (long long)i, b2cli_err(rc));
        } else if (H5Dwrite_chunk(j->d, H5P_DEFAULT, 0, hs, (size_t)flen, j->w.buf) < 0) {
            rc = B2_ERR_IO;
            b2cli_data_error(j->file, "H5Dwrite_chunk of chunk %lld failed", (long long)i);
        } else {
            moved = 1;
        }
    }
    if (rc >= 0 && !moved) {
        if (conv_grow(&j->box, &j->boxcap, n) < 0) {
            rc = B2_ERR_NOMEM;
        } else if ((rc = b2_nd_get_slice_cbuffer(j->a, start, stop, j->box, n)) < 0) {
            b2cli_data_error(c->src, "reading chunk %lld: %s", (long long)i, b2cli_err(rc));
        } else if ((rc = b2_h5_write_box(j->d, 0, hs, hc, j->box, n, &j->wo, NULL)) < 0) {
            b2cli_data_error(j->file, "writing chunk %lld: %s", (long long)i, b2cli_err(rc));
        } else {
            c->recompressed++;
        }
    } else if (moved) {
        c->moved++;
    }
    if (rc >= 0)
        b2cli_progress_add(&j->pr, (int64_t)n);
    return rc;
}

/* Copy every chunk: moved as they are when they can be, else in row slabs.
 * B2CLI_OK or an exit code. */
static int copy(to_h5 *j)
{
    int rc;
    if (j->movable && (rc = wrapper_init(&j->w, j->rank, j->cdims, j->abs, j->ts, &j->fcp)) < 0) {
        j->movable = 0;
        conv_why(j->c, "no frame for these chunks: %s", b2cli_err(rc));
    }
    int64_t nper[B2_ND_MAX_DIM], total = j->ts;
    for (int i = 0; i < j->rank; i++)
        total *= j->shape[i];
    int64_t nchunks = conv_grid(j->rank, j->shape, j->cdims, nper);
    b2cli_progress_start(&j->pr, "convert", total);
    j->wo.nthreads = j->c->nthreads;
    rc = j->movable ? B2_OK : copy_rows(j, nper);
    for (int64_t i = 0; j->movable && rc >= 0 && i < nchunks; i++)
        rc = copy_chunk(j, i, nper);
    b2cli_progress_end(&j->pr);
    return rc < 0 ? B2CLI_EXIT_DATA : B2CLI_OK;
}

/* Close the dataset and flush the file, then report. B2CLI_OK or an exit code. */
static int finish(to_h5 *j)
{
    herr_t e = H5Dclose(j->d);
    j->d = -1;
    if (e < 0 || H5Fflush(j->f, H5F_SCOPE_LOCAL) < 0)
        return b2cli_data_error(j->file, "cannot write the dataset");
    j->dset_made = 0;
    conv_report(j->c);
    return B2CLI_OK;
}

/* Release everything; on failure remove what was made (the dataset, or the
 * file when this run created it). Returns ret, or an exit code when closing
 * the file fails. */
static int release(to_h5 *j, int ret)
{
    wrapper_free(&j->w);
    free(j->box);
    if (j->d >= 0)
        H5Dclose(j->d);
    if (j->dset_made && !j->created)
        H5Ldelete(j->f, j->dname, H5P_DEFAULT);
    if (j->lcpl >= 0)
        H5Pclose(j->lcpl);
    if (j->dcpl >= 0)
        H5Pclose(j->dcpl);
    if (j->sp >= 0)
        H5Sclose(j->sp);
    if (j->t >= 0)
        H5Tclose(j->t);
    if (j->f >= 0 && H5Fclose(j->f) < 0 && ret == B2CLI_OK) {
        b2cli_data_error(j->file, "cannot close the HDF5 file");
        ret = B2CLI_EXIT_DATA;
    }
    if (j->created && ret != B2CLI_OK)
        unlink(j->file);
    b2_nd_free(j->a);
    return ret;
}

int conv_b2nd_to_h5(conv *c, const char *file, const char *dname)
{
    to_h5 j;
    memset(&j, 0, sizeof j);
    j.c = c;
    j.file = file;
    j.dname = dname;
    j.f = j.d = j.t = j.sp = j.dcpl = j.lcpl = -1;
    int ret = open_src(&j);
    if (ret == B2CLI_OK)
        ret = plan(&j);
    if (ret == B2CLI_OK)
        ret = open_dst(&j);
    if (ret == B2CLI_OK)
        ret = copy(&j);
    if (ret == B2CLI_OK)
        ret = finish(&j);
    return release(&j, ret);
}

#endif
