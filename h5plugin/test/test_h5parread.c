/* SPDX-License-Identifier: BSD-3-Clause */
/* Parallel reads of b2_h5_reader (h5readpar.c) against H5Dread.
 *
 * 1. Random boxes (at least 500 a run) of datasets of ranks 1-4 with edge
 *    chunks, read with 1, 2 and 4 threads (every box over two chunks or more
 *    goes parallel: the size threshold is lowered to 0), compared byte for byte
 *    with H5Dread: Blosc2 alone (b2nd frames, a plain frame, a raw-stored chunk
 *    through the filter mask, unallocated chunks with a fill value), shuffle +
 *    Blosc2 and deflate (other filters), type conversion, the core driver, and
 *    every dataset of the reference plugin's files (B2_TEST_DATA/hdf5).
 * 2. Hostile chunks stored with H5Dwrite_chunk (a frame decoding to the wrong
 *    size or shape, trailing or missing bytes, junk, flipped bytes) and hostile
 *    addresses and sizes (through the reader's look-up hook: past the end of the
 *    file, lying sizes, over the memory limit): a negative code and a message
 *    naming the chunk, no crash, and the reader then reads good boxes again.
 * Runs under ASan and TSan (scripts/setup.sh). Argument: a directory for files. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "b2_frame.h"
#include "b2_h5filter.h"
#include "check.h"
#include "frame_open.h"
#include "h5read_int.h"

#ifdef B2_ERROR_FUNCS /* the debug build ends messages with "(function)" */
#define B2_ERROR_FUNCS_ON 1
#else
#define B2_ERROR_FUNCS_ON 0
#endif

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static const int THREADS[3] = {1, 2, 4};
static long nboxes, nparallel_boxes;

/* Read [start, start+count) with the reader and with H5Dread; compare. */
static int compare_box(b2_h5_reader *rd, hid_t ds, hid_t mtype, const hsize_t *start,
                       const hsize_t *count, const char *what)
{
    hid_t fs = H5Dget_space(ds);
    int rank = H5Sget_simple_extent_ndims(fs);
    H5Sclose(fs);
    hid_t mt = mtype ? mtype : H5Dget_type(ds);
    size_t ts = H5Tget_size(mt);
    size_t n = ts;
    for (int d = 0; d < rank; d++)
        n *= count[d];
    uint8_t *a = malloc(n ? n : 1), *b = malloc(n ? n : 1);
    memset(a, 0xA5, n);
    memset(b, 0x5A, n);
    b2_h5_read_report rep;
    int rc = b2_h5_reader_read(rd, mtype, start, count, a, n, &rep);
    hid_t fsp = H5Dget_space(ds), msp = H5Screate_simple(rank, count, NULL);
    H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL);
    herr_t hr = H5Dread(ds, mt, msp, fsp, H5P_DEFAULT, b);
    H5Sclose(fsp);
    H5Sclose(msp);
    if (!mtype)
        H5Tclose(mt);
    int ok = rc == 0 && hr >= 0 && memcmp(a, b, n) == 0;
    CHECK(ok, "%s: box at %llu (+%llu) rank %d: rc %d (%s), H5Dread %d, %s", what,
          (unsigned long long)start[0], (unsigned long long)count[0], rank, rc,
          rc < 0 ? b2_last_error_message() : rep.reason, (int)hr,
          rc == 0 && hr >= 0 ? "bytes differ" : "");
    nboxes++;
    if (rc == 0 && n > 0) {
        hsize_t cd[32];
        hid_t dcpl = H5Dget_create_plist(ds);
        H5Pget_chunk(dcpl, rank, cd);
        H5Pclose(dcpl);
        int64_t touched = 1;
        for (int d = 0; d < rank; d++)
            touched *= (int64_t)((start[d] + count[d] - 1) / cd[d] - start[d] / cd[d] + 1);
        if (rep.path != B2_H5_READ_H5DREAD || rep.chunks_h5dread)
            CHECK(rep.chunks_direct + rep.chunks_h5dread == touched,
                  "%s: report counts %lld + %lld chunks, the box touches %lld", what,
                  (long long)rep.chunks_direct, (long long)rep.chunks_h5dread, (long long)touched);
        if (touched > 1 && !rd->why[0])
            nparallel_boxes++;
    }
    free(a);
    free(b);
    return ok;
}

