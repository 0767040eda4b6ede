/* SPDX-License-Identifier: BSD-3-Clause */
/* `b2 convert SRC DST`: move an array between an HDF5 dataset (FILE.h5:/DATASET)
 * and a b2nd array (FILE.b2nd), in either direction.
 *
 * Without recompressing when it can: a stored HDF5 chunk of filter 32026 is a
 * frame holding one b2nd chunk whose shape is the HDF5 chunk shape
 * (hdf5-filter.md §3-5). When the array's chunk shape is the HDF5 chunk shape
 * and every chunk has the array's block shape and typesize, that inner chunk is
 * a chunk of the b2nd array as it is: H5Dread_chunk, then it replaces chunk i
 * (C order of the chunk grid) of the array's super-chunk; the other way, each
 * b2nd chunk is wrapped in the one-chunk frame the filter writes (same header,
 * metalayer and trailer) and stored with H5Dwrite_chunk, filter mask 0.
 * Padding: both sides store full-size edge chunks; HDF5's part beyond the
 * dataset's edge becomes b2nd padding (readers ignore it), and b2nd padding
 * becomes the part of the HDF5 chunk that HDF5 ignores.
 *
 * Every chunk that cannot move as it is (other filters, filter mask set,
 * unallocated chunks, another block shape, uninit chunks, other chunk shapes
 * or compression options asked for) is decoded and re-encoded: its box is read
 * through HDF5 (b2_h5_read_box) or the b2nd reader and written through the b2nd
 * writer or H5Dwrite with the filter. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b2cli.h"

#define CMD "convert"

static const char convert_help[] =
    "usage: b2 convert [options] SRC DST\n"
    "Convert an HDF5 dataset into a b2nd array or a b2nd array into an HDF5\n"
    "dataset: one of SRC and DST is FILE.h5:/DATASET, the other FILE.b2nd.\n"
    "Chunks move without recompressing whenever they can: an HDF5 chunk of the\n"
    "Blosc2 filter (32026, alone in the pipeline, filter mask 0) holds one b2nd\n"
    "chunk, which becomes a chunk of the array as it is, and the other way round,\n"
    "as long as the chunk shapes are the same and every chunk has the array's\n"
    "block shape and typesize. Other chunks (other filters, unallocated or raw\n"
    "chunks, other block shapes) are decoded and compressed again. A new HDF5\n"
    "dataset gets filter 32026 with cd_values from the array's codec, clevel,\n"
    "filter and block size; its file is created when missing. A new b2nd file\n"
    "is written under a temporary name and renamed into place. Integers, floats,\n"
    "fixed-size strings and h5py's complex keep their type; other fixed-size\n"
    "types become opaque items; variable-length types are refused.\n"
    "Examples:  b2 convert run.h5:/grid/t t.b2nd\n"
    "           b2 convert t.b2nd out.h5:/t --chunks 100,100 --codec zstd --clevel 3\n"
    "Options:\n"
    "  --chunks C0,C1,..  chunk shape of the output (default: the input's); another\n"
    "                     shape means recompressing\n"
    "  --blocks B0,B1,..  b2nd output: block shape (default: the HDF5 chunks' one)\n"
    "  --recompress       decode and re-encode every chunk\n"
    "  --force            replace an existing DST (b2nd file, or HDF5 dataset)\n"
    "  --threads N        threads for decoding and compressing\n"
    "  -q, --quiet        do not print what was done\n"
    "  Compression (as for 'b2 compress'; any of them means recompressing):\n"
    "  --codec NAME|ID  --codec-meta N  --clevel N  --blocksize N  --filter F\n"
    "  --filters F0,..,F5  --filters-meta M0,..,M5  --splitmode MODE  --dict\n"
    "  An HDF5 output takes only what cd_values carry: the codec (and its meta),\n"
    "  clevel, one filter (shuffle, bitshuffle, delta or none) and the block size.\n"
    "It prints how many chunks moved as they were and how many were recompressed\n"
    "(and why). When converting at least 100 MB (B2_PROGRESS_MIN_BYTES) and\n"
    "standard error is a terminal, a progress bar is drawn there.\n"
    "Exit status: 0 success, 1 unreadable input, existing output or write failure,\n"
    "2 bad arguments.\n";

typedef struct conv {
    const char *src, *dst;
    b2cli_cparam_opts cpo;
    int nchunks_dims, nblocks_dims;
    int32_t chunks[B2_ND_MAX_DIM], blocks[B2_ND_MAX_DIM];
    int force, recompress, quiet, nthreads;
    int64_t moved, recompressed;
    char reason[200]; /* first reason a chunk was recompressed */
} conv;

