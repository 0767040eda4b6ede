/* SPDX-License-Identifier: BSD-3-Clause */
/* HDF5 files whose datasets use the Blosc2 filter (id 32026): `info` shows each
 * dataset's filter pipeline with the Blosc2 cd_values decoded and a summary of
 * every stored chunk (each is a frame, or a b2nd frame, that our library opens
 * from memory); `verify` decodes every chunk of every such dataset. Raw chunks
 * are read with H5Dread_chunk, so the HDF5 filter plugin is not involved: we
 * check what is stored, not what a plugin makes of it. Without libhdf5 at build
 * time these functions say so and fail. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "b2cli.h"
#include "decode.h"
#include "h5.h"
#include "json.h"
#include "select.h"

#define H5_FILTER_BLOSC2 32026
#define H5_FILTER_FLETCHER32 3

int b2cli_h5_split(const char *spec, char *file, size_t cap, const char **dset)
{
    /* "FILE.h5:/path": the file part ends at the first ":/" whose prefix exists. */
    const char *p = strstr(spec, ":/");
    FILE *f;
    *dset = NULL;
    if (p && (size_t)(p - spec) < cap) {
        memcpy(file, spec, (size_t)(p - spec));
        file[p - spec] = '\0';
        if ((f = fopen(file, "rb"))) {
            fclose(f);
            *dset = p + 1;
            return 0;
        }
    }
    if (strlen(spec) >= cap)
        return -1;
    strcpy(file, spec);
    return 0;
}

int b2cli_h5_is_hdf5(const char *spec)
{
    char file[4096];
    const char *dset;
    if (!strcmp(spec, "-") || b2cli_h5_split(spec, file, sizeof file, &dset) < 0)
        return 0;
    return b2_inspect_path(file) == B2_KIND_HDF5; /* by its signature (b2_frame.h) */
}

#ifndef B2CLI_HAVE_HDF5

int b2cli_h5_info(const char *spec, int json)
{
    (void)json;
    return b2cli_data_error(spec, "HDF5 file, but this b2 was built without HDF5 support"),
           B2_ERR_UNSUPPORTED;
}

int b2cli_h5_verify(const char *spec, int quiet, int nthreads)
{
    (void)quiet, (void)nthreads;
    return b2cli_h5_info(spec, 0);
}

int b2cli_h5_slice(const char *spec, const char *box, FILE *out, int report, int nthreads)
{
    (void)box, (void)out, (void)report, (void)nthreads;
    return b2cli_h5_info(spec, 0);
}

#else
#include <hdf5.h>

#include "b2_h5filter.h"

typedef struct h5ctx {
    const char *file;
    int json, verify, quiet;
    int nthreads;     /* verify: the parallel reader's threads (0: its default) */
    int ndsets;       /* datasets seen */
    int64_t nbad;     /* bad chunks (verify) or unreadable items */
    int64_t nchecked; /* chunks checked */
    int nfletcher;    /* verify: datasets with a fletcher32 checksum b2 does not check */
    b2cli_json *j;
} h5ctx;

static const char *cd_names[8] = {"revision", "blocksize", "typesize", "chunk_bytes",
                                  "clevel", "filter", "codec", "rank"};

/* What one stored chunk holds once the filters after Blosc2 are undone. */
typedef struct chunk_sum {
    int ok, is_b2nd, blosc2_applied;
    int64_t nchunks, nbytes, cbytes;
    int nd_ndim; /* b2nd payloads: the array's chunk and block shapes */
    int32_t nd_chunk[B2_ND_MAX_DIM], nd_block[B2_ND_MAX_DIM];
    char err[160];
} chunk_sum;

/* A b2nd chunk holds whole blocks: when the block shape does not divide the chunk
 * shape, each chunk is padded up to a multiple of it, and its nbytes exceed the
 * HDF5 chunk's bytes (the reference's block rule, doc/format/hdf5-filter.md §4).
 * Say so under the table rather than leave the larger figure unexplained. */