static void random_box(int rank, const hsize_t *dims, hsize_t *start, hsize_t *count)
{
    for (int d = 0; d < rank; d++) {
        if (rnd() % 4 == 0) { /* the whole extent now and then */
            start[d] = 0;
            count[d] = dims[d];
        } else {
            start[d] = rnd() % dims[d];
            count[d] = 1 + rnd() % (dims[d] - start[d]);
        }
    }
}

/* nboxes random boxes of dataset name with each thread count. */
static void random_boxes(hid_t file, const char *name, hid_t mtype, int per_thread)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    CHECK(ds >= 0, "open %s", name);
    if (ds < 0)
        return;
    hid_t sp = H5Dget_space(ds);
    int rank = H5Sget_simple_extent_ndims(sp);
    hsize_t dims[32];
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    for (int t = 0; t < 3; t++) {
        b2_h5_reader *rd = NULL;
        CHECK(b2_h5_reader_open(ds, &rd) == 0, "reader_open %s", name);
        if (!rd)
            break;
        b2_h5_reader_set_nthreads(rd, THREADS[t]);
        CHECK(b2_h5_reader_nthreads(rd) == THREADS[t], "nthreads");
        for (int i = 0; i < per_thread; i++) {
            /* most boxes parallel from 2 chunks on; some at the default threshold */
            b2_h5_reader_set_par_min(rd, i % 5 == 4 ? B2_H5_PAR_MIN_BYTES : 0);
            /* chunks found by the cheaper look-up, by address, or read through HDF5 */
            b2_h5_reader_set_lookup(rd, i % 3);
            hsize_t start[32], count[32];
            random_box(rank, dims, start, count);
            char what[160];
            snprintf(what, sizeof what, "%s, %d threads", name, THREADS[t]);
            compare_box(rd, ds, mtype, start, count, what);
        }
        /* the whole dataset */
        b2_h5_reader_set_lookup(rd, B2_H5_LOOKUP_AUTO);
        hsize_t zero[32] = {0};
        int64_t via0 = b2_h5_reader_chunks_via_hdf5(rd);
        compare_box(rd, ds, mtype, zero, dims, name);
        if (!strncmp(name, "many_", 5) && !mtype) /* thousands of small chunks: read via HDF5 */
            CHECK(b2_h5_reader_chunks_via_hdf5(rd) - via0 > 1000, "%s: %lld chunks read through "
                  "HDF5", name, (long long)(b2_h5_reader_chunks_via_hdf5(rd) - via0));
        else if (!strcmp(name, "r2") && !mtype) /* few chunks: by address */
            CHECK(b2_h5_reader_chunks_via_hdf5(rd) == via0, "r2 read through HDF5");
        b2_h5_reader_free(rd);
    }
    H5Dclose(ds);
}

/* ---- making the test file ---- */

static void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)((i / 4) * 7 + seed + (i % 4 == 0 ? i / 1024 : 0));
}

/* A plain (non-b2nd) frame holding nbytes of src in one chunk; malloc'ed. */
static uint8_t *plain_frame(const void *src, int32_t nbytes, int32_t ts, size_t *len)
{
    b2_cparams cp;
    b2_cparams_init(&cp);
    cp.typesize = ts;
    cp.codec = B2_CODEC_LZ4;
    cp.clevel = 5;
    b2_schunk *s = t_new(&cp);
    uint8_t *out = NULL;
    *len = 0;
    if (s && b2_schunk_append_buffer(s, src, nbytes) == 1)
        b2_schunk_to_buffer(s, &out, len);
    b2_schunk_free(s);
    return out;
}

static const unsigned CD[7] = {0, 0, 0, 0, 5, 1, 1}; /* lz4 5 + shuffle */

/* Dataset name of rank, dims and chunks with Blosc2 (and shuffle first, or
 * deflate instead, by kind), filled with a pattern; holes: only the first half
 * of dimension 0 written (the rest unallocated, fill value -7); special: one
 * chunk replaced by a plain frame and one stored raw (filter mask). */