static int parse_shape(const char *opt, const char *val, int32_t *out, int *n)
{
    char buf[512], *tok, *save = NULL;
    *n = 0;
    if (strlen(val) >= sizeof buf)
        return b2cli_usage_error(CMD, "%s: value too long", opt);
    strcpy(buf, val);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (*n == B2_ND_MAX_DIM)
            return b2cli_usage_error(CMD, "%s: at most %d dimensions", opt, B2_ND_MAX_DIM);
        if (b2cli_parse_int(tok, 1, INT32_MAX, 0, &v) < 0)
            return b2cli_usage_error(CMD, "%s: '%s' is not a number 1..%d", opt, tok, INT32_MAX);
        out[(*n)++] = (int32_t)v;
    }
    if (*n == 0)
        return b2cli_usage_error(CMD, "%s needs at least one value", opt);
    return 0;
}

#ifndef B2CLI_HAVE_HDF5

static int run(conv *c, int src_h5)
{
    (void)src_h5;
    b2cli_data_error(c->src, "this b2 was built without HDF5 support");
    return B2CLI_EXIT_DATA;
}

#else
static void why(conv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void why(conv *c, const char *fmt, ...)
{
    va_list ap;
    if (c->reason[0])
        return;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The first ":/" splits "FILE.h5:/DATASET" (the file may not exist yet). */
static int split_dst(const char *spec, char *file, size_t cap, const char **dset)
{
    const char *p = strstr(spec, ":/");
    if (!p || (size_t)(p - spec) >= cap || p == spec || !p[2])
        return -1;
    memcpy(file, spec, (size_t)(p - spec));
    file[p - spec] = '\0';
    *dset = p + 1;
    return 0;
}

/* Number of chunks along each dimension and in all; coordinates of chunk i. */
static int64_t grid(int nd, const int64_t *shape, const int32_t *cs, int64_t *nper)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        nper[d] = shape[d] == 0 ? 0 : (shape[d] + cs[d] - 1) / cs[d];
        n *= nper[d];
    }
    return n;
}

static void chunk_box(int nd, int64_t i, const int64_t *nper, const int64_t *shape,
                      const int32_t *cs, int64_t *start, int64_t *stop)
{
    for (int d = nd - 1; d >= 0; d--) {
        int64_t k = i % nper[d];
        i /= nper[d];
        start[d] = k * cs[d];
        stop[d] = start[d] + cs[d] < shape[d] ? start[d] + cs[d] : shape[d];
    }
}

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

static void report(const conv *c)
{
    if (c->quiet)
        return;
    printf("%s -> %s: %lld chunk%s moved without recompressing, %lld recompressed%s%s%s\n", c->src,
           c->dst, (long long)c->moved, c->moved == 1 ? "" : "s", (long long)c->recompressed,
           c->reason[0] && c->recompressed ? " (" : "", c->recompressed ? c->reason : "",
           c->reason[0] && c->recompressed ? ")" : "");
}

#include <hdf5.h>

#include "b2_h5filter.h"
#include "b2nd_internal.h"

#define H5_FILTER_BLOSC2 32026

/* ---- types ---- */

/* Whether compound type t (sz bytes) is h5py's complex: members "r" and "i",
 * floats of half its size at offsets 0 and sz/2; *o gets their byte order. */