static void print_padding_note(const chunk_sum *nd, const unsigned *cd, size_t ncd)
{
    int64_t padded = ncd > 2 ? cd[2] : 0;
    char shape[2][160];
    int pos[2] = {0, 0};
    if (!nd->is_b2nd || nd->nd_ndim <= 0 || padded <= 0 || ncd < 4)
        return;
    for (int i = 0; i < nd->nd_ndim; i++) {
        int32_t b = nd->nd_block[i] > 0 ? nd->nd_block[i] : 1;
        int64_t ext = (nd->nd_chunk[i] + b - 1) / b * b;
        padded *= ext;
        for (int k = 0; k < 2; k++)
            if (pos[k] < (int)sizeof shape[k] - 24)
                pos[k] += snprintf(shape[k] + pos[k], sizeof shape[k] - pos[k], "%s%lld",
                                   i ? "," : "", (long long)(k ? ext : b));
    }
    if (padded <= (int64_t)cd[3])
        return;
    printf("    note: blocks of (%s) pad each chunk to (%s), so nbytes is %lld for a %u-byte "
           "chunk\n          (whole blocks, the reference's rule: doc/format/hdf5-filter.md §4)\n",
           shape[0], shape[1], (long long)padded, cd[3]);
}

static void inspect_payload(const uint8_t *p, size_t n, int verify, chunk_sum *cs)
{
    b2_schunk *s = NULL;
    uint8_t *m = NULL, *buf = NULL;
    int32_t mlen;
    size_t cap = 0;
    int rc = b2cli_frame_open_buffer(p, n, &s);
    if (rc < 0) {
        snprintf(cs->err, sizeof cs->err, "not a Blosc2 frame: %s", b2cli_err(rc));
        return;
    }
    cs->is_b2nd = b2_schunk_meta_get(s, "b2nd", &m, &mlen) >= 0;
    free(m);
    cs->nchunks = b2_schunk_nchunks(s);
    cs->nbytes = b2_schunk_nbytes(s);
    cs->cbytes = b2_schunk_cbytes(s);
    cs->ok = 1;
    if (cs->is_b2nd) {
        /* A b2nd payload must also carry a valid array description. */
        b2_nd_array *a;
        rc = b2_nd_from_schunk(s, &a);
        if (rc < 0) {
            snprintf(cs->err, sizeof cs->err, "bad b2nd metalayer: %s", b2cli_err(rc));
            cs->ok = 0;
        } else {
            s = NULL;
            cs->nd_ndim = b2_nd_ndim(a);
            memcpy(cs->nd_chunk, b2_nd_chunkshape(a), (size_t)cs->nd_ndim * sizeof(int32_t));
            memcpy(cs->nd_block, b2_nd_blockshape(a), (size_t)cs->nd_ndim * sizeof(int32_t));
            b2_nd_free(a);
            rc = b2cli_frame_open_buffer(p, n, &s);
        }
    }
    for (int64_t i = 0; verify && cs->ok && s && i < cs->nchunks; i++) {
        int got = b2cli_schunk_decode(s, i, &buf, &cap);
        if (got < 0) {
            snprintf(cs->err, sizeof cs->err, "frame chunk %lld: %s", (long long)i, b2cli_err(got));
            cs->ok = 0;
        }
    }
    free(buf);
    b2_schunk_free(s);
}

static void print_cd(h5ctx *c, const unsigned *cd, size_t ncd)
{
    char buf[32];
    const char *codec = ncd > 6 ? b2cli_codec_label((int)cd[6], buf, sizeof buf) : "blosclz";
    if (c->json) {
        b2cli_json *j = c->j;
        b2cli_json_object_begin(j, "blosc2_params");
        for (size_t i = 0; i < ncd && i < 8; i++)
            b2cli_json_int(j, cd_names[i], cd[i]);
        if (ncd > 4)
            b2cli_json_str(j, "codec_name", codec);
        if (ncd > 8) {
            b2cli_json_array_begin(j, "chunkshape");
            for (size_t i = 8; i < ncd; i++)
                b2cli_json_array_int(j, cd[i]);
            b2cli_json_array_end(j);
        }
        b2cli_json_object_end(j);
        return;
    }
    printf("    blosc2 params   ");
    for (size_t i = 0; i < ncd && i < 8; i++)
        printf(" %s=%u", cd_names[i], cd[i]);
    if (ncd > 6)
        printf(" (%s%s)", codec ? codec : "unknown codec",
               cd[5] == 0 ? ", no filter" : cd[5] == 1 ? ", shuffle" : cd[5] == 2 ? ", bitshuffle" : "");
    if (ncd > 8) {
        printf(" chunkshape=(");
        for (size_t i = 8; i < ncd; i++)
            printf("%s%u", i > 8 ? "," : "", cd[i]);
        printf(")");
    }
    printf("\n");
}

