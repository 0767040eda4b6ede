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
        if (!(w->s = b2_schunk_new(cp)))
            return B2_ERR_INVALID_PARAM;
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

int conv_b2nd_to_h5(conv *c, const char *file, const char *dname)
{
    int ret = B2CLI_EXIT_DATA, rc, created = 0, dset_made = 0;
    b2_nd_array *a = NULL;
    hid_t f = -1, d = -1, t = -1, sp = -1, dcpl = -1, lcpl = -1;
    uint8_t *box = NULL;
    size_t boxcap = 0;
    wrapper w;
    memset(&w, 0, sizeof w);

    if ((rc = b2_nd_open(c->src, B2_OPEN_READONLY, &a)) < 0) {
        b2cli_obj o;
        if (b2cli_obj_open(&o, c->src) == 0) {
            b2cli_data_error(c->src, "is a %s, not a b2nd array", b2_kind_name(o.kind));
            b2cli_obj_close(&o);
        }
        return B2CLI_EXIT_DATA;
    }
    int rank = b2_nd_ndim(a);
    int32_t ts = b2_nd_typesize(a);
    const int64_t *shape = b2_nd_shape(a);
    const int32_t *acs = b2_nd_chunkshape(a), *abs = b2_nd_blockshape(a);
    b2_nd_set_nthreads(a, c->nthreads);
    if (rank < 1) {
        b2cli_data_error(c->src, "a 0-dimensional array has no HDF5 chunks");
        goto done;
    }
    if (c->nchunks_dims && c->nchunks_dims != rank) {
        ret = b2cli_usage_error(CMD, "--chunks needs %d values, one per dimension", rank);
        goto done;
    }
    if (c->nblocks_dims) {
        ret = b2cli_usage_error(CMD, "--blocks is for b2nd outputs (HDF5 takes --blocksize)");
        goto done;
    }
    int32_t cdims[B2_ND_MAX_DIM];
    int same_chunks = 1;
    for (int i = 0; i < rank; i++) {
        cdims[i] = c->nchunks_dims ? c->chunks[i] : acs[i];
        same_chunks &= cdims[i] == acs[i];
    }
    /* cd_values: (0, blocksize, 0, 0, clevel, filter, codec | meta << 8). */
    const b2_cparams *ap = b2_schunk_cparams(b2_nd_schunk(a));
    b2_cparams p = c->cpo.given ? c->cpo.p : *ap;
    int filt = p.filters[B2_MAX_FILTERS - 1], others = 0;
    for (int i = 0; i < B2_MAX_FILTERS - 1; i++)
        others |= p.filters[i];
    if (c->cpo.given && (others || filt > 3 || p.use_dict)) {
        ret = b2cli_usage_error(CMD, "an HDF5 dataset's cd_values hold one filter (shuffle, "
                                "bitshuffle, delta or none) in the last slot and no dictionary");
        goto done;
    }
    if (filt > 3)
        filt = 0; /* not expressible: chunks moved as they are keep their own */
    unsigned cd[7] = {0, 0, 0, 0, (unsigned)p.clevel, (unsigned)filt,
                      (unsigned)(p.codec & 0xff) | ((unsigned)p.codec_meta << 8)};
    b2_cparams fcp;
    int32_t fbs[B2_ND_MAX_DIM]; /* the block shape the filter picks for these chunks */
    if (b2_h5_chunk_params(cd, 7, rank, cdims, ts, &fcp, fbs) < 0) {
        b2cli_data_error(c->src, "no Blosc2 filter parameters for it: %s", b2_last_error_message());
        goto done;
    }
    int64_t block_bytes = ts;
    for (int i = 0; i < rank; i++)
        block_bytes *= abs[i];
    int movable = same_chunks && !c->cpo.given && !c->recompress && rank <= 16;
    if (rank == 1 && acs[0] % abs[0]) {
        movable = 0; /* the filter's rank-1 frames hold unpadded chunks */
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
            same &= fbs[i] == abs[i];
        cd[1] = same ? 0 : (unsigned)block_bytes;
    } else {
        cd[1] = (unsigned)block_bytes;
    }
    if (!same_chunks)
        conv_why(c, "another chunk shape");
    else if (c->cpo.given)
        conv_why(c, "compression options given");
    else if (c->recompress)
        conv_why(c, "--recompress");

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    b2_h5_register();
    if (conv_file_exists(file)) {
        if (!b2cli_h5_is_hdf5(file) || (f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT)) < 0) {
            b2cli_data_error(file, "exists but cannot be opened as HDF5 for writing");
            goto done;
        }
    } else if ((f = H5Fcreate(file, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
        b2cli_data_error(file, "cannot create the HDF5 file");
        goto done;
    } else {
        created = 1;
    }
    if (h5_path_exists(f, dname)) {
        if (!c->force) {
            b2cli_data_error(file, "'%s' exists already (--force replaces it)", dname);
            goto done;
        }
        if (H5Ldelete(f, dname, H5P_DEFAULT) < 0) {
            b2cli_data_error(file, "cannot remove '%s'", dname);
            goto done;
        }
    }
    if ((t = conv_h5type_of(b2_nd_dtype(a), ts)) < 0 || H5Tget_size(t) != (size_t)ts) {
        b2cli_data_error(c->src, "no HDF5 type for dtype '%s'", b2_nd_dtype(a));
        goto done;
    }
    hsize_t hdims[B2_ND_MAX_DIM], hcd[B2_ND_MAX_DIM], hmax[B2_ND_MAX_DIM];
    for (int i = 0; i < rank; i++) {
        hdims[i] = (hsize_t)shape[i];
        hcd[i] = (hsize_t)cdims[i];
        /* HDF5 wants chunks within fixed dimensions: a chunk longer than its
         * dimension makes that dimension extendible */
        hmax[i] = hcd[i] > hdims[i] ? H5S_UNLIMITED : hdims[i];
    }
    sp = H5Screate_simple(rank, hdims, hmax);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    if (H5Pset_chunk(dcpl, rank, hcd) < 0 || H5Pset_filter(dcpl, H5_FILTER_BLOSC2, H5Z_FLAG_OPTIONAL, 7, cd) < 0 ||
        (d = H5Dcreate2(f, dname, t, sp, lcpl, dcpl, H5P_DEFAULT)) < 0) {
        b2cli_data_error(file, "cannot create dataset '%s' with the Blosc2 filter", dname);
        goto done;
    }
    dset_made = 1;
    if (movable && (rc = wrapper_init(&w, rank, cdims, abs, ts, &fcp)) < 0) {
        movable = 0;
        conv_why(c, "no frame for these chunks: %s", b2cli_err(rc));
    }
    b2_schunk *as = b2_nd_schunk(a);
    int64_t nper[B2_ND_MAX_DIM], total = ts;
    for (int i = 0; i < rank; i++)
        total *= shape[i];
    int64_t nchunks = conv_grid(rank, shape, cdims, nper);
    b2cli_progress pr;
    b2cli_progress_start(&pr, "convert", total);
    b2_h5_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.nthreads = c->nthreads;
    if (!movable) {
        /* Every chunk recompressed: slabs of whole chunk rows (about 64 MiB,
         * at least one row), each compressed on --threads threads by
         * b2_h5_write_box into the bytes the filter stores. */
        int64_t rowb = ts, rows = nper[0];
        for (int k = 1; k < rank; k++)
            rowb *= shape[k];
        rowb *= cdims[0];
        int64_t step = rowb > 0 && rowb < (64 << 20) ? (64 << 20) / rowb : 1;
        for (int64_t r = 0; r < rows; r += step) {
            int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
            hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
            size_t n = (size_t)ts;
            b2_h5_write_report wr;
            for (int k = 0; k < rank; k++) {
                start[k] = k ? 0 : r * cdims[0];
                stop[k] = k ? shape[k] : (r + step) * cdims[0] < shape[0] ? (r + step) * cdims[0] : shape[0];
                hs[k] = (hsize_t)start[k];
                hc[k] = (hsize_t)(stop[k] - start[k]);
                n *= hc[k];
            }
            if (conv_grow(&box, &boxcap, n) < 0) {
                rc = B2_ERR_NOMEM;
                b2cli_data_error(c->src, "out of memory");
            } else if ((rc = b2_nd_get_slice_cbuffer(a, start, stop, box, n)) < 0) {
                b2cli_data_error(c->src, "reading chunk rows %lld..%lld: %s", (long long)r,
                                 (long long)(r + step < rows ? r + step : rows), b2cli_err(rc));
            } else if ((rc = b2_h5_write_box(d, 0, hs, hc, box, n, &wo, &wr)) < 0) {
                b2cli_data_error(file, "writing chunk rows %lld..%lld: %s", (long long)r,
                                 (long long)(r + step < rows ? r + step : rows), b2cli_err(rc));
            } else {
                c->recompressed += wr.chunks_direct + wr.chunks_h5dwrite;
            }
            if (rc < 0) {
                b2cli_progress_end(&pr);
                goto done;
            }
            b2cli_progress_add(&pr, (int64_t)n);
        }
    }
    for (int64_t i = 0; movable && i < nchunks; i++) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
        hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
        conv_chunk_box(rank, i, nper, shape, cdims, start, stop);
        size_t n = (size_t)ts;
        for (int k = 0; k < rank; k++) {
            hs[k] = (hsize_t)start[k];
            hc[k] = (hsize_t)(stop[k] - start[k]);
            n *= hc[k];
        }
        int moved = 0;
        rc = 0;
        if (movable) {
            const uint8_t *ch;
            int32_t cb;
            if (b2_schunk_chunk_special(as, i) == B2_SPECIAL_UNINIT) {
                conv_why(c, "uninitialised chunks");
            } else if ((rc = b2_schunk_chunk_view(as, i, &ch, &cb)) < 0) {
                b2cli_data_error(c->src, "chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else {
                int64_t flen = wrap(&w, ch, cb);
                if (flen < 0) {
                    rc = (int)flen;
                    b2cli_data_error(c->src, "chunk %lld: %s", (long long)i, b2cli_err(rc));
                } else if (H5Dwrite_chunk(d, H5P_DEFAULT, 0, hs, (size_t)flen, w.buf) < 0) {
                    rc = B2_ERR_IO;
                    b2cli_data_error(file, "H5Dwrite_chunk of chunk %lld failed", (long long)i);
                } else {
                    moved = 1;
                }
            }
        }
        if (rc >= 0 && !moved) {
            if (conv_grow(&box, &boxcap, n) < 0) {
                rc = B2_ERR_NOMEM;
            } else if ((rc = b2_nd_get_slice_cbuffer(a, start, stop, box, n)) < 0) {
                b2cli_data_error(c->src, "reading chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else if ((rc = b2_h5_write_box(d, 0, hs, hc, box, n, &wo, NULL)) < 0) {
                b2cli_data_error(file, "writing chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else {
                c->recompressed++;
            }
        } else if (moved) {
            c->moved++;
        }
        if (rc < 0) {
            b2cli_progress_end(&pr);
            goto done;
        }
        b2cli_progress_add(&pr, (int64_t)n);
    }
    b2cli_progress_end(&pr);
    if (H5Dclose(d) < 0 || (d = -1, H5Fflush(f, H5F_SCOPE_LOCAL) < 0)) {
        b2cli_data_error(file, "cannot write the dataset");
        goto done;
    }
    dset_made = 0;
    conv_report(c);
    ret = B2CLI_OK;
done:
    wrapper_free(&w);
    free(box);
    if (d >= 0)
        H5Dclose(d);
    if (dset_made && !created)
        H5Ldelete(f, dname, H5P_DEFAULT);
    if (lcpl >= 0)
        H5Pclose(lcpl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (f >= 0 && H5Fclose(f) < 0 && ret == B2CLI_OK) {
        b2cli_data_error(file, "cannot close the HDF5 file");
        ret = B2CLI_EXIT_DATA;
    }
    if (created && ret != B2CLI_OK)
        unlink(file);
    b2_nd_free(a);
    return ret;
}

#endif