static int is_complex(hid_t t, size_t sz, char *o)
{
    if (H5Tget_nmembers(t) != 2)
        return 0;
    int ok = 1;
    for (unsigned i = 0; i < 2 && ok; i++) {
        char *name = H5Tget_member_name(t, i);
        hid_t m = H5Tget_member_type(t, i);
        ok = name && !strcmp(name, i ? "i" : "r") && m >= 0 && H5Tget_class(m) == H5T_FLOAT &&
             H5Tget_size(m) == sz / 2 && H5Tget_member_offset(t, i) == i * (sz / 2);
        if (ok && i == 0)
            *o = H5Tget_order(m) == H5T_ORDER_BE ? '>' : '<';
        if (m >= 0)
            H5Tclose(m);
        H5free_memory(name);
    }
    return ok;
}

/* NumPy typestr for an HDF5 type, or -1 for types without one fixed size. */
static int dtype_of(hid_t t, char *buf, size_t cap)
{
    size_t sz = H5Tget_size(t);
    H5T_class_t cl = H5Tget_class(t);
    if (sz == 0 || cl == H5T_VLEN || cl == H5T_NO_CLASS || (cl == H5T_STRING && H5Tis_variable_str(t) > 0))
        return -1;
    char o = H5Tget_order(t) == H5T_ORDER_BE ? '>' : '<';
    if (cl == H5T_INTEGER && (sz == 1 || sz == 2 || sz == 4 || sz == 8))
        snprintf(buf, cap, "%c%c%zu", sz == 1 ? '|' : o, H5Tget_sign(t) == H5T_SGN_NONE ? 'u' : 'i', sz);
    else if (cl == H5T_FLOAT && (sz == 2 || sz == 4 || sz == 8))
        snprintf(buf, cap, "%cf%zu", o, sz);
    else if (cl == H5T_STRING)
        snprintf(buf, cap, "|S%zu", sz);
    else if (cl == H5T_COMPOUND && (sz == 8 || sz == 16) && is_complex(t, sz, &o))
        snprintf(buf, cap, "%cc%zu", o, sz);
    else
        snprintf(buf, cap, "|V%zu", sz);
    return 0;
}

/* HDF5 type for a NumPy typestr of item size ts (opaque when unknown). */
static hid_t h5type_of(const char *dt, int32_t ts)
{
    hid_t t = -1;
    char o = dt ? dt[0] : 0, k = dt && dt[0] ? dt[1] : 0;
    int be = o == '>';
    if ((k == 'i' || k == 'u') && (ts == 1 || ts == 2 || ts == 4 || ts == 8)) {
        static const hid_t *ints[2][2][4] = {
            {{&H5T_STD_I8LE_g, &H5T_STD_I16LE_g, &H5T_STD_I32LE_g, &H5T_STD_I64LE_g},
             {&H5T_STD_I8BE_g, &H5T_STD_I16BE_g, &H5T_STD_I32BE_g, &H5T_STD_I64BE_g}},
            {{&H5T_STD_U8LE_g, &H5T_STD_U16LE_g, &H5T_STD_U32LE_g, &H5T_STD_U64LE_g},
             {&H5T_STD_U8BE_g, &H5T_STD_U16BE_g, &H5T_STD_U32BE_g, &H5T_STD_U64BE_g}}};
        int w = ts == 1 ? 0 : ts == 2 ? 1 : ts == 4 ? 2 : 3;
        H5open(); /* the predefined type ids exist once the library is open */
        t = H5Tcopy(*ints[k == 'u'][be][w]);
    } else if (k == 'b' && ts == 1) {
        t = H5Tcopy(H5T_STD_U8LE);
    } else if (k == 'f' && ts == 4) {
        t = H5Tcopy(be ? H5T_IEEE_F32BE : H5T_IEEE_F32LE);
    } else if (k == 'f' && ts == 8) {
        t = H5Tcopy(be ? H5T_IEEE_F64BE : H5T_IEEE_F64LE);
    } else if (k == 'c' && (ts == 8 || ts == 16)) { /* h5py's complex */
        hid_t f = ts == 8 ? (be ? H5T_IEEE_F32BE : H5T_IEEE_F32LE) : (be ? H5T_IEEE_F64BE : H5T_IEEE_F64LE);
        t = H5Tcreate(H5T_COMPOUND, (size_t)ts);
        H5Tinsert(t, "r", 0, f);
        H5Tinsert(t, "i", (size_t)ts / 2, f);
    } else if (k == 'S') {
        t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, (size_t)ts);
        H5Tset_strpad(t, H5T_STR_NULLPAD);
    } else {
        t = H5Tcreate(H5T_OPAQUE, (size_t)ts);
    }
    return t;
}