/* Read the box [start, stop) of dataset d with one b2_h5_reader of nthreads
 * threads (0: its default, $B2_H5_NTHREADS) in slabs along the first dimension
 * of about 64 MiB (whole rows of chunks when they fit, so that a slab's chunks
 * are decoded once and in parallel), writing each slab to out (NULL: only
 * read, for verify). The reports of the slabs add up in *total (may be NULL). */
static int read_slabs(hid_t d, int rank, const int64_t *start, const int64_t *stop, int nthreads,
                      FILE *out, b2_h5_read_report *total)
{
    hid_t t = H5Dget_type(d), dcpl;
    size_t ts = t >= 0 ? H5Tget_size(t) : 0;
    hsize_t cdims[B2_H5_READ_MAXRANK], crow = 1;
    if (t >= 0)
        H5Tclose(t);
    if (ts == 0)
        return B2_ERR_FORMAT;
    if ((dcpl = H5Dget_create_plist(d)) >= 0) {
        if (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, rank, cdims) == rank && cdims[0] > 0)
            crow = cdims[0];
        H5Pclose(dcpl);
    }
    hsize_t st[B2_H5_READ_MAXRANK], ct[B2_H5_READ_MAXRANK];
    uint64_t row = ts; /* bytes per index of dimension 0 */
    for (int i = 0; i < rank; i++) {
        st[i] = (hsize_t)start[i];
        ct[i] = (hsize_t)(stop[i] - start[i]);
        if (i > 0)
            row *= ct[i];
    }
    if (rank == 0 || ct[0] == 0 || row == 0)
        return B2_OK;
    hsize_t step = row >= (64u << 20) ? 1 : (hsize_t)((64u << 20) / row);
    if (step >= crow)
        step -= step % crow; /* whole rows of chunks */
    if (step > ct[0])
        step = ct[0];
    b2_h5_reader *rd = NULL;
    int rc = b2_h5_reader_open(d, &rd);
    if (rc < 0)
        return rc;
    if (nthreads > 0 && (rc = b2_h5_reader_set_nthreads(rd, nthreads)) < 0) {
        b2_h5_reader_free(rd);
        return rc;
    }
    uint8_t *buf = malloc((size_t)(step * row));
    if (!buf) {
        b2_h5_reader_free(rd);
        return B2_ERR_NOMEM;
    }
    hsize_t first = st[0], end = st[0] + ct[0];
    for (hsize_t i = first, next; i < end && rc >= 0; i = next) {
        b2_h5_read_report r;
        next = i + step;
        if (step >= crow)
            next -= next % crow; /* slabs end on chunk boundaries: each chunk read once */
        if (next > end)
            next = end;
        st[0] = i;
        ct[0] = next - i;
        rc = b2_h5_reader_read(rd, 0, st, ct, buf, (size_t)(ct[0] * row), &r);
        if (rc >= 0 && total) {
            total->path |= r.path;
            if (!total->reason[0])
                memcpy(total->reason, r.reason, sizeof r.reason);
            total->chunks_direct += r.chunks_direct;
            total->chunks_h5dread += r.chunks_h5dread;
            total->bytes_read += r.bytes_read;
            total->blocks_decoded += r.blocks_decoded;
        }
        if (rc >= 0 && out)
            rc = b2cli_write_all(out, buf, (size_t)(ct[0] * row));
    }
    free(buf);
    b2_h5_reader_free(rd);
    return rc;
}

/* H5Dopen2 of dset, saying why it failed: no such dataset, or one this program's
 * HDF5 cannot open (HDF5 2.0's complex class under an older libhdf5, say). */
static hid_t open_dataset(hid_t f, const char *file, const char *dset)
{
    hid_t d = H5Dopen2(f, dset, H5P_DEFAULT);
    unsigned v[3] = {0, 0, 0};
    if (d >= 0)
        return d;
    if (H5Lexists(f, dset, H5P_DEFAULT) <= 0) {
        b2cli_data_error(file, "no dataset '%s'", dset);
        return -1;
    }
    H5get_libversion(&v[0], &v[1], &v[2]);
    b2cli_data_error(file, "dataset '%s' exists, but the HDF5 %u.%u.%u this program uses cannot "
                     "open it (a datatype or layout of a newer HDF5?); read it with h5py and "
                     "b2blosc.h5", dset, v[0], v[1], v[2]);
    return -1;
}