enum { K_B2, K_SHUFFLE_B2, K_DEFLATE };
static void make_dataset(hid_t file, const char *name, int rank, const hsize_t *dims,
                         const hsize_t *cdims, hid_t type, int kind, int holes, int special)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, cdims);
    if (kind == K_SHUFFLE_B2)
        H5Pset_shuffle(dcpl);
    if (kind == K_DEFLATE)
        H5Pset_deflate(dcpl, 1);
    else
        H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 7, CD);
    int fillv[2] = {-7, -7};
    H5Pset_fill_value(dcpl, H5T_NATIVE_INT, fillv); /* converted to type */
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds >= 0, "create %s", name);
    size_t ts = H5Tget_size(type), n = ts;
    hsize_t wcount[4];
    for (int d = 0; d < rank; d++) {
        wcount[d] = d == 0 && holes ? (dims[0] + 1) / 2 : dims[d];
        n *= wcount[d];
    }
    uint8_t *data = malloc(n);
    fill_pattern(data, n, (unsigned)rank);
    hid_t ms = H5Screate_simple(rank, wcount, NULL), fs = H5Dget_space(ds);
    hsize_t zero[4] = {0};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, zero, NULL, wcount, NULL);
    CHECK(H5Dwrite(ds, type, ms, fs, H5P_DEFAULT, data) >= 0, "write %s", name);
    H5Sclose(ms);
    H5Sclose(fs);
    free(data);
    if (special) {
        size_t cn = ts;
        for (int d = 0; d < rank; d++)
            cn *= cdims[d];
        uint8_t *chunk = malloc(cn);
        fill_pattern(chunk, cn, 99);
        size_t flen = 0;
        uint8_t *frame = plain_frame(chunk, (int32_t)cn, (int32_t)ts, &flen);
        hsize_t off[4] = {0}; /* chunk 0: a plain frame */
        CHECK(frame && H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, flen, frame) >= 0,
              "plain frame in %s", name);
        free(frame);
        off[rank - 1] = cdims[rank - 1]; /* the next one along the last axis: raw */
        fill_pattern(chunk, cn, 42);
        CHECK(H5Dwrite_chunk(ds, H5P_DEFAULT, 1, off, cn, chunk) >= 0, "raw chunk in %s", name);
        free(chunk);
    }
    H5Dclose(ds);
    H5Sclose(sp);
    H5Pclose(dcpl);
}

static void make_file(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0, "create %s", path);
    static const hsize_t d1[1] = {5000}, c1[1] = {384};
    static const hsize_t d2[2] = {61, 83}, c2[2] = {16, 20};
    static const hsize_t d3[3] = {13, 17, 19}, c3[3] = {5, 6, 7};
    static const hsize_t d4[4] = {7, 9, 5, 11}, c4[4] = {3, 4, 2, 5};
    /* 3,300 chunks: the cheaper look-up reads their bytes through HDF5 */
    static const hsize_t dm[2] = {219, 300}, cm[2] = {4, 5};
    make_dataset(f, "r1", 1, d1, c1, H5T_STD_I32LE, K_B2, 0, 1);
    make_dataset(f, "r2", 2, d2, c2, H5T_IEEE_F32LE, K_B2, 0, 1);
    make_dataset(f, "r3", 3, d3, c3, H5T_STD_U16LE, K_B2, 0, 1);
    make_dataset(f, "r4", 4, d4, c4, H5T_STD_I64LE, K_B2, 0, 1);
    make_dataset(f, "holes_r1", 1, d1, c1, H5T_STD_I16LE, K_B2, 1, 0);
    make_dataset(f, "holes_r2", 2, d2, c2, H5T_STD_I32LE, K_B2, 1, 1);
    make_dataset(f, "holes_r3", 3, d3, c3, H5T_STD_U8LE, K_B2, 1, 0);
    make_dataset(f, "many_r2", 2, dm, cm, H5T_STD_I32LE, K_B2, 1, 1);
    make_dataset(f, "shuffle_b2_r2", 2, d2, c2, H5T_STD_I32LE, K_SHUFFLE_B2, 0, 0);
    make_dataset(f, "deflate_r3", 3, d3, c3, H5T_STD_I32LE, K_DEFLATE, 0, 0);
    H5Fclose(f);
}

/* ---- the reference plugin's files ---- */

static herr_t visit_cb(hid_t obj, const char *name, const H5O_info_t *info, void *ud)
{
    (void)ud;
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    hid_t ds = H5Dopen2(obj, name, H5P_DEFAULT);
    hid_t dcpl = H5Dget_create_plist(ds), tp = H5Dget_type(ds), sp = H5Dget_space(ds);
    hssize_t np = H5Sget_simple_extent_npoints(sp);
    int chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
    int simple = H5Tget_class(tp) != H5T_VLEN && H5Tis_variable_str(tp) <= 0 &&
                 H5Sget_simple_extent_type(sp) == H5S_SIMPLE;
    size_t bytes = (size_t)np * H5Tget_size(tp);
    H5Sclose(sp);
    H5Tclose(tp);
    H5Pclose(dcpl);
    H5Dclose(ds);
    if (chunked && simple && np > 0 && bytes <= (64u << 20))
        random_boxes(obj, name, 0, 12);
    return 0;
}