/* ---- what the filter stores: cd_values and its block-shape rule ---- */

/* The filter's cparams for cd_values (hdf5-filter.md §3 step 2). */
static void cd_cparams(const unsigned *cd, size_t ncd, int32_t ts, b2_cparams *cp)
{
    b2_cparams_init(cp);
    cp->codec = ncd > 6 ? (int)(cd[6] & 0xff) : 0;
    cp->codec_meta = ncd > 6 ? (uint8_t)(cd[6] >> 8) : 0;
    cp->clevel = ncd > 4 ? (int)cd[4] : 5;
    cp->typesize = ts;
    cp->splitmode = B2_SPLIT_FORWARD_COMPAT;
    memset(cp->filters, 0, sizeof cp->filters);
    memset(cp->filters_meta, 0, sizeof cp->filters_meta);
    cp->filters[B2_MAX_FILTERS - 1] = (uint8_t)(ncd > 5 ? cd[5] : 1);
    cp->blocksize = 0;
}

/* Block shape the filter derives for chunk dims from the target v1 (0:
 * automatic), hdf5-filter.md §4. */
static void filter_block_shape(const b2_cparams *cp0, uint32_t v1, int rank, const int32_t *dims,
                               int32_t ts, int64_t *b)
{
    int64_t chunkbytes = ts, target = v1;
    for (int i = 0; i < rank; i++)
        chunkbytes *= dims[i];
    if (!target) {
        b2_cparams cp = *cp0;
        cp.filters[B2_MAX_FILTERS - 1] = B2_FILTER_SHUFFLE; /* tuned as if shuffled */
        target = chunkbytes > INT32_MAX ? INT32_MAX : b2_chunk_blocksize_for(&cp, (int32_t)chunkbytes);
    }
    int64_t nt = target / ts, n = 1;
    for (int i = 0; i < rank; i++) {
        b[i] = dims[i] == 1 ? 1 : 2;
        n *= b[i];
    }
    int changed = 1;
    while (changed && n < nt) {
        changed = 0;
        for (int i = rank - 1; i >= 0; i--) {
            int64_t d = dims[i];
            if (2 * b[i] <= d) {
                if (2 * n <= nt) {
                    b[i] *= 2;
                    n *= 2;
                    changed = 1;
                }
            } else if (b[i] < d) {
                int64_t m = (n / b[i]) * d;
                if (m <= nt) {
                    b[i] = d;
                    n = m;
                    changed = 1;
                }
            }
        }
    }
}

/* The header fields c-blosc2's filter writes through its copy-to-buffer path
 * (tcomp 0, tdecomp 1, blocksize when given); as h5plugin/payload.c does. */
static void patch_copy_path_header(uint8_t *f, size_t len, int32_t blocksize)
{
    if (len < 68 || f[52] != 0xD2 || f[62] != 0xD1 || f[65] != 0xD1)
        return;
    if (blocksize > 0) {
        f[53] = (uint8_t)(blocksize >> 24);
        f[54] = (uint8_t)(blocksize >> 16);
        f[55] = (uint8_t)(blocksize >> 8);
        f[56] = (uint8_t)blocksize;
    }
    f[63] = 0;
    f[64] = 0;
    f[66] = 0;
    f[67] = 1;
}