/* One dataset as `info` and `verify` see it: its shape, where Blosc2 is in its
 * pipeline and what runs after it, its stored chunks. */
typedef struct dset {
    hid_t d, dcpl, space;
    const char *name;
    int nf, bidx, rank;           /* filters; Blosc2's index (-1: none) */
    int strip_tail, post_other;   /* fletcher32 bytes after Blosc2; other filters after it */
    hsize_t dims[H5S_MAX_RANK], nchunks;
    unsigned cd[32];              /* Blosc2's cd_values (ncd of them) */
    size_t ncd;
} dset;

/* Fill ds from the dataset's pipeline; 0 when it does not use Blosc2. */
static int scan_dataset(dset *ds)
{
    ds->nf = ds->dcpl >= 0 ? H5Pget_nfilters(ds->dcpl) : -1;
    ds->bidx = -1;
    if (ds->nf < 0 || ds->space < 0)
        return 0;
    ds->rank = H5Sget_simple_extent_dims(ds->space, ds->dims, NULL);
    for (int i = 0; i < ds->nf; i++) {
        unsigned flags, tmpcd[32];
        size_t n = 32;
        char fname[64];
        H5Z_filter_t id = H5Pget_filter2(ds->dcpl, (unsigned)i, &flags, &n, tmpcd, sizeof fname, fname, NULL);
        if (id == H5_FILTER_BLOSC2) {
            ds->bidx = i;
            ds->ncd = n < 32 ? n : 32;
            memcpy(ds->cd, tmpcd, ds->ncd * sizeof *ds->cd);
        } else if (ds->bidx >= 0) {
            if (id == H5_FILTER_FLETCHER32)
                ds->strip_tail += 4; /* checksum appended after Blosc2 ran */
            else
                ds->post_other = 1;
        }
    }
    if (ds->bidx < 0)
        return 0;
    if (H5Dget_num_chunks(ds->d, ds->space, &ds->nchunks) < 0)
        ds->nchunks = 0;
    return 1;
}

/* The dataset's header: a JSON object opened up to its "chunks" array, or the
 * text lines above the chunk table (nothing for verify). */
static void dataset_header(h5ctx *c, const dset *ds)
{
    if (c->json) {
        b2cli_json_object_begin(c->j, NULL);
        b2cli_json_str(c->j, "name", ds->name);
        b2cli_json_array_begin(c->j, "shape");
        for (int i = 0; i < ds->rank; i++)
            b2cli_json_array_int(c->j, (int64_t)ds->dims[i]);
        b2cli_json_array_end(c->j);
        b2cli_json_int(c->j, "filter_index", ds->bidx);
        b2cli_json_int(c->j, "nfilters", ds->nf);
        print_cd(c, ds->cd, ds->ncd);
        b2cli_json_int(c->j, "nchunks", (int64_t)ds->nchunks);
        b2cli_json_array_begin(c->j, "chunks");
    } else if (!c->verify) {
        printf("  dataset %s  shape (", ds->name);
        for (int i = 0; i < ds->rank; i++)
            printf("%s%llu", i ? ", " : "", (unsigned long long)ds->dims[i]);
        printf(")  Blosc2 is filter %d of %d%s\n", ds->bidx + 1, ds->nf,
               ds->strip_tail ? " (fletcher32 after it)" : "");
        print_cd(c, ds->cd, ds->ncd);
        printf("    %8s %-16s %10s %6s %8s %10s %10s\n", "chunk", "offset", "stored", "kind", "nchunks",
               "nbytes", "cbytes");
    }
}

/* Where stored chunk k is, and what it holds (decoded too when decode). */
typedef struct chunk_at {
    hsize_t off[H5S_MAX_RANK], sz;
    unsigned mask;
    haddr_t addr;
    char offs[64]; /* the offset, "i,j,..." */
} chunk_at;