static void reference_files(void)
{
    const char *dir = getenv("B2_TEST_DATA");
    /* h6, h7: rank 1 written by hdf5plugin 7.1.0 and in HDF5-Blosc2 2.0's
     * one-dimensional layout (test_data/hdf5/README.md) */
    static const char *names[] = {"h0_rank1.h5", "h1_rank2_3.h5", "h2_rank_high.h5", "h3_types.h5",
                                  "h4_pipelines.h5", "h6_rank1_hdf5plugin.h5", "h7_rank1_b2nd.h5"};
    if (!dir) {
        printf("B2_TEST_DATA not set: reference files skipped\n");
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/hdf5/%s", dir, names[i]);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        CHECK(f >= 0, "open %s", path);
        if (f < 0)
            continue;
        long before = nboxes;
        H5Ovisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit_cb, NULL);
        CHECK(nboxes > before, "no dataset compared in %s", path);
        H5Fclose(f);
    }
}

/* ---- hostile chunks ---- */

typedef struct hook_state {
    hsize_t coff0; /* chunk whose look-up lies (dimension 0 offset; dimension 1 is 0) */
    int mode;      /* 1 past EOF, 2 size + 1000, 3 size - 7, 4 size 1 TiB, 5 every chunk past EOF */
    haddr_t eof;
} hook_state;

static void lie(void *ud, const hsize_t *coff, unsigned *mask, haddr_t *addr, hsize_t *size)
{
    hook_state *h = ud;
    (void)mask;
    if (*addr == HADDR_UNDEF)
        return;
    if (h->mode == 5 || (coff[0] == h->coff0 && coff[1] == 0)) {
        switch (h->mode) {
        case 1: case 5: *addr = h->eof + 4096 * (coff[0] + 1); break;
        case 2: *size += 1000; break;
        case 3: *size -= 7; break;
        case 4: *size = (hsize_t)1 << 40; break;
        default: break;
        }
    }
}

/* Whole-dataset reads of ds must fail with code (0: any negative) and a message
 * containing msg; a box away from the bad chunk (rows >= 16) then reads right. */
static void expect_failure(hid_t ds, const char *what, int code, const char *msg,
                           hook_state *hook)
{
    hsize_t zero[2] = {0, 0}, dims[2] = {64, 48}, s2[2] = {16, 0}, c2[2] = {48, 48};
    static int32_t buf[64 * 48];
    /* the look-up hook lies about addresses: by address only */
    for (int k = 0; k < (hook ? 3 : 6); k++) {
        int t = k % 3, lookup = k < 3 ? B2_H5_LOOKUP_ADDR : B2_H5_LOOKUP_READ;
        b2_h5_reader *rd = NULL;
        CHECK(b2_h5_reader_open(ds, &rd) == 0, "%s: open", what);
        if (!rd)
            return;
        b2_h5_reader_set_nthreads(rd, THREADS[t]);
        b2_h5_reader_set_par_min(rd, 0);
        b2_h5_reader_set_lookup(rd, lookup);
        if (hook)
            b2_h5_reader_set_chunk_hook(rd, lie, hook);
        for (int rep = 0; rep < 2; rep++) {
            int rc = b2_h5_reader_read(rd, 0, zero, dims, buf, sizeof buf, NULL);
            const char *m = b2_last_error_message();
            CHECK(rc < 0 && (!code || rc == code) && strstr(m, msg), "%s, %d threads, look-up %d: "
                  "rc %d, message \"%s\" (want %d, \"%s\")", what, THREADS[t], lookup, rc, m,
                  code, msg);
            /* by its HDF5 chunk coordinates, "chunk at (r,c)" or "chunk (r,c)" */
            CHECK(rc >= 0 || strstr(m, "chunk at (") || strstr(m, "chunk ("),
                  "%s: the message names no chunk's coordinates: %s", what, m);
            CHECK(rc >= 0 || !strstr(m, "(b2_h5") || B2_ERROR_FUNCS_ON, "%s: a function name: %s",
                  what, m);
        }
        if (!hook) { /* the serial path (a box in the bad chunk) fails too */
            hsize_t c1[2] = {4, 4};
            int rc = b2_h5_reader_read(rd, 0, zero, c1, buf, sizeof buf, NULL);
            const char *m = b2_last_error_message();
            CHECK(rc < 0 && (strstr(m, "chunk at (0,0)") || strstr(m, "chunk (0,0)")),
                  "%s, serial: rc %d, the bad chunk's coordinates in: %s", what, rc, m);
        }
        b2_h5_reader_set_chunk_hook(rd, NULL, NULL); /* then good boxes read right */
        compare_box(rd, ds, 0, s2, c2, what);
        if (hook)
            compare_box(rd, ds, 0, zero, dims, what);
        b2_h5_reader_free(rd);
    }
}

