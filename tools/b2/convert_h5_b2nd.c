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
#include "progress.h"

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
    if (b2cli_frame_open_buffer(h->buf, (size_t)size, s) < 0 || b2_schunk_nchunks(*s) != 1) {
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

/* One HDF5 -> b2nd conversion, from opening the dataset to renaming the
 * finished array into place: open_src, plan, open_dst, copy, finish, then
 * release. */
typedef struct from_h5 {
    conv *c;
    const char *file, *dname;
    hid_t f, sp, t, dcpl;
    h5src h;
    hsize_t dims[H5S_MAX_RANK];
    char dtype[32];
    int nf, only_blosc2;          /* filters in the pipeline; Blosc2 the only one */
    unsigned cd[32];              /* Blosc2's cd_values (ncd of them) */
    size_t ncd;
    b2_cparams cp;
    b2_nd_params np;              /* the array's geometry (np.cparams = &cp) */
    int raw;                      /* stored chunks may move as they are */
    b2_nd_array *scratch;         /* one-chunk array compressing the others */
    b2_schunk *out;               /* the array's super-chunk */
    b2_h5_reader *rd;
    uint8_t *box, *full;
    size_t boxcap, fullcap;
    char *tmp;                    /* the array's temporary name */
    int tmp_made;
    b2cli_progress pr;
} from_h5;

/* The dataset's chunk shape (when chunked) and its filter pipeline: whether
 * Blosc2 is its only filter, and Blosc2's cd_values. */
static void scan_layout(from_h5 *j)
{
    h5src *h = &j->h;
    h->chunked = j->dcpl >= 0 && H5Pget_layout(j->dcpl) == H5D_CHUNKED;
    if (h->chunked) {
        hsize_t cd[H5S_MAX_RANK];
        if (H5Pget_chunk(j->dcpl, h->rank, cd) != h->rank)
            h->chunked = 0;
        for (int i = 0; h->chunked && i < h->rank; i++) {
            if (cd[i] > INT32_MAX)
                h->chunked = 0;
            h->cdims[i] = (int32_t)cd[i];
        }
    }
    /* The pipeline: raw chunks only when Blosc2 is the only filter. */
    j->nf = j->dcpl >= 0 ? H5Pget_nfilters(j->dcpl) : 0;
    for (int i = 0; i < j->nf; i++) {
        unsigned flags, tmpcd[32];
        size_t n = 32;
        char fname[64];
        H5Z_filter_t id = H5Pget_filter2(j->dcpl, (unsigned)i, &flags, &n, tmpcd, sizeof fname, fname, NULL);
        if (id == H5_FILTER_BLOSC2) {
            j->ncd = n < 32 ? n : 32;
            memcpy(j->cd, tmpcd, j->ncd * sizeof *j->cd);
            j->only_blosc2 = j->nf == 1;
        }
    }
}

/* Open the dataset and read what the array needs from it (rank, shape, type,
 * chunks, filters); check the options against it. B2CLI_OK or an exit code. */
static int open_src(from_h5 *j)
{
    conv *c = j->c;
    h5src *h = &j->h;
    if (conv_file_exists(c->dst) && !c->force)
        return b2cli_data_error(c->dst, "exists already (--force replaces it)");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    b2_h5_register();
    if ((j->f = H5Fopen(j->file, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        return b2cli_data_error(j->file, "cannot open as HDF5");
    if ((h->d = open_dataset(j->f, j->dname)) < 0)
        return b2cli_data_error(j->file, "no dataset '%s'", j->dname);
    j->sp = H5Dget_space(h->d);
    j->t = H5Dget_type(h->d);
    j->dcpl = H5Dget_create_plist(h->d);
    h->rank = j->sp >= 0 ? H5Sget_simple_extent_ndims(j->sp) : -1;
    if (h->rank < 1 || h->rank > B2_ND_MAX_DIM || H5Sget_simple_extent_dims(j->sp, j->dims, NULL) < 0)
        return b2cli_data_error(c->src, "a b2nd array needs a simple dataspace of rank 1..%d",
                                B2_ND_MAX_DIM);
    if (j->t < 0 || conv_dtype_of(j->t, j->dtype, sizeof j->dtype) < 0 || H5Tget_size(j->t) > INT32_MAX)
        return b2cli_data_error(c->src, "its element type has no fixed size (variable-length data)");
    h->ts = (int32_t)H5Tget_size(j->t);
    scan_layout(j);
    if (c->nchunks_dims && c->nchunks_dims != h->rank)
        return b2cli_usage_error(CMD, "--chunks needs %d values, one per dimension", h->rank);
    if (c->nblocks_dims && c->nblocks_dims != h->rank)
        return b2cli_usage_error(CMD, "--blocks needs %d values, one per dimension", h->rank);
    return B2CLI_OK;
}

/* The block shape of the first stored chunk (of the first 16) that maps onto
 * the array, into j->np.blockshape; left as it is when none does. */
static void stored_blockshape(from_h5 *j)
{
    conv *c = j->c;
    hsize_t nck = 0;
    H5Dget_num_chunks(j->h.d, j->sp, &nck);
    for (hsize_t k = 0; k < nck && k < 16; k++) {
        hsize_t off[H5S_MAX_RANK];
        unsigned mask;
        haddr_t addr;
        hsize_t size;
        b2_schunk *s = NULL;
        int32_t bs[B2_ND_MAX_DIM];
        char scratch[sizeof c->reason];
        memcpy(scratch, c->reason, sizeof scratch);
        if (H5Dget_chunk_info(j->h.d, j->sp, k, off, &mask, &addr, &size) < 0)
            break;
        int rc = h5_chunk_frame(c, &j->h, off, &s);
        memcpy(c->reason, scratch, sizeof scratch);
        if (rc < 0)
            break;
        if (rc > 0 && frame_blockshape(&j->h, s, bs)) {
            for (int i = 0; i < j->h.rank; i++)
                j->np.blockshape[i] = bs[i];
            b2_schunk_free(s);
            break;
        }
        b2_schunk_free(s);
    }
}

/* The array's parameters and geometry, and whether stored chunks can move as
 * they are (else why not). B2CLI_OK or an exit code. */
static int plan(from_h5 *j)
{
    conv *c = j->c;
    h5src *h = &j->h;
    if (c->cpo.given)
        j->cp = c->cpo.p;
    else if (!j->ncd || b2_h5_chunk_params(j->cd, j->ncd, h->rank, h->cdims, h->ts, &j->cp, NULL) < 0)
        b2_cparams_init(&j->cp); /* not the filter's values: chunks are recompressed anyway */
    j->cp.typesize = h->ts;
    j->cp.nthreads = c->nthreads;
    b2_nd_params *np = &j->np;
    memset(np, 0, sizeof *np);
    np->ndim = h->rank;
    int same_chunks = h->chunked;
    for (int i = 0; i < h->rank; i++) {
        np->shape[i] = (int64_t)j->dims[i];
        np->chunkshape[i] = c->nchunks_dims ? c->chunks[i] : h->chunked ? h->cdims[i] : 0;
        np->blockshape[i] = c->nblocks_dims ? c->blocks[i] : 0;
        if (h->chunked && np->chunkshape[i] != h->cdims[i])
            same_chunks = 0;
    }
    j->raw = j->only_blosc2 && same_chunks && !c->cpo.given && !c->recompress;
    if (!h->chunked)
        conv_why(c, "the dataset is not chunked");
    else if (!j->only_blosc2)
        conv_why(c, j->nf == 0 ? "the dataset is not compressed with Blosc2" : !j->ncd
                ? "the dataset does not use the Blosc2 filter" : "filters other than Blosc2 in the pipeline");
    else if (!same_chunks)
        conv_why(c, "another chunk shape");
    else if (c->cpo.given)
        conv_why(c, "compression options given");
    else if (c->recompress)
        conv_why(c, "--recompress");
    if (j->raw && !c->nblocks_dims)
        stored_blockshape(j);
    np->typesize = h->ts;
    np->dtype = j->dtype;
    np->cparams = &j->cp;
    int rc = b2_nd_default_shapes(np);
    if (rc < 0)
        return b2cli_data_error(c->dst, "cannot lay out the array: %s", b2cli_err(rc));
    return B2CLI_OK;
}

/* The array under a temporary name next to DST, empty, the one-chunk scratch
 * array and the dataset's reader. B2CLI_OK or an exit code. */
static int open_dst(from_h5 *j)
{
    conv *c = j->c;
    size_t tl = strlen(c->dst) + 32;
    if (!(j->tmp = malloc(tl)))
        return B2CLI_EXIT_DATA;
    snprintf(j->tmp, tl, "%s.b2convert-%ld", c->dst, (long)getpid());
    unlink(j->tmp);
    /* The array's chunks are appended in order, each written once: those that
     * move as they are, and the others compressed by a one-chunk scratch array
     * of the same geometry. */
    b2_nd_storage mem = {B2_STORAGE_MEMORY, NULL};
    b2_nd_params sp1 = j->np;
    for (int i = 0; i < j->h.rank; i++)
        sp1.shape[i] = j->np.chunkshape[i];
    int rc;
    if ((rc = b2_nd_create(&sp1, &mem, B2_ND_FILL_ZEROS, NULL, &j->scratch)) < 0 ||
        (rc = conv_bare_schunk(j->scratch, j->np.shape, j->tmp, &j->out)) < 0)
        return b2cli_data_error(c->dst, "cannot create the array: %s", b2cli_err(rc));
    j->tmp_made = 1;
    b2_schunk_set_sync(j->out, 0);
    b2_schunk_set_defer_commit(j->out, 1); /* one commit at the end, not one an append */
    b2_nd_set_nthreads(j->scratch, c->nthreads);
    /* --threads: the reader decodes a chunk's blocks on that many threads */
    if ((rc = b2_h5_reader_open(j->h.d, &j->rd)) < 0 || (rc = b2_h5_reader_set_nthreads(j->rd, c->nthreads)) < 0)
        return b2cli_data_error(c->src, "cannot read the dataset: %s", b2cli_err(rc));
    return B2CLI_OK;
}

/* Append chunk i of the array: the stored chunk moved as it is when it can be,
 * else its box read and recompressed. B2_OK or an error (message printed). */
static int copy_chunk(from_h5 *j, int64_t i, const int64_t *nper)
{
    conv *c = j->c;
    int rank = j->h.rank;
    int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
    hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
    char at[B2_ND_MAX_DIM * 24 + 4]; /* the chunk's coordinates, for messages */
    conv_chunk_box(rank, i, nper, j->np.shape, j->np.chunkshape, start, stop);
    size_t n = (size_t)j->h.ts;
    for (int d = 0; d < rank; d++) {
        hs[d] = (hsize_t)start[d];
        hc[d] = (hsize_t)(stop[d] - start[d]);
        n *= hc[d];
    }
    int rc = j->raw ? h5_move_chunk(c, &j->h, j->scratch, j->out, i, start) : 0;
    if (rc > 0) {
        c->moved++;
    } else if (rc == 0) {
        if (conv_grow(&j->box, &j->boxcap, n) < 0) {
            rc = B2_ERR_NOMEM;
        } else if ((rc = b2_h5_reader_read(j->rd, 0, hs, hc, j->box, n, NULL)) < 0) {
            b2cli_data_error(c->src, "reading HDF5 chunk %lld at %s: %s", (long long)i,
                             conv_coords(rank, start, at, sizeof at), b2cli_err(rc));
        } else if ((rc = append_compressed(j->scratch, j->out, rank, start, stop, j->box,
                                           &j->full, &j->fullcap)) < 0) {
            b2cli_data_error(c->dst, "writing chunk %lld (HDF5 chunk at %s): %s", (long long)i,
                             conv_coords(rank, start, at, sizeof at), b2cli_err(rc));
        } else {
            c->recompressed++;
        }
    } else {
        b2cli_data_error(c->src, "HDF5 chunk %lld at %s: %s", (long long)i,
                         conv_coords(rank, start, at, sizeof at), b2cli_err(rc));
    }
    if (rc >= 0)
        b2cli_progress_add(&j->pr, (int64_t)n);
    return rc < 0 ? rc : B2_OK;
}

/* Append every chunk, in order. B2CLI_OK or an exit code. */
static int copy(from_h5 *j)
{
    int64_t nper[B2_ND_MAX_DIM], total = j->h.ts;
    for (int i = 0; i < j->h.rank; i++)
        total *= j->np.shape[i];
    int64_t nchunks = conv_grid(j->h.rank, j->np.shape, j->np.chunkshape, nper);
    int rc = B2_OK;
    b2cli_progress_start(&j->pr, "convert", total);
    for (int64_t i = 0; i < nchunks && rc >= 0; i++)
        rc = copy_chunk(j, i, nper);
    b2cli_progress_end(&j->pr);
    if (rc < 0)
        return B2CLI_EXIT_DATA;
    if (b2_schunk_nchunks(j->out) != nchunks)
        return b2cli_data_error(j->c->dst, "%lld chunks written, %lld expected",
                                (long long)b2_schunk_nchunks(j->out), (long long)nchunks);
    return B2CLI_OK;
}

/* Commit the array (compacted when the deferred commits left dead space) and
 * rename it into place, then report. B2CLI_OK or an exit code. */
static int finish(from_h5 *j)
{
    conv *c = j->c;
    int rc;
    if ((rc = b2_schunk_set_defer_commit(j->out, 0)) < 0)
        return b2cli_data_error(c->dst, "cannot commit the array: %s", b2cli_err(rc));
    /* The first commit's index and trailer are left behind: a fresh output is
     * rewritten compact, so it has no dead bytes (b2 info, b2 compact). */
    int64_t dead = b2_schunk_dead_bytes(j->out);
    if (dead > 0 && (rc = b2_schunk_compact(j->out)) < 0)
        return b2cli_data_error(c->dst, "cannot compact the array: %s", b2cli_err(rc));
    b2_schunk_free(j->out);
    j->out = NULL;
    j->tmp_made = 0; /* renamed, or removed by commit_tmp */
    if (commit_tmp(j->tmp, c->dst) < 0)
        return B2CLI_EXIT_DATA;
    conv_report(c);
    return B2CLI_OK;
}

/* Release everything (the temporary array too when it was not renamed into
 * place). Returns ret. */
static int release(from_h5 *j, int ret)
{
    b2_h5_reader_free(j->rd);
    b2_nd_free(j->scratch);
    b2_schunk_free(j->out);
    free(j->full);
    if (j->tmp_made)
        unlink(j->tmp);
    free(j->tmp);
    free(j->box);
    free(j->h.buf);
    if (j->dcpl >= 0)
        H5Pclose(j->dcpl);
    if (j->t >= 0)
        H5Tclose(j->t);
    if (j->sp >= 0)
        H5Sclose(j->sp);
    if (j->h.d >= 0)
        H5Dclose(j->h.d);
    if (j->f >= 0)
        H5Fclose(j->f);
    return ret;
}

int conv_h5_to_b2nd(conv *c, const char *file, const char *dname)
{
    from_h5 *j = calloc(1, sizeof *j);
    if (!j)
        return b2cli_data_error(c->src, "out of memory");
    j->c = c;
    j->file = file;
    j->dname = dname;
    j->f = j->sp = j->t = j->dcpl = j->h.d = -1;
    int ret = open_src(j);
    if (ret == B2CLI_OK)
        ret = plan(j);
    if (ret == B2CLI_OK)
        ret = open_dst(j);
    if (ret == B2CLI_OK)
        ret = copy(j);
    if (ret == B2CLI_OK)
        ret = finish(j);
    ret = release(j, ret);
    free(j);
    return ret;
}

#endif