/* Read stored chunk k and inspect it into cs (decoding it when decode). */
static void check_chunk(const dset *ds, hsize_t k, int decode, chunk_at *at, chunk_sum *cs)
{
    uint8_t *buf = NULL;
    int pos = 0;
    memset(cs, 0, sizeof *cs);
    if (H5Dget_chunk_info(ds->d, ds->space, k, at->off, &at->mask, &at->addr, &at->sz) < 0) {
        snprintf(cs->err, sizeof cs->err, "cannot get chunk info");
    } else {
        cs->blosc2_applied = !(at->mask & (1u << ds->bidx));
        if (!(buf = malloc(at->sz ? (size_t)at->sz : 1))) {
            snprintf(cs->err, sizeof cs->err, "out of memory");
        } else if (H5Dread_chunk(ds->d, H5P_DEFAULT, at->off, &at->mask, buf) < 0) {
            snprintf(cs->err, sizeof cs->err, "H5Dread_chunk failed");
        } else if (!cs->blosc2_applied) {
            cs->ok = 1; /* HDF5 stored it without Blosc2: nothing of ours to check */
        } else if (ds->post_other) {
            cs->ok = 1;
            snprintf(cs->err, sizeof cs->err, "filters after Blosc2 not undone; not inspected");
        } else if (at->sz < (hsize_t)ds->strip_tail) {
            snprintf(cs->err, sizeof cs->err, "stored chunk shorter than its checksum");
        } else {
            inspect_payload(buf, (size_t)(at->sz - ds->strip_tail), decode, cs);
        }
    }
    free(buf);
    for (int i = 0; i < ds->rank && pos < (int)sizeof at->offs - 24; i++)
        pos += snprintf(at->offs + pos, sizeof at->offs - pos, "%s%llu", i ? "," : "",
                        (unsigned long long)at->off[i]);
    if (pos == 0)
        at->offs[0] = '\0';
}

/* One row of the chunk table (text) or one object of the "chunks" array. */
static void chunk_row(h5ctx *c, const dset *ds, hsize_t k, const chunk_at *at, const chunk_sum *cs)
{
    if (c->json) {
        b2cli_json_object_begin(c->j, NULL);
        b2cli_json_int(c->j, "index", (int64_t)k);
        b2cli_json_array_begin(c->j, "offset");
        for (int i = 0; i < ds->rank; i++)
            b2cli_json_array_int(c->j, (int64_t)at->off[i]);
        b2cli_json_array_end(c->j);
        b2cli_json_int(c->j, "filter_mask", at->mask);
        b2cli_json_int(c->j, "stored_bytes", (int64_t)at->sz);
        b2cli_json_int(c->j, "address", (int64_t)at->addr);
        b2cli_json_bool(c->j, "blosc2_applied", cs->blosc2_applied);
        if (cs->blosc2_applied && cs->nchunks + cs->nbytes > 0) {
            b2cli_json_str(c->j, "payload", cs->is_b2nd ? "b2nd" : "frame");
            b2cli_json_int(c->j, "frame_nchunks", cs->nchunks);
            b2cli_json_int(c->j, "nbytes", cs->nbytes);
            b2cli_json_int(c->j, "cbytes", cs->cbytes);
        }
        if (!cs->ok)
            b2cli_json_str(c->j, "error", cs->err);
        b2cli_json_object_end(c->j);
    } else if (!c->verify) {
        if (!cs->blosc2_applied)
            printf("    %8llu %-16s %10llu %6s\n", (unsigned long long)k, at->offs,
                   (unsigned long long)at->sz, "raw");
        else
            printf("    %8llu %-16s %10llu %6s %8lld %10lld %10lld\n", (unsigned long long)k, at->offs,
                   (unsigned long long)at->sz, cs->is_b2nd ? "b2nd" : "frame", (long long)cs->nchunks,
                   (long long)cs->nbytes, (long long)cs->cbytes);
    }
}

/* Check (and list) the dataset's stored chunks. In pass 0 every chunk; in
 * pass 1 (par: after the parallel read failed) the ones pass 0 found good,
 * now decoded. Bad chunks are counted, reported and marked in badmap. */
static void chunk_pass(h5ctx *c, const dset *ds, int pass, int par, uint8_t *badmap,
                       chunk_sum *first_nd)
{
    for (hsize_t k = 0; k < ds->nchunks; k++) {
        chunk_at at;
        chunk_sum cs;
        if (pass == 1 && badmap[k])
            continue; /* reported in pass 0 */
        check_chunk(ds, k, c->verify && (!par || pass == 1), &at, &cs);
        if (pass == 0)
            c->nchecked++;
        if (!cs.ok) {
            if (badmap)
                badmap[k] = 1;
            c->nbad++;
            b2cli_data_error(c->file, "dataset %s chunk %llu (offset %s): %s", ds->name,
                             (unsigned long long)k, at.offs, cs.err);
        }
        if (cs.is_b2nd && !first_nd->is_b2nd)
            *first_nd = cs;
        chunk_row(c, ds, k, &at, &cs);
    }
}