/* ---- HDF5 -> b2nd ---- */

typedef struct h5src {
    hid_t d;
    int rank;
    int32_t ts;
    int32_t cdims[B2_ND_MAX_DIM]; /* HDF5 chunk dims (chunked only) */
    int chunked;
    uint8_t *buf;
    size_t cap;
} h5src;

static int grow(uint8_t **buf, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    uint8_t *p = realloc(*buf, n ? n : 1);
    if (!p)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
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
        why(c, "unallocated chunks (fill value)");
        return 0;
    }
    if (mask != 0) {
        why(c, "chunks stored without the filter (filter mask %u)", mask);
        return 0;
    }
    if (grow(&h->buf, &h->cap, (size_t)size) < 0)
        return B2_ERR_NOMEM;
    uint32_t m2 = 0;
    if (H5Dread_chunk(h->d, H5P_DEFAULT, off, &m2, h->buf) < 0)
        return B2_ERR_IO;
    if (b2_schunk_open_buffer(h->buf, (size_t)size, 0, s) < 0 || b2_schunk_nchunks(*s) != 1) {
        b2_schunk_free(*s);
        *s = NULL;
        why(c, "stored chunks that are not one-chunk Blosc2 frames");
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

/* Move stored chunk idx (box start) into the array. 1 moved, 0 not, < 0 error. */
static int h5_move_chunk(conv *c, h5src *h, b2_nd_array *a, int64_t idx, const int64_t *start)
{
    hsize_t off[B2_ND_MAX_DIM];
    b2_schunk *s;
    int32_t bs[B2_ND_MAX_DIM];
    for (int i = 0; i < h->rank; i++)
        off[i] = (hsize_t)start[i];
    int rc = h5_chunk_frame(c, h, off, &s);
    if (rc <= 0)
        return rc;
    const int32_t *abs = b2_nd_blockshape(a);
    int ok = frame_blockshape(h, s, bs);
    for (int i = 0; ok && i < h->rank; i++)
        ok = bs[i] == abs[i];
    if (!ok) {
        why(c, "chunks whose block shape is not the array's");
        b2_schunk_free(s);
        return 0;
    }
    b2_schunk *out = b2_nd_schunk(a);
    const int32_t *acs = b2_nd_chunkshape(a);
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
        why(c, rc < 0 ? "unreadable stored chunks" : ci.special == B2_SPECIAL_UNINIT
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
        if (grow(full, fullcap, n) < 0)
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

static int h5_to_b2nd(conv *c, const char *file, const char *dname)
{
    int ret = B2CLI_EXIT_DATA, rc;
    hid_t f = -1, sp = -1, t = -1, dcpl = -1;
    h5src h;
    b2_nd_array *a = NULL, *scratch = NULL;
    b2_h5_reader *rd = NULL;
    uint8_t *box = NULL, *full = NULL;
    size_t boxcap = 0, fullcap = 0;
    char *tmp = NULL, dtype[32];
    int tmp_made = 0;
    memset(&h, 0, sizeof h);
    h.d = -1;

    if (file_exists(c->dst) && !c->force) {
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
    if (t < 0 || dtype_of(t, dtype, sizeof dtype) < 0 || H5Tget_size(t) > INT32_MAX) {
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
    else if (ncd)
        cd_cparams(cd, ncd, h.ts, &cp);
    else
        b2_cparams_init(&cp);
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
        why(c, "the dataset is not chunked");
    else if (!only_blosc2)
        why(c, nf == 0 ? "the dataset is not compressed with Blosc2" : !ncd
                ? "the dataset does not use the Blosc2 filter" : "filters other than Blosc2 in the pipeline");
    else if (!same_chunks)
        why(c, "another chunk shape");
    else if (c->cpo.given)
        why(c, "compression options given");
    else if (c->recompress)
        why(c, "--recompress");
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
    b2_nd_storage st = {B2_STORAGE_FILE, tmp}, mem = {B2_STORAGE_MEMORY, NULL};
    b2_nd_params sp1 = np;
    for (int i = 0; i < h.rank; i++)
        sp1.shape[i] = np.chunkshape[i];
    if ((rc = b2_nd_create_bare(&np, &st, &a)) < 0 ||
        (rc = b2_nd_create(&sp1, &mem, B2_ND_FILL_ZEROS, NULL, &scratch)) < 0) {
        b2cli_data_error(c->dst, "cannot create the array: %s", b2cli_err(rc));
        goto done;
    }
    tmp_made = 1;
    b2_schunk_set_sync(b2_nd_schunk(a), 0);
    b2_nd_set_nthreads(scratch, c->nthreads);
    if ((rc = b2_h5_reader_open(h.d, &rd)) < 0) {
        b2cli_data_error(c->src, "cannot read the dataset: %s", b2cli_err(rc));
        goto done;
    }
    int64_t nper[B2_ND_MAX_DIM], total = h.ts;
    for (int i = 0; i < h.rank; i++)
        total *= np.shape[i];
    int64_t nchunks = grid(h.rank, np.shape, b2_nd_chunkshape(a), nper);
    b2cli_progress pr;
    b2cli_progress_start(&pr, "convert", total);
    for (int64_t i = 0; i < nchunks; i++) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
        hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
        chunk_box(h.rank, i, nper, np.shape, b2_nd_chunkshape(a), start, stop);
        size_t n = (size_t)h.ts;
        for (int d = 0; d < h.rank; d++) {
            hs[d] = (hsize_t)start[d];
            hc[d] = (hsize_t)(stop[d] - start[d]);
            n *= hc[d];
        }
        rc = raw ? h5_move_chunk(c, &h, a, i, start) : 0;
        if (rc > 0) {
            c->moved++;
        } else if (rc == 0) {
            if (grow(&box, &boxcap, n) < 0) {
                rc = B2_ERR_NOMEM;
            } else if ((rc = b2_h5_reader_read(rd, 0, hs, hc, box, n, NULL)) < 0) {
                b2cli_data_error(c->src, "reading chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else if ((rc = append_compressed(scratch, b2_nd_schunk(a), h.rank, start, stop, box,
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
    if (b2_schunk_nchunks(b2_nd_schunk(a)) != nchunks) {
        b2cli_data_error(c->dst, "%lld chunks written, %lld expected",
                         (long long)b2_schunk_nchunks(b2_nd_schunk(a)), (long long)nchunks);
        goto done;
    }
    /* Each append left the previous index and trailer behind; rewrite the
     * array compact when that is more than a little (1/64 of the file). */
    int64_t dead = b2_schunk_dead_bytes(b2_nd_schunk(a));
    if (dead > 0 && dead > b2_schunk_frame_len(b2_nd_schunk(a)) / 64 &&
        (rc = b2_schunk_compact(b2_nd_schunk(a))) < 0) {
        b2cli_data_error(c->dst, "cannot compact the array: %s", b2cli_err(rc));
        goto done;
    }
    b2_nd_free(a);
    a = NULL;
    if (commit_tmp(tmp, c->dst) < 0) {
        tmp_made = 0;
        goto done;
    }
    tmp_made = 0;
    report(c);
    ret = B2CLI_OK;
done:
    b2_h5_reader_free(rd);
    b2_nd_free(scratch);
    b2_nd_free(a);
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

/* ---- b2nd -> HDF5 ---- */

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
    b2_nd_array *nd; /* rank >= 2: an empty b2nd array of the chunk's shape */
    b2_schunk *plain; /* rank 1: an empty super-chunk */
    b2_schunk *s;
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
        int rc = b2_nd_create_bare(&np, NULL, &w->nd);
        if (rc < 0)
            return rc;
        w->s = b2_nd_schunk(w->nd);
    } else {
        if (!(w->plain = b2_schunk_new(cp)))
            return B2_ERR_INVALID_PARAM;
        w->s = w->plain;
    }
    w->hl = b2_schunk_header_len(w->s);
    return w->hl < 0 ? (int)w->hl : B2_OK;
}

static void wrapper_free(wrapper *w)
{
    b2_nd_free(w->nd);
    b2_schunk_free(w->plain);
    free(w->buf);
}

/* The frame around chunk ch (cb bytes); its length or an error. */
static int64_t wrap(wrapper *w, const uint8_t *ch, int32_t cb)
{
    size_t need = (size_t)w->hl + (size_t)cb + 4096;
    if (grow(&w->buf, &w->cap, need) < 0)
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
    patch_copy_path_header(w->buf, (size_t)flen, bsize);
    return flen;
}

static int b2nd_to_h5(conv *c, const char *file, const char *dname)
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
            b2cli_data_error(c->src, "is a %s, not a b2nd array", b2cli_kind_name(o.kind));
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
    cd_cparams(cd, 7, ts, &fcp);
    int64_t block_bytes = ts;
    for (int i = 0; i < rank; i++)
        block_bytes *= abs[i];
    int movable = same_chunks && !c->cpo.given && !c->recompress && rank <= 16;
    if (rank == 1 && acs[0] % abs[0]) {
        movable = 0; /* the filter's rank-1 frames hold unpadded chunks */
        why(c, "rank-1 blocks that do not divide the chunk");
    }
    if (c->cpo.given) {
        cd[1] = (unsigned)p.blocksize;
    } else if (rank >= 2) {
        /* v1 = 0 when the filter's automatic rule gives the array's block shape
         * (then chunks stored by the filter itself are the same bytes), else
         * the block's bytes. */
        int64_t b[B2_ND_MAX_DIM];
        int same = 1;
        filter_block_shape(&fcp, 0, rank, cdims, ts, b);
        for (int i = 0; i < rank; i++)
            same &= b[i] == abs[i];
        cd[1] = same ? 0 : (unsigned)block_bytes;
    } else {
        cd[1] = (unsigned)block_bytes;
    }
    if (!same_chunks)
        why(c, "another chunk shape");
    else if (c->cpo.given)
        why(c, "compression options given");
    else if (c->recompress)
        why(c, "--recompress");

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    b2_h5_register();
    if (file_exists(file)) {
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
    if ((t = h5type_of(b2_nd_dtype(a), ts)) < 0 || H5Tget_size(t) != (size_t)ts) {
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
        why(c, "no frame for these chunks: %s", b2cli_err(rc));
    }
    b2_schunk *as = b2_nd_schunk(a);
    int64_t nper[B2_ND_MAX_DIM], total = ts;
    for (int i = 0; i < rank; i++)
        total *= shape[i];
    int64_t nchunks = grid(rank, shape, cdims, nper);
    b2cli_progress pr;
    b2cli_progress_start(&pr, "convert", total);
    for (int64_t i = 0; i < nchunks; i++) {
        int64_t start[B2_ND_MAX_DIM], stop[B2_ND_MAX_DIM];
        hsize_t hs[B2_ND_MAX_DIM], hc[B2_ND_MAX_DIM];
        chunk_box(rank, i, nper, shape, cdims, start, stop);
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
                why(c, "uninitialised chunks");
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
            hid_t ms = -1, fs = -1;
            if (grow(&box, &boxcap, n) < 0) {
                rc = B2_ERR_NOMEM;
            } else if ((rc = b2_nd_get_slice_cbuffer(a, start, stop, box, n)) < 0) {
                b2cli_data_error(c->src, "reading chunk %lld: %s", (long long)i, b2cli_err(rc));
            } else if ((ms = H5Screate_simple(rank, hc, NULL)) < 0 || (fs = H5Dget_space(d)) < 0 ||
                       H5Sselect_hyperslab(fs, H5S_SELECT_SET, hs, NULL, hc, NULL) < 0 ||
                       H5Dwrite(d, t, ms, fs, H5P_DEFAULT, box) < 0) {
                rc = B2_ERR_IO;
                b2cli_data_error(file, "H5Dwrite of chunk %lld failed", (long long)i);
            } else {
                c->recompressed++;
            }
            if (ms >= 0)
                H5Sclose(ms);
            if (fs >= 0)
                H5Sclose(fs);
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
    report(c);
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

static int run(conv *c, int src_h5)
{
    char file[4096];
    const char *dset;
    if (src_h5) {
        if (b2cli_h5_split(c->src, file, sizeof file, &dset) < 0 || !dset)
            return b2cli_usage_error(CMD, "name the dataset: %s:/DATASET", c->src);
        return h5_to_b2nd(c, file, dset);
    }
    if (split_dst(c->dst, file, sizeof file, &dset) < 0)
        return b2cli_usage_error(CMD, "DST must be FILE.h5:/DATASET when SRC is a b2nd array");
    return b2nd_to_h5(c, file, dset);
}
#endif

int b2cli_cmd_convert(int argc, char **argv)
{
    conv c;
    int npos = 0, rc;
    memset(&c, 0, sizeof c);
    b2cli_cparam_opts_init(&c.cpo);
    for (int i = 1; i < argc; i++)
        if (b2cli_is_help(argv[i])) {
            fputs(convert_help, stdout);
            return B2CLI_OK;
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (a[0] != '-' || !a[1]) {
            if (npos == 2)
                return b2cli_usage_error(CMD, "too many arguments");
            if (npos++ == 0)
                c.src = a;
            else
                c.dst = a;
        } else if (!strcmp(a, "--force")) {
            c.force = 1;
        } else if (!strcmp(a, "--recompress")) {
            c.recompress = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            c.quiet = 1;
        } else if (b2cli_opt_is(a, "--chunks") || b2cli_opt_is(a, "--blocks")) {
            int is_chunks = b2cli_opt_is(a, "--chunks");
            const char *name = is_chunks ? "--chunks" : "--blocks";
            if (!(v = b2cli_opt_value(CMD, argc, argv, &i, name)))
                return B2CLI_EXIT_USAGE;
            if ((rc = parse_shape(name, v, is_chunks ? c.chunks : c.blocks,
                                  is_chunks ? &c.nchunks_dims : &c.nblocks_dims)) != 0)
                return rc;
        } else if ((rc = b2cli_cparam_opt(CMD, &c.cpo, argc, argv, &i)) >= 0) {
            if (rc > 0)
                return rc;
        } else {
            return b2cli_usage_error(CMD, "unknown option '%s'", a);
        }
    }
    if (npos < 2)
        return b2cli_usage_error(CMD, "missing %s", npos ? "DST" : "SRC and DST");
    if ((rc = b2cli_cparam_opts_finish(CMD, &c.cpo)) != 0)
        return rc;
    c.nthreads = c.cpo.p.nthreads > 0 ? c.cpo.p.nthreads : 1;
    if (c.nthreads > 1) {
        char n[16];
        snprintf(n, sizeof n, "%d", c.nthreads);
        setenv("B2_H5_NTHREADS", n, 0); /* the filter's threads for H5Dread/H5Dwrite */
    }
    int src_h5 = b2cli_h5_is_hdf5(c.src);
    int dst_h5 = strstr(c.dst, ":/") != NULL;
    if (src_h5 && dst_h5)
        return b2cli_usage_error(CMD, "both SRC and DST are HDF5; one of them must be a .b2nd array");
    if (!src_h5 && !dst_h5) {
        if (strstr(c.src, ":/"))
            return b2cli_data_error(c.src, "no such HDF5 file"), B2CLI_EXIT_DATA;
        return b2cli_usage_error(CMD, "one of SRC and DST must be an HDF5 dataset FILE.h5:/DATASET");
    }
    return run(&c, src_h5);
}