static void hostile(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {64, 48}, cdims[2] = {8, 8}, off[2] = {0, 0};
    static const char *names[] = {"short_frame", "other_shape", "trailing", "truncated", "junk",
                                  "flipped", "good", "raw_short"};
    enum { NH = 8 };
    static int32_t data[64 * 48];
    for (int i = 0; i < 64 * 48; i++)
        data[i] = i * 3 + 1;
    uint8_t small_nd[4096];
    size_t small_len = 0;
    { /* a b2nd frame of a 4x8 chunk, for other_shape */
        hsize_t c4[2] = {4, 8};
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, c4);
        H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_MANDATORY, 7, CD);
        hid_t sp = H5Screate_simple(2, dims, NULL);
        hid_t ds = H5Dcreate2(f, "src_4x8", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
        hsize_t sz = 0;
        H5Dget_chunk_storage_size(ds, off, &sz);
        uint32_t m = 0;
        CHECK(sz <= sizeof small_nd && H5Dread_chunk(ds, H5P_DEFAULT, off, &m, small_nd) >= 0,
              "read a 4x8 chunk");
        small_len = (size_t)sz;
        H5Dclose(ds);
        H5Sclose(sp);
        H5Pclose(dcpl);
    }
    for (int k = 0; k < NH; k++) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, cdims);
        H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_MANDATORY, 7, CD);
        hid_t sp = H5Screate_simple(2, dims, NULL);
        hid_t ds = H5Dcreate2(f, names[k], H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, "write");
        hsize_t sz = 0;
        H5Dget_chunk_storage_size(ds, off, &sz);
        uint8_t *raw = calloc(1, (size_t)sz + 2000);
        uint32_t m = 0;
        H5Dread_chunk(ds, H5P_DEFAULT, off, &m, raw);
        size_t len = (size_t)sz;
        uint8_t *put = raw;
        uint8_t *pf = NULL;
        if (k == 0) { /* a plain frame of half the chunk's bytes */
            pf = plain_frame(data, 8 * 8 * 4 / 2, 4, &len);
            put = pf;
        } else if (k == 1) {
            put = small_nd;
            len = small_len;
        } else if (k == 2) {
            len += 1000;
        } else if (k == 3) {
            len -= 9;
        } else if (k == 4) {
            len = (size_t)snprintf((char *)raw, (size_t)sz, "not a frame, just text");
        } else if (k == 7) { /* HDF5 1.10.8 keeps the old mask when the size is the same */
            len = 100;
        } else if (k == 5) {
            for (size_t i = len / 2; i < len - 40 && i < len / 2 + 24; i++)
                raw[i] ^= 0x5b;
        }
        if (k != 6) /* raw_short: the frame's bytes, marked stored raw */
            CHECK(H5Dwrite_chunk(ds, H5P_DEFAULT, k == 7, off, len, put) >= 0, "write_chunk %s",
                  names[k]);
        free(pf);
        free(raw);
        H5Dclose(ds);
        H5Sclose(sp);
        H5Pclose(dcpl);
    }
    H5Fclose(f);

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds;
    ds = H5Dopen2(f, "short_frame", H5P_DEFAULT);
    expect_failure(ds, "short_frame", B2_ERR_CORRUPT, "wrong size", NULL);
    H5Dclose(ds);
    ds = H5Dopen2(f, "other_shape", H5P_DEFAULT);
    expect_failure(ds, "other_shape", B2_ERR_CORRUPT, "wrong size", NULL);
    H5Dclose(ds);
    ds = H5Dopen2(f, "trailing", H5P_DEFAULT);
    expect_failure(ds, "trailing", 0, "not a Blosc2 frame of that size", NULL);
    H5Dclose(ds);
    ds = H5Dopen2(f, "truncated", H5P_DEFAULT);
    expect_failure(ds, "truncated", 0, "not a Blosc2 frame of that size", NULL);
    H5Dclose(ds);
    ds = H5Dopen2(f, "raw_short", H5P_DEFAULT);
    expect_failure(ds, "raw_short", B2_ERR_CORRUPT, "stored raw (filter mask)", NULL);
    H5Dclose(ds);
    ds = H5Dopen2(f, "junk", H5P_DEFAULT);
    expect_failure(ds, "junk", 0, "not a Blosc2 frame of that size", NULL);
    H5Dclose(ds);
    { /* flipped bytes: an error, or exactly what H5Dread gives when it succeeds */
        ds = H5Dopen2(f, "flipped", H5P_DEFAULT);
        static int32_t a[64 * 48], b[64 * 48];
        hsize_t zero[2] = {0, 0};
        for (int k = 0; k < 6; k++) {
            int t = k % 3;
            b2_h5_reader *rd = NULL;
            b2_h5_reader_open(ds, &rd);
            b2_h5_reader_set_nthreads(rd, THREADS[t]);
            b2_h5_reader_set_par_min(rd, 0);
            b2_h5_reader_set_lookup(rd, k < 3 ? B2_H5_LOOKUP_ADDR : B2_H5_LOOKUP_READ);
            int rc = b2_h5_reader_read(rd, 0, zero, dims, a, sizeof a, NULL);
            herr_t hr;
            H5E_BEGIN_TRY { hr = H5Dread(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, b); }
            H5E_END_TRY;
            CHECK(rc < 0 || hr < 0 || memcmp(a, b, sizeof a) == 0, "flipped: differs from H5Dread");
            CHECK(rc >= 0 || strstr(b2_last_error_message(), "chunk"), "flipped: %s",
                  b2_last_error_message());
            b2_h5_reader_free(rd);
        }
        H5Dclose(ds);
    }
    /* hostile addresses and sizes through the look-up hook */
    ds = H5Dopen2(f, "good", H5P_DEFAULT);
    FILE *fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    hook_state hs = {.coff0 = 8, .eof = (haddr_t)ftell(fp)};
    fclose(fp);
    hs.mode = 1;
    expect_failure(ds, "address past the end", B2_ERR_CORRUPT, "the end of the file", &hs);
    hs.mode = 5;
    expect_failure(ds, "every address past the end", B2_ERR_CORRUPT, "the end of the file", &hs);
    hs.mode = 2;
    expect_failure(ds, "size + 1000", 0, "chunk at (8,0)", &hs);
    hs.mode = 3;
    expect_failure(ds, "size - 7", 0, "chunk at (8,0)", &hs);
    hs.mode = 4;
    expect_failure(ds, "size 1 TiB", B2_ERR_LIMIT, "memory limit", &hs);
    H5Dclose(ds);
    H5Fclose(f);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096], hpath[4096];
    snprintf(path, sizeof path, "%s/test_h5parread.h5", dir);
    snprintf(hpath, sizeof hpath, "%s/test_h5parread_hostile.h5", dir);
    CHECK(b2_h5_register() == 1, "b2_h5_register failed");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* expected HDF5 failures stay quiet */
    make_file(path);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    static const char *sets[] = {"r1", "r2", "r3", "r4", "holes_r1", "holes_r2", "holes_r3",
                                 "many_r2", "shuffle_b2_r2", "deflate_r3"};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
        random_boxes(f, sets[i], 0, 24);
    /* type conversion: float32 read as double, int32 as int64 */
    random_boxes(f, "r2", H5T_NATIVE_DOUBLE, 8);
    random_boxes(f, "holes_r2", H5T_NATIVE_INT64, 8);
    /* the dataset's own type named explicitly: no conversion, direct path */
    random_boxes(f, "r3", H5T_STD_U16LE, 8);
    H5Fclose(f);
    /* the core driver */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 20, 0);
    f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    random_boxes(f, "r2", 0, 8);
    random_boxes(f, "r3", 0, 8);
    H5Fclose(f);
    H5Pclose(fapl);
    reference_files();
    printf("%ld boxes compared with H5Dread, %ld of them over several chunks on the direct path\n",
           nboxes, nparallel_boxes);
    CHECK(nboxes >= 500, "only %ld boxes", nboxes);
    hostile(hpath);
    remove(path);
    remove(hpath);
    return b2t_summary("test_h5parread");
}