/* info/verify of one dataset; 1 when it uses Blosc2 (then described), else 0. */
static int do_dataset(h5ctx *c, hid_t d, const char *name)
{
    dset ds;
    memset(&ds, 0, sizeof ds);
    ds.d = d;
    ds.name = name;
    ds.dcpl = H5Dget_create_plist(d);
    ds.space = H5Dget_space(d);
    if (!scan_dataset(&ds)) {
        H5Pclose(ds.dcpl);
        H5Sclose(ds.space);
        return 0;
    }
    c->ndsets++;
    c->nfletcher += ds.strip_tail > 0;
    dataset_header(c, &ds);
    /* verify: when Blosc2 is the only filter, each chunk's frame is checked
     * here without decoding (pass 0), and the data are decoded by the parallel
     * reader in slabs (read_slabs). When that read fails, pass 1 decodes chunk
     * by chunk, as verify does for other pipelines, to name every bad chunk. */
    int par = c->verify && ds.nf == 1 && ds.rank >= 1 && ds.rank <= B2_H5_READ_MAXRANK && ds.nchunks > 0;
    int64_t bad0 = c->nbad;
    int par_err = 0;
    chunk_sum first_nd = {0}; /* the first b2nd chunk: its shapes explain padding */
    uint8_t *badmap = par ? calloc((size_t)ds.nchunks, 1) : NULL;
    if (par && !badmap)
        par = 0;
    chunk_pass(c, &ds, 0, par, badmap, &first_nd);
    if (par) {
        int64_t start[H5S_MAX_RANK], stop[H5S_MAX_RANK];
        for (int i = 0; i < ds.rank; i++)
            start[i] = 0, stop[i] = (int64_t)ds.dims[i];
        int rc = read_slabs(d, ds.rank, start, stop, c->nthreads, NULL, NULL);
        if (rc < 0) {
            par_err = rc; /* decode each chunk to name the bad ones */
            chunk_pass(c, &ds, 1, par, badmap, &first_nd);
        }
    }
    if (par_err < 0 && c->nbad == bad0) {
        /* the reader failed, yet every chunk decodes alone: say why */
        c->nbad++;
        b2cli_data_error(c->file, "dataset %s: %s", name, b2cli_err(par_err));
    }
    if (!c->json && !c->verify)
        print_padding_note(&first_nd, ds.cd, ds.ncd);
    free(badmap);
    if (c->json) {
        b2cli_json_array_end(c->j);
        b2cli_json_object_end(c->j);
    }
    H5Pclose(ds.dcpl);
    H5Sclose(ds.space);
    return 1;
}

static herr_t visit_cb(hid_t g, const char *name, const H5L_info_t *info, void *op)
{
    h5ctx *c = op;
    hid_t d;
    char full[1024];
    if (info->type != H5L_TYPE_HARD)
        return 0;
    d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return 0; /* a group or a named type */
    snprintf(full, sizeof full, "/%s", name);
    do_dataset(c, d, full);
    H5Dclose(d);
    return 0;
}

static int run(const char *spec, int json, int verify, int quiet, int nthreads)
{
    char file[4096];
    const char *dset;
    h5ctx c;
    b2cli_json j;
    hid_t f;
    memset(&c, 0, sizeof c);
    if (b2cli_h5_split(spec, file, sizeof file, &dset) < 0)
        return b2cli_data_error(spec, "path too long"), B2_ERR_INVALID_PARAM;
    c.file = file;
    c.json = json;
    c.verify = verify;
    c.quiet = quiet;
    c.nthreads = nthreads;
    c.j = &j;
    if (verify)
        b2_h5_register(); /* chunks the reader leaves to H5Dread need the filter */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own one-line messages instead */
    f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return b2cli_data_error(file, "cannot open as HDF5"), B2_ERR_FORMAT;
    if (json) {
        b2cli_json_begin(&j, stdout);
        b2cli_json_str(&j, "file", file);
        b2cli_json_str(&j, "kind", "hdf5");
        b2cli_json_array_begin(&j, "datasets");
    } else if (!verify) {
        printf("%s: HDF5 file\n", file);
    }
    if (dset) {
        hid_t d = open_dataset(f, file, dset);
        if (d < 0) {
            c.nbad++;
        } else {
            if (do_dataset(&c, d, dset) == 0)
                b2cli_data_error(file, "dataset %s does not use the Blosc2 filter (32026)", dset),
                    c.nbad++;
            H5Dclose(d);
        }
    } else {
        H5Lvisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit_cb, &c);
    }
    H5Fclose(f);
    if (json) {
        b2cli_json_array_end(&j);
        b2cli_json_end(&j);
    } else if (!verify && c.ndsets == 0 && !dset) {
        printf("  no dataset uses the Blosc2 filter (32026)\n");
    }
    if (verify && !quiet) {
        if (c.nbad)
            printf("%s: BAD (%lld of %lld chunk%s bad in %d Blosc2 dataset%s)\n", file,
                   (long long)c.nbad, (long long)c.nchecked, b2cli_plural(c.nchecked), c.ndsets,
                   b2cli_plural(c.ndsets));
        else /* Blosc2 frames in HDF5 chunks hold no checksums; fletcher32 is not read */
            printf("%s: ok (hdf5, %d Blosc2 dataset%s, %lld chunk%s; decoded, %s)\n", file, c.ndsets,
                   b2cli_plural(c.ndsets), (long long)c.nchecked, b2cli_plural(c.nchecked),
                   c.nfletcher ? "fletcher32 checksums not checked" : "no checksums to check");
    }
    return c.nbad ? B2_ERR_CORRUPT : B2_OK;
}

int b2cli_h5_info(const char *spec, int json)
{
    return run(spec, json, 0, 0, 0);
}

int b2cli_h5_verify(const char *spec, int quiet, int nthreads)
{
    return run(spec, 0, 1, quiet, nthreads);
}

int b2cli_h5_slice(const char *spec, const char *box, FILE *out, int report, int nthreads)
{
    char file[4096];
    const char *dset;
    if (b2cli_h5_split(spec, file, sizeof file, &dset) < 0)
        return b2cli_data_error(spec, "path too long"), B2_ERR_INVALID_PARAM;
    if (!dset)
        return b2cli_usage_error("slice", "name the dataset: %s:/DATASET", file);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    b2_h5_register(); /* chunks the direct path leaves to H5Dread need the filter */
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return b2cli_data_error(file, "cannot open as HDF5"), B2_ERR_FORMAT;
    hid_t d = open_dataset(f, file, dset);
    if (d < 0) {
        H5Fclose(f);
        return B2_ERR_NOT_FOUND;
    }
    hid_t sp = H5Dget_space(d);
    int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1, rc;
    hsize_t dims[B2_H5_READ_MAXRANK];
    int64_t shape[B2_H5_READ_MAXRANK], start[B2_H5_READ_MAXRANK], stop[B2_H5_READ_MAXRANK];
    if (rank < 1 || rank > B2_H5_READ_MAXRANK || H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
        b2cli_data_error(spec, "not a simple dataspace of rank 1..%d", B2_H5_READ_MAXRANK);
        rc = B2_ERR_UNSUPPORTED;
    } else {
        for (int i = 0; i < rank; i++)
            shape[i] = (int64_t)dims[i];
        rc = b2cli_parse_box(box, rank, shape, start, stop);
    }
    if (sp >= 0)
        H5Sclose(sp);
    b2_h5_read_report total;
    memset(&total, 0, sizeof total);
    if (rc == 0) {
        rc = read_slabs(d, rank, start, stop, nthreads, out, &total);
        if (rc < 0)
            b2cli_data_error(spec, "%s", b2cli_err(rc));
    }
    if (rc == 0 && report)
        fprintf(stderr, "%s: %s%s%s%s; %lld chunks direct, %lld through H5Dread, %lld file bytes "
                "read by the direct path, %lld blocks decoded\n", spec,
                total.path == B2_H5_READ_DIRECT ? "direct" : total.path == B2_H5_READ_H5DREAD
                    ? "H5Dread" : total.path ? "mixed" : "empty box",
                total.reason[0] ? " (" : "", total.reason, total.reason[0] ? ")" : "",
                (long long)total.chunks_direct, (long long)total.chunks_h5dread,
                (long long)total.bytes_read, (long long)total.blocks_decoded);
    H5Dclose(d);
    H5Fclose(f);
    return rc;
}
#endif
