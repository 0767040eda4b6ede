/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_h5_write_box against H5Dwrite: datasets of ranks 1-4 (edge chunks
 * included) written whole and by random boxes with 1, 2 and 4 threads, compared
 * chunk by chunk (H5Dread_chunk) with a second dataset the filter itself wrote
 * through H5Dwrite: interior chunks byte-identical with filter mask 0 (every
 * chunk a frame, incompressible ones too), edge chunks decoding to the same
 * full chunk. Then every fallback kind with its
 * reason, the data always reading back as written. Links HDF5 and the filter
 * statically (b2_h5_register), so it also runs under ASan and TSan. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "b2_frame.h"
#include "b2_h5filter.h"
#include "b2_nd.h"
#include "check.h"
#include "frame_open.h"
#include "h5params.h"
#include "h5read_int.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void *xalloc(size_t n, void *ud)
{
    (void)ud;
    return malloc(n);
}
static void xfree(void *p, void *ud)
{
    (void)ud;
    free(p);
}

/* Decode a stored frame with the filter's own decoder (cd_values of dset). */
static int decode(hid_t dset, const void *frame, size_t len, uint8_t **out, size_t *outlen)
{
    unsigned flags, cd[B2_H5_MAX_CDVALUES];
    size_t n = B2_H5_MAX_CDVALUES;
    hid_t dcpl = H5Dget_create_plist(dset);
    H5Pget_filter_by_id2(dcpl, B2_H5_FILTER_ID, &flags, &n, cd, 0, NULL, NULL);
    H5Pclose(dcpl);
    b2_h5_params p;
    char err[300];
    if (b2_h5_params_parse(n, cd, 0, &p, err, sizeof err) < 0)
        return -1;
    p.nthreads = 1;
    b2_h5_alloc al = {xalloc, xfree, NULL};
    void *o = NULL;
    size_t os = 0;
    int rc = b2_h5_payload_decode(&p, NULL, frame, len, &al, &o, &os, outlen, err, sizeof err);
    *out = o;
    return rc;
}

static int total_raw, total_big, total_edge, total_chunks, total_edge_same;

/* Compare every chunk of a (written with write_box) and b (H5Dwrite). */
static void compare_chunks(hid_t a, hid_t b, const char *what)
{
    hid_t sp = H5Dget_space(a), dcpl = H5Dget_create_plist(a);
    int rank = H5Sget_simple_extent_ndims(sp);
    hsize_t dims[8], cd[8], nc[8], ci[8] = {0};
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Pget_chunk(dcpl, rank, cd);
    H5Pclose(dcpl);
    hid_t ty = H5Dget_type(a);
    hsize_t cbytes = H5Tget_size(ty); /* a chunk's bytes before the filter */
    H5Tclose(ty);
    for (int d = 0; d < rank; d++)
        cbytes *= cd[d];
    H5Sclose(sp);
    for (int d = 0; d < rank; d++)
        nc[d] = (dims[d] + cd[d] - 1) / cd[d];
    int nchunks = 0, nraw = 0, nbig = 0, nedge = 0;
    for (;;) {
        hsize_t off[8];
        int edge = 0;
        for (int d = 0; d < rank; d++) {
            off[d] = ci[d] * cd[d];
            edge |= off[d] + cd[d] > dims[d];
        }
        hsize_t sa = 0, sb = 0;
        H5Dget_chunk_storage_size(a, off, &sa);
        H5Dget_chunk_storage_size(b, off, &sb);
        uint8_t *ba = malloc(sa + 1), *bb = malloc(sb + 1);
        uint32_t ma = 99, mb = 98;
        CHECK(sa > 0 && sb > 0 && H5Dread_chunk(a, H5P_DEFAULT, off, &ma, ba) >= 0 &&
                  H5Dread_chunk(b, H5P_DEFAULT, off, &mb, bb) >= 0,
              "%s: chunk %d unreadable", what, nchunks);
        CHECK(ma == 0 && mb == 0, "%s: chunk %d filter mask %u vs %u (a frame: 0)", what,
              nchunks, ma, mb);
        if (!edge || ma) {
            CHECK(sa == sb && memcmp(ba, bb, sa) == 0, "%s: chunk %d (%s) bytes differ (%llu vs %llu)",
                  what, nchunks, edge ? "edge" : "interior", (unsigned long long)sa,
                  (unsigned long long)sb);
        } else {
            uint8_t *da = NULL, *db = NULL;
            size_t la = 0, lb = 0;
            int ra = decode(a, ba, sa, &da, &la), rb = decode(b, bb, sb, &db, &lb);
            CHECK(ra == 0 && rb == 0 && la == lb && memcmp(da, db, la) == 0,
                  "%s: edge chunk %d decodes differently", what, nchunks);
            free(da);
            free(db);
            nedge++;
            total_edge_same += sa == sb && memcmp(ba, bb, sa) == 0;
        }
        nraw += ma != 0;
        nbig += sa >= cbytes; /* incompressible, stored as a frame all the same */
        free(ba);
        free(bb);
        nchunks++;
        int d = rank - 1;
        while (d >= 0 && ++ci[d] == nc[d])
            ci[d--] = 0;
        if (d < 0)
            break;
    }
    total_raw += nraw;
    total_big += nbig;
    total_edge += nedge;
    total_chunks += nchunks;
}

static int32_t fill_value; /* non-zero: datasets made with this fill value */
static H5D_fill_time_t fill_time = H5D_FILL_TIME_IFSET;

static hid_t make(hid_t file, const char *name, int rank, const hsize_t *dims,
                  const hsize_t *chunk, unsigned flags, const unsigned *cd, size_t ncd)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (fill_value)
        H5Pset_fill_value(dcpl, H5T_NATIVE_INT32, &fill_value);
    H5Pset_fill_time(dcpl, fill_time);
    H5Pset_filter(dcpl, B2_H5_FILTER_ID, flags, ncd, cd);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(file, name, H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(sp);
    H5Pclose(dcpl);
    return ds;
}

static size_t nelems(int rank, const hsize_t *dims)
{
    size_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= dims[d];
    return n;
}

/* Data with compressible ramps and, in some places, noise (incompressible chunks). */
static int32_t *make_data(size_t n)
{
    int32_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (i / 700) % 3 == 1 ? (int32_t)rnd() : (int32_t)(i / 3);
    return v;
}

static void read_all(hid_t ds, int32_t *out)
{
    CHECK(H5Dread(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0, "H5Dread");
}

/* Copy the box [start, start+count) out of the full array. */
static void extract(int rank, const hsize_t *dims, const int32_t *all, const hsize_t *start,
                    const hsize_t *count, int32_t *box)
{
    size_t n = nelems(rank, count);
    for (size_t k = 0; k < n; k++) {
        size_t rem = k, off = 0, stride = 1;
        for (int d = rank - 1; d >= 0; d--) {
            size_t i = rem % count[d];
            rem /= count[d];
            off += (start[d] + i) * stride;
            stride *= dims[d];
        }
        box[k] = all[off];
    }
}

static void case_rank(hid_t file, int rank, const hsize_t *dims, const hsize_t *chunk,
                      unsigned flags, const unsigned *cd, size_t ncd)
{
    char name[64];
    static int serial;
    size_t n = nelems(rank, dims);
    int32_t *data = make_data(n), *back = malloc(n * sizeof *back);
    snprintf(name, sizeof name, "ref%d", serial);
    hid_t ref = make(file, name, rank, dims, chunk, flags, cd, ncd);
    CHECK(H5Dwrite(ref, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, "ref write");
    H5Fflush(file, H5F_SCOPE_LOCAL);
    int threads[3] = {1, 2, 4};
    for (int t = 0; t < 3; t++) {
        snprintf(name, sizeof name, "box%d_t%d", serial, threads[t]);
        hid_t ds = make(file, name, rank, dims, chunk, flags, cd, ncd);
        hsize_t start[8] = {0};
        b2_h5_write_options o = {.nthreads = threads[t]};
        b2_h5_write_report rep;
        int rc = b2_h5_write_box(ds, H5T_NATIVE_INT32, start, dims, data, n * sizeof *data, &o, &rep);
        CHECK(rc == 0 && rep.path == B2_H5_WRITE_DIRECT && rep.chunks_h5dwrite == 0,
              "rank %d t%d: write_box rc %d path %d (%s)", rank, threads[t], rc, rep.path,
              rep.reason);
        memset(back, 0, n * sizeof *back);
        read_all(ds, back);
        CHECK(memcmp(back, data, n * sizeof *data) == 0, "rank %d t%d: data differ", rank,
              threads[t]);
        snprintf(name, sizeof name, "rank %d, %d threads", rank, threads[t]);
        compare_chunks(ds, ref, name);
        H5Dclose(ds);
    }
    /* random boxes, chunk-aligned or not, over a dataset written the plain way */
    snprintf(name, sizeof name, "rnd%d", serial);
    hid_t ds = make(file, name, rank, dims, chunk, flags, cd, ncd);
    int32_t *cur = calloc(n, sizeof *cur);
    int32_t *box = malloc(n * sizeof *box);
    if (fill_value || fill_time != H5D_FILL_TIME_IFSET) /* what unwritten parts then read is HDF5's business */
        CHECK(H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, cur) >= 0, "zeros");
    for (int it = 0; it < 12; it++) {
        hsize_t start[8], count[8];
        int aligned = it % 2 == 0;
        for (int d = 0; d < rank; d++) {
            hsize_t nc = (dims[d] + chunk[d] - 1) / chunk[d];
            if (aligned) {
                hsize_t c0 = rnd() % nc, c1 = c0 + rnd() % (nc - c0);
                start[d] = c0 * chunk[d];
                hsize_t e = (c1 + 1) * chunk[d];
                count[d] = (e > dims[d] ? dims[d] : e) - start[d];
            } else {
                start[d] = rnd() % dims[d];
                count[d] = 1 + rnd() % (dims[d] - start[d]);
            }
        }
        /* new values for the box */
        size_t bn = nelems(rank, count);
        for (size_t k = 0; k < bn; k++)
            box[k] = (int32_t)(it * 1000003 + (int)k / 5);
        b2_h5_write_options o = {.nthreads = 1 + it % 4};
        b2_h5_write_report rep;
        int rc = b2_h5_write_box(ds, 0, start, count, box, bn * sizeof *box, &o, &rep);
        CHECK(rc == 0, "rank %d box %d: rc %d", rank, it, rc);
        CHECK(aligned ? rep.path == B2_H5_WRITE_DIRECT
                      : rep.chunks_h5dwrite == 0 || strstr(rep.reason, "partly") != NULL,
              "rank %d box %d: path %d reason %s", rank, it, rep.path, rep.reason);
        /* expected: cur with the box pasted in */
        for (size_t k = 0; k < bn; k++) {
            size_t rem = k, off = 0, stride = 1;
            for (int d = rank - 1; d >= 0; d--) {
                size_t i = rem % count[d];
                rem /= count[d];
                off += (start[d] + i) * stride;
                stride *= dims[d];
            }
            cur[off] = box[k];
        }
        read_all(ds, back);
        CHECK(memcmp(back, cur, n * sizeof *cur) == 0, "rank %d box %d: data differ", rank, it);
        (void)extract;
    }
    H5Dclose(ds);
    H5Dclose(ref);
    free(cur);
    free(box);
    free(data);
    free(back);
    serial++;
}


static unsigned pack2(unsigned f0, unsigned m0, unsigned f1, unsigned m1)
{
    return f0 | m0 << 8 | f1 << 16 | m1 << 24;
}

/* The stored frame of chunk (0,..) of ds: its filters and b2nd block shape. */
static void frame_info(hid_t ds, int rank, uint8_t *filters, int32_t *bshape, int32_t *blocksize)
{
    hsize_t off[32] = {0}, sz = 0;
    uint32_t mask = 0;
    H5Dget_chunk_storage_size(ds, off, &sz);
    uint8_t *raw = malloc(sz + 1);
    memset(filters, 0xff, 6);
    if (H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, raw) >= 0 && mask == 0) {
        b2_schunk *sc = NULL;
        if (t_open_buffer(raw, sz, 0, &sc) >= 0) {
            memcpy(filters, b2_schunk_cparams(sc)->filters, 6);
            *blocksize = b2_schunk_cparams(sc)->blocksize;
            b2_schunk_free(sc);
        }
        b2_nd_array *a = NULL;
        if (bshape && b2_nd_open_buffer(raw, sz, 0, &a) >= 0) {
            memcpy(bshape, b2_nd_blockshape(a), (size_t)rank * sizeof *bshape);
            b2_nd_free(a);
        }
    }
    free(raw);
}

/* The extra values in cd_values (ranks 2..16) and the writer's options (any rank). */
static void ext_params(hid_t file)
{
    hsize_t dims[2] = {130, 77}, chunk[2] = {32, 20};
    size_t n = 130 * 77;
    int32_t *data = make_data(n), *back = malloc(n * sizeof *back);
    /* zstd 5, shuffle then bytedelta (meta 4), block 8 x 10, use_dict */
    unsigned cd[16] = {0, 0, 0, 0, 5, 1, 5, B2_H5_EXT_MARKER, B2_H5_EXT_VERSION, 6,
                       pack2(0, 0, 0, 0), pack2(0, 0, 0, 0), pack2(1, 0, 35, 4), 1, 8, 10};
    hid_t ref = make(file, "ext_ref", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 16);
    CHECK(ref >= 0, "dataset with extra values not created");
    unsigned fl, v[64];
    size_t nv = 64;
    hid_t dcpl = H5Dget_create_plist(ref);
    H5Pget_filter_by_id2(dcpl, B2_H5_FILTER_ID, &fl, &nv, v, 0, NULL, NULL);
    H5Pclose(dcpl);
    CHECK(nv == 19 && v[7] == 2 && v[8] == 32 && v[9] == 20 && v[10] == B2_H5_EXT_MARKER &&
              v[11] == 1 && v[12] == 6 && v[15] == cd[12] && v[16] == 1 && v[17] == 8 &&
              v[18] == 10,
          "stored cd_values with extra values (n %zu)", nv);
    CHECK(H5Dwrite(ref, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, "ext write");
    read_all(ref, back);
    CHECK(memcmp(back, data, n * 4) == 0, "ext: data");
    uint8_t f[6];
    int32_t bs[2] = {0, 0}, bsize = 0;
    frame_info(ref, 2, f, bs, &bsize);
    CHECK(f[4] == 1 && f[5] == 35 && bs[0] == 8 && bs[1] == 10,
          "ext: frame filters %d %d, blockshape %d x %d", f[4], f[5], bs[0], bs[1]);
    /* the writer stores the same bytes from the same cd_values */
    hid_t ds = make(file, "ext_box", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 16);
    hsize_t st[2] = {0, 0};
    b2_h5_write_options o = {.nthreads = 2};
    b2_h5_write_report rep;
    CHECK(b2_h5_write_box(ds, 0, st, dims, data, n * 4, &o, &rep) == 0 &&
              rep.path == B2_H5_WRITE_DIRECT, "ext: write_box (%s)", rep.reason);
    compare_chunks(ds, ref, "extra values");
    H5Dclose(ds);
    H5Dclose(ref);
    /* plain cd_values with the same parameters through the writer's options */
    unsigned cd7[7] = {0, 0, 0, 0, 5, 1, 5};
    ds = make(file, "ext_opts2", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd7, 7);
    b2_h5_write_options po = {.nthreads = 2, .set_params = 1, .filters = {0, 0, 0, 0, 1, 35},
                              .filters_meta = {0, 0, 0, 0, 0, 4}, .use_dict = 1,
                              .blockshape = {8, 10}};
    CHECK(b2_h5_write_box(ds, 0, st, dims, data, n * 4, &po, &rep) == 0, "opts rank 2");
    hid_t ext_ref = H5Dopen2(file, "ext_ref", H5P_DEFAULT);
    compare_chunks(ds, ext_ref, "options = extra values");
    H5Dclose(ext_ref);
    /* options with a partial box: refused, never silently dropped */
    hsize_t part[2] = {40, 77};
    CHECK(b2_h5_write_box(ds, 0, st, part, data, n * 4, &po, &rep) == B2_ERR_UNSUPPORTED &&
              strstr(rep.reason, "partly"), "opts + partial box: %s", rep.reason);
    /* the error names the chunk, in dataset coordinates, as read errors do */
    CHECK(strstr(b2_h5_last_error_message(), "chunk at (") &&
              strstr(b2_h5_last_error_message(), ") is only partly in the box"),
          "opts + partial box message: %s", b2_h5_last_error_message());
    H5Dclose(ds);

    /* rank 1: set_local stores them with the one-dimensional layout (revision 2,
     * rank 1, the chunk length), and the chunks become 1-D b2nd frames */
    hsize_t d1 = 5000, c1 = 1024;
    hid_t sp1 = H5Screate_simple(1, &d1, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &c1);
    unsigned cd1[14] = {0, 0, 0, 0, 5, 1, 5, B2_H5_EXT_MARKER, 1, 4, 0, 0, pack2(1, 0, 35, 4), 0};
    H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 14, cd1);
    ds = H5Dcreate2(file, "ext_rank1", H5T_STD_I32LE, sp1, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    CHECK(ds >= 0, "rank-1 dataset with extra values not created");
    if (ds >= 0) {
        unsigned got[32], want[16] = {2, 0, 4, 4096, 5, 1, 5, 1, 1024, B2_H5_EXT_MARKER, 1, 4,
                                      0, 0, pack2(1, 0, 35, 4), 0};
        size_t ng = 32;
        unsigned fl = 0;
        hid_t pl = H5Dget_create_plist(ds);
        H5Pget_filter_by_id2(pl, B2_H5_FILTER_ID, &fl, &ng, got, 0, NULL, NULL);
        H5Pclose(pl);
        CHECK(ng == 16 && memcmp(got, want, sizeof want) == 0,
              "rank-1 extra values stored as %zu values (%u %u .. %u %u)", ng, got[0], got[7],
              got[8], got[9]);
        CHECK(H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
              "H5Dwrite rank-1 extra values");
        read_all(ds, back);
        CHECK(memcmp(back, data, 5000 * 4) == 0, "rank-1 extra values: data");
        int32_t bs1[1] = {0};
        frame_info(ds, 1, f, bs1, &bsize);
        CHECK(f[4] == 1 && f[5] == 35 && bs1[0] > 0, "rank-1 extra values: filters %d %d, "
              "1-D b2nd blocks of %d", f[4], f[5], (int)bs1[0]);
        H5Dclose(ds);
    }
    ds = make(file, "opts_rank1", 1, &d1, &c1, H5Z_FLAG_OPTIONAL, cd7, 7);
    b2_h5_write_options o1 = {.nthreads = 2, .set_params = 1, .filters = {0, 0, 0, 0, 1, 35},
                              .use_dict = 1, .blockshape = {256}};
    hsize_t s1 = 0;
    CHECK(b2_h5_write_box(ds, 0, &s1, &d1, data, 5000 * 4, &o1, &rep) == 0 &&
              rep.path == B2_H5_WRITE_DIRECT, "opts rank 1: %s", rep.reason);
    read_all(ds, back);
    CHECK(memcmp(back, data, 5000 * 4) == 0, "opts rank 1: data");
    frame_info(ds, 1, f, NULL, &bsize);
    CHECK(f[4] == 1 && f[5] == 35 && bsize == 1024, "opts rank 1: filters %d %d blocksize %d",
          f[4], f[5], (int)bsize);
    H5Dclose(ds);
    H5Sclose(sp1);

    /* rank 17: above what cd_values may carry; the options still work */
    hsize_t d17[17], c17[17];
    for (int i = 0; i < 17; i++)
        d17[i] = i < 15 ? 1 : i == 15 ? 50 : 60, c17[i] = i < 15 ? 1 : i == 15 ? 16 : 32;
    hid_t sp17 = H5Screate_simple(17, d17, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 17, c17);
    H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 7, cd7);
    ds = H5Dcreate2(file, "opts_rank17", H5T_STD_I32LE, sp17, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    hsize_t s17[17] = {0};
    b2_h5_write_options o17 = {.nthreads = 4, .set_params = 1, .filters = {0, 0, 0, 0, 3, 1}};
    CHECK(b2_h5_write_box(ds, 0, s17, d17, data, 3000 * 4, &o17, &rep) == 0 &&
              rep.path == B2_H5_WRITE_DIRECT, "opts rank 17: %s", rep.reason);
    read_all(ds, back);
    CHECK(memcmp(back, data, 3000 * 4) == 0, "opts rank 17: data");
    frame_info(ds, 17, f, NULL, &bsize);
    CHECK(f[4] == 3 && f[5] == 1, "opts rank 17: filters %d %d", f[4], f[5]);
    for (int i = 0; i < 17; i++) /* a plain frame of rank 17 has no block shape */
        o17.blockshape[i] = (int32_t)c17[i];
    CHECK(b2_h5_write_box(ds, 0, s17, d17, data, 3000 * 4, &o17, &rep) == B2_ERR_UNSUPPORTED,
          "rank-17 block shape accepted");
    H5Dclose(ds);
    H5Sclose(sp17);
    free(data);
    free(back);
}

/* The parser: extra values that are short, lie or are unknown fail on writes
 * with a message, and are ignored on reads (frames say how they were made). */
static void ext_parse(void)
{
    unsigned good[19] = {1, 0, 4, 2560, 5, 1, 5, 2, 32, 20, B2_H5_EXT_MARKER, 1, 6,
                         0, 0, pack2(1, 0, 35, 4), 1, 8, 10};
    b2_h5_params p;
    char err[300];
    CHECK(b2_h5_params_parse(19, good, 1, &p, err, sizeof err) == 0 && p.ext && p.use_dict &&
              p.filters[5] == 35 && p.filters_meta[5] == 4 && p.blockshape[1] == 10,
          "good extra values: %s", err);
    struct { size_t n; int slot; unsigned val; const char *needle; } bad[] = {
        {19, 11, 2, "version 2"},          /* unknown version */
        {11, -1, 0, "cut short"},          /* the marker alone */
        {12, -1, 0, "cut short"},          /* marker and version */
        {19, 12, 5, "5 extra values"},     /* count neither 4 nor 4 + rank */
        {19, 12, 40, "announce"},          /* count past the end */
        {18, -1, 0, "announce"},           /* one value short */
        {19, 16, 4, "flags"},              /* unknown flag (bits 0-1 are known) */
        {19, 16, 0x80000002u, "flags"},    /* checksums with an unknown flag */
        {19, 17, 0, "block dimension 0"},  /* block dim 0 */
        {19, 18, 21, "block dimension 1"}, /* block dim above the chunk's */
        {19, 13, 99, "unknown Blosc2 filter 99"},
        {19, 13, 34, "unknown Blosc2 filter 34"}, /* bytedelta_buggy is decode only */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned v[19];
        memcpy(v, good, sizeof v);
        if (bad[i].slot >= 0)
            v[bad[i].slot] = bad[i].val;
        err[0] = '\0';
        int rc = b2_h5_params_parse(bad[i].n, v, 1, &p, err, sizeof err);
        CHECK(rc < 0 && strstr(err, bad[i].needle), "bad extra values %zu: rc %d \"%s\"", i, rc,
              err);
        CHECK(b2_h5_params_parse(bad[i].n, v, 0, &p, err, sizeof err) == 0 && !p.ext,
              "bad extra values %zu refused on reads", i);
    }
    /* flags bit 1 (checksums), alone and with use_dict */
    unsigned v2[19];
    memcpy(v2, good, sizeof v2);
    v2[16] = B2_H5_EXT_CHECKSUMS;
    CHECK(b2_h5_params_parse(19, v2, 1, &p, err, sizeof err) == 0 && p.ext && p.checksums &&
              !p.use_dict, "flags 2: %s", err);
    v2[16] = B2_H5_EXT_CHECKSUMS | B2_H5_EXT_USE_DICT;
    CHECK(b2_h5_params_parse(19, v2, 1, &p, err, sizeof err) == 0 && p.checksums && p.use_dict,
          "flags 3: %s", err);
    CHECK(b2_h5_params_parse(19, good, 1, &p, err, sizeof err) == 0 && !p.checksums,
          "flags 1 asks no checksums");
    /* values after the dims without the marker: ignored, as before */
    unsigned other[12] = {1, 0, 4, 2560, 5, 1, 5, 2, 32, 20, 7, 7};
    CHECK(b2_h5_params_parse(12, other, 1, &p, err, sizeof err) == 0 && !p.ext,
          "values without the marker");
}

/* Both rank-1 layouts parse (doc/format/hdf5-filter.md §2a): the classic seven
 * values (no rank) and HDF5-Blosc2 2.0's [2, .., 1, chunk length], which may
 * carry extra values; rank 0 and a missing length fail. */
static void rank1_parse(void)
{
    b2_h5_params p;
    char err[300];
    unsigned classic[7] = {1, 0, 4, 2400, 5, 1, 5};
    unsigned one_d[9] = {2, 0, 4, 2400, 5, 1, 5, 1, 600};
    for (int c = 0; c < 2; c++) {
        CHECK(b2_h5_params_parse(7, classic, c, &p, err, sizeof err) == 0 && p.rank == 0,
              "classic rank-1 values (compress %d): %s", c, err);
        CHECK(b2_h5_params_parse(9, one_d, c, &p, err, sizeof err) == 0 && p.rank == 1 &&
                  p.dims[0] == 600 && p.typesize == 4 && p.codec == 5 && !p.ext,
              "one-dimensional values (compress %d): %s", c, err);
    }
    /* count 5: filter words, flags (checksums) and a block length of 100 */
    unsigned ext1[17] = {2, 0, 4, 2400, 5, 1, 5, 1, 600, B2_H5_EXT_MARKER, 1, 5,
                         0, 0, pack2(0, 0, 1, 0), B2_H5_EXT_CHECKSUMS, 100};
    CHECK(b2_h5_params_parse(17, ext1, 1, &p, err, sizeof err) == 0 && p.ext && p.checksums &&
              p.rank == 1 && p.blockshape[0] == 100 && p.filters[5] == 1,
          "rank-1 extra values: %s", err);
    ext1[16] = 601;
    CHECK(b2_h5_params_parse(17, ext1, 1, &p, err, sizeof err) < 0 &&
              strstr(err, "block dimension 0"), "rank-1 block longer than the chunk: %s", err);
    unsigned zero[9] = {2, 0, 4, 2400, 5, 1, 5, 0, 600};
    CHECK(b2_h5_params_parse(9, zero, 0, &p, err, sizeof err) < 0 && strstr(err, "rank 0"),
          "rank 0 refused: %s", err);
    CHECK(b2_h5_params_parse(8, one_d, 0, &p, err, sizeof err) < 0 && strstr(err, "cannot hold"),
          "rank 1 without its length refused: %s", err);
    one_d[0] = 7; /* no reader checks the revision */
    CHECK(b2_h5_params_parse(9, one_d, 0, &p, err, sizeof err) == 0 && p.rank == 1,
          "revision 7 read: %s", err);
}

/* Chunk (0,..) of ds: 1 if its frame holds checksums that match, 0 if it holds
 * none, -1 otherwise. */
static int chunk_sums(hid_t ds)
{
    hsize_t off[32] = {0}, sz = 0;
    uint32_t mask = 0;
    H5Dget_chunk_storage_size(ds, off, &sz);
    uint8_t *raw = malloc(sz + 1);
    b2_schunk *sc = NULL;
    int res = -1;
    if (sz && H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, raw) >= 0 && mask == 0 &&
        t_open_buffer(raw, sz, 0, &sc) >= 0) {
        int st = b2_schunk_checksum_state(sc, 0);
        res = !b2_schunk_has_checksums(sc) ? 0 : st == B2_CHECKSUM_OK ? 1 : -1;
        b2_schunk_free(sc);
    }
    free(raw);
    return res;
}

/* One stored byte of chunk (0,0) of ds (a frame holding checksums) flipped:
 * H5Dread, the serial and the parallel direct reads all fail, the last two
 * with B2_ERR_CHECKSUM and a message naming the chunk. */
static void damaged_reads(hid_t ds, size_t n)
{
    hsize_t off[2] = {0, 0}, sz = 0, dims[2] = {130, 77}, start[2] = {0, 0};
    uint32_t mask = 0;
    H5Dget_chunk_storage_size(ds, off, &sz);
    uint8_t *raw = malloc(sz + 1);
    int32_t *back = malloc(n * sizeof *back);
    CHECK(sz > 80 && H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, raw) >= 0, "damage: read chunk");
    uint32_t hl = (uint32_t)raw[11] << 24 | (uint32_t)raw[12] << 16 | (uint32_t)raw[13] << 8 | raw[14];
    uint32_t cb = hl + 16 <= sz ? (uint32_t)raw[hl + 12] | (uint32_t)raw[hl + 13] << 8 |
                                  (uint32_t)raw[hl + 14] << 16 | (uint32_t)raw[hl + 15] << 24 : 0;
    CHECK(cb > 32 && hl + cb <= sz, "damage: chunk at %u, %u bytes of %llu", hl, cb,
          (unsigned long long)sz);
    if (cb > 32 && hl + cb <= sz) {
        raw[hl + cb - 1] ^= 0x10; /* the last byte of the chunk's data */
        CHECK(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, sz, raw) >= 0, "damage: write chunk");
        H5Fflush(ds, H5F_SCOPE_LOCAL);
        herr_t hr;
        H5E_BEGIN_TRY {
            hr = H5Dread(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
        } H5E_END_TRY;
        CHECK(hr < 0, "damage: H5Dread succeeded");
        int rc = b2_h5_read_box(ds, 0, start, dims, back, n * sizeof *back, NULL);
        const char *m = b2_last_error_message();
        CHECK(rc == B2_ERR_CHECKSUM && strstr(m, "checksum mismatch") && strstr(m, "chunk (0,0)"),
              "damage: serial read rc %d \"%s\"", rc, m);
        b2_h5_reader *rd = NULL;
        CHECK(b2_h5_reader_open(ds, &rd) == 0, "damage: reader");
        b2_h5_reader_set_nthreads(rd, 2);
        b2_h5_reader_set_par_min(rd, 0);
        b2_h5_read_report rep;
        rc = b2_h5_reader_read(rd, 0, start, dims, back, n * sizeof *back, &rep);
        m = b2_last_error_message();
        CHECK(rc == B2_ERR_CHECKSUM && strstr(m, "checksum mismatch") && strstr(m, "(0,0)"),
              "damage: parallel read rc %d \"%s\"", rc, m);
        b2_h5_reader_free(rd);
    }
    free(raw);
    free(back);
}

/* Flags bit 1 (checksums): the filter and the writer store the same frames,
 * each holding its chunk's checksum; the writer's options do it for rank 1. */
static void checksum_params(hid_t file)
{
    hsize_t dims[2] = {130, 77}, chunk[2] = {32, 20};
    size_t n = 130 * 77;
    int32_t *data = make_data(n), *back = malloc(n * sizeof *back);
    unsigned cd[14] = {0, 0, 0, 0, 5, 1, 1, B2_H5_EXT_MARKER, B2_H5_EXT_VERSION, 4,
                       0, 0, pack2(0, 0, 1, 0), B2_H5_EXT_CHECKSUMS};
    hid_t ref = make(file, "sums_ref", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 14);
    CHECK(ref >= 0 && H5Dwrite(ref, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
          "checksums: H5Dwrite");
    read_all(ref, back);
    CHECK(memcmp(back, data, n * 4) == 0, "checksums: data");
    CHECK(chunk_sums(ref) == 1, "checksums: the filter's frame holds none (%d)", chunk_sums(ref));
    hid_t ds = make(file, "sums_box", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 14);
    hsize_t st[2] = {0, 0};
    b2_h5_write_options o = {.nthreads = 2};
    b2_h5_write_report rep;
    CHECK(b2_h5_write_box(ds, 0, st, dims, data, n * 4, &o, &rep) == 0 &&
              rep.path == B2_H5_WRITE_DIRECT, "checksums: write_box (%s)", rep.reason);
    compare_chunks(ds, ref, "checksums");
    H5Dclose(ds);
    damaged_reads(ref, n);
    H5Dclose(ref);
    /* rank 1 through the options; the same cd_values without them store none */
    hsize_t d1 = 5000, c1 = 1024, s1 = 0;
    unsigned cd7[7] = {0, 0, 0, 0, 5, 1, 5};
    ds = make(file, "sums_rank1", 1, &d1, &c1, H5Z_FLAG_OPTIONAL, cd7, 7);
    b2_h5_write_options o1 = {.nthreads = 2, .set_params = 1, .filters = {0, 0, 0, 0, 0, 1},
                              .checksums = 1};
    CHECK(b2_h5_write_box(ds, 0, &s1, &d1, data, 5000 * 4, &o1, &rep) == 0 &&
              rep.path == B2_H5_WRITE_DIRECT, "checksums rank 1: %s", rep.reason);
    read_all(ds, back);
    CHECK(memcmp(back, data, 5000 * 4) == 0 && chunk_sums(ds) == 1, "checksums rank 1");
    o1.checksums = 0;
    CHECK(b2_h5_write_box(ds, 0, &s1, &d1, data, 5000 * 4, &o1, &rep) == 0 && chunk_sums(ds) == 0,
          "rank 1 without checksums: %d", chunk_sums(ds));
    H5Dclose(ds);
    free(data);
    free(back);
}

static void expect_fallback(hid_t ds, hid_t mem_type, const void *buf, size_t bytes,
                            const char *needle, const char *what)
{
    hid_t sp = H5Dget_space(ds);
    hsize_t dims[8], start[8] = {0};
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    b2_h5_write_report rep;
    b2_h5_write_options o = {.nthreads = 2};
    int rc = b2_h5_write_box(ds, mem_type, start, dims, buf, bytes, &o, &rep);
    CHECK(rc == 0 && rep.path == B2_H5_WRITE_H5DWRITE && strstr(rep.reason, needle),
          "%s: rc %d path %d reason \"%s\"", what, rc, rep.path, rep.reason);
}

static void fallbacks(hid_t file, const char *corepath)
{
    hsize_t dims[2] = {40, 30}, chunk[2] = {16, 16};
    size_t n = 40 * 30;
    int32_t *data = make_data(n), *back = malloc(n * sizeof *back);
    unsigned cd[7] = {0, 0, 0, 0, 5, 1, 1};
    hid_t sp = H5Screate_simple(2, dims, NULL);

    /* other filters in the pipeline */
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 7, cd);
    H5Pset_fletcher32(dcpl);
    hid_t ds = H5Dcreate2(file, "fb_f32", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    expect_fallback(ds, H5T_NATIVE_INT32, data, n * 4, "not Blosc2 alone", "fletcher32");
    read_all(ds, back);
    CHECK(memcmp(back, data, n * 4) == 0, "fletcher32: data");
    H5Dclose(ds);
    H5Pclose(dcpl);

    /* no filter 32026 */
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_deflate(dcpl, 1);
    ds = H5Dcreate2(file, "fb_gzip", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    expect_fallback(ds, H5T_NATIVE_INT32, data, n * 4, "no filter 32026", "gzip");
    read_all(ds, back);
    CHECK(memcmp(back, data, n * 4) == 0, "gzip: data");
    H5Dclose(ds);
    H5Pclose(dcpl);

    /* not chunked */
    ds = H5Dcreate2(file, "fb_contig", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    expect_fallback(ds, H5T_NATIVE_INT32, data, n * 4, "not chunked", "contiguous");
    read_all(ds, back);
    CHECK(memcmp(back, data, n * 4) == 0, "contiguous: data");
    H5Dclose(ds);

    /* type conversion: doubles into an int32 dataset */
    ds = make(file, "fb_conv", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 7);
    double *dbl = malloc(n * sizeof *dbl);
    for (size_t i = 0; i < n; i++)
        dbl[i] = (double)(data[i] % 100000);
    expect_fallback(ds, H5T_NATIVE_DOUBLE, dbl, n * 8, "conversion", "conversion");
    read_all(ds, back);
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= back[i] == data[i] % 100000;
    CHECK(ok, "conversion: data");
    free(dbl);
    H5Dclose(ds);

    /* cd_values the filter cannot compress with (rank 1, no clevel/codec) */
    hsize_t d1 = 1000, c1 = 100;
    hid_t sp1 = H5Screate_simple(1, &d1, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &c1);
    H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 0, NULL);
    ds = H5Dcreate2(file, "fb_cd", H5T_STD_I32LE, sp1, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    expect_fallback(ds, H5T_NATIVE_INT32, data, 1000 * 4, "cd_values", "bad cd_values");
    read_all(ds, back);
    CHECK(memcmp(back, data, 1000 * 4) == 0, "bad cd_values: data");
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(sp1);

    /* a variable-length type (strings) */
    {
        hsize_t dv = 10, cv = 4;
        hid_t spv = H5Screate_simple(1, &dv, NULL), st = H5Tcopy(H5T_C_S1);
        H5Tset_size(st, H5T_VARIABLE);
        hid_t dcv = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcv, 1, &cv);
        H5Pset_filter(dcv, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 7, cd);
        ds = H5Dcreate2(file, "fb_vlen", st, spv, H5P_DEFAULT, dcv, H5P_DEFAULT);
        const char *strs[10] = {"a", "bb", "ccc", "dddd", "e", "ff", "ggg", "h", "ii", "j"};
        char *got[10] = {0};
        expect_fallback(ds, st, strs, sizeof strs, "variable-length", "vlen strings");
        ok = H5Dread(ds, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0;
        for (int i = 0; ok && i < 10; i++)
            ok = got[i] && strcmp(got[i], strs[i]) == 0;
        CHECK(ok, "vlen strings: data");
        H5Dvlen_reclaim(st, spv, H5P_DEFAULT, got);
        H5Dclose(ds);
        H5Pclose(dcv);
        H5Tclose(st);
        H5Sclose(spv);
    }

    /* a driver other than sec2 (core) */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 20, 0);
    hid_t cf = H5Fcreate(corepath, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    ds = make(cf, "fb_core", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 7);
    expect_fallback(ds, H5T_NATIVE_INT32, data, n * 4, "not sec2", "core driver");
    read_all(ds, back);
    CHECK(memcmp(back, data, n * 4) == 0, "core driver: data");
    H5Dclose(ds);
    H5Fclose(cf);
    H5Pclose(fapl);

    /* a partial box: mixed, with the reason */
    ds = make(file, "fb_partial", 2, dims, chunk, H5Z_FLAG_OPTIONAL, cd, 7);
    hsize_t st[2] = {0, 0}, cnt[2] = {40, 20}; /* columns 16..19 are partial */
    int32_t *box = malloc(40 * 20 * 4);
    for (int i = 0; i < 40 * 20; i++)
        box[i] = i;
    b2_h5_write_report rep;
    int rc = b2_h5_write_box(ds, 0, st, cnt, box, 40 * 20 * 4, NULL, &rep);
    CHECK(rc == 0 && rep.path == B2_H5_WRITE_MIXED && rep.chunks_direct == 3 &&
              rep.chunks_h5dwrite == 3 && strstr(rep.reason, "partly"),
          "partial: rc %d path %d direct %lld h5dwrite %lld reason %s", rc, rep.path,
          (long long)rep.chunks_direct, (long long)rep.chunks_h5dwrite, rep.reason);
    read_all(ds, back);
    ok = 1;
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 30; j++)
            ok &= back[i * 30 + j] == (j < 20 ? i * 20 + j : 0);
    CHECK(ok, "partial: data");
    /* bad arguments */
    hsize_t big[2] = {41, 30};
    CHECK(b2_h5_write_box(ds, 0, st, big, box, 41 * 30 * 4, NULL, &rep) == B2_ERR_RANGE,
          "box outside the dataset accepted");
    CHECK(b2_h5_write_box(ds, 0, st, cnt, box, 10, NULL, &rep) == B2_ERR_DST_TOO_SMALL,
          "short buffer accepted");
    free(box);
    H5Dclose(ds);
    H5Sclose(sp);
    free(data);
    free(back);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "test_h5write.h5";
    char corepath[1024];
    snprintf(corepath, sizeof corepath, "%s.core", path);
    CHECK(b2_h5_register() == 1, "b2_h5_register failed");
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    unsigned cd7[7] = {0, 0, 0, 0, 5, 1, 1};
    unsigned zstd[7] = {0, 0, 0, 0, 3, 2, 5};
    {
        hsize_t d[1] = {10000}, c[1] = {1536};
        case_rank(file, 1, d, c, H5Z_FLAG_OPTIONAL, cd7, 7);
    }
    {
        hsize_t d[2] = {130, 77}, c[2] = {32, 20};
        case_rank(file, 2, d, c, H5Z_FLAG_OPTIONAL, cd7, 7);
        case_rank(file, 2, d, c, H5Z_FLAG_MANDATORY, zstd, 7);
    }
    {
        hsize_t d[3] = {21, 33, 40}, c[3] = {8, 10, 16};
        case_rank(file, 3, d, c, H5Z_FLAG_OPTIONAL, cd7, 7);
        /* edge chunks padded with a fill value, and with none (fill time never) */
        fill_value = -7;
        case_rank(file, 3, d, c, H5Z_FLAG_OPTIONAL, cd7, 7);
        fill_value = 0;
        fill_time = H5D_FILL_TIME_NEVER;
        case_rank(file, 3, d, c, H5Z_FLAG_OPTIONAL, cd7, 7);
        fill_time = H5D_FILL_TIME_IFSET;
        /* checksums (extra values' flags bit 1), edge chunks and random boxes included */
        unsigned sums[14] = {0, 0, 0, 0, 5, 1, 1, B2_H5_EXT_MARKER, B2_H5_EXT_VERSION, 4,
                             0, 0, 1u << 16, B2_H5_EXT_CHECKSUMS};
        case_rank(file, 3, d, c, H5Z_FLAG_OPTIONAL, sums, 14);
    }
    {
        hsize_t d[4] = {7, 9, 11, 13}, c[4] = {3, 4, 5, 6};
        unsigned blk[7] = {0, 256, 0, 0, 5, 1, 1};
        case_rank(file, 4, d, c, H5Z_FLAG_OPTIONAL, blk, 7);
    }
    printf("compared %d chunks: %d stored raw (filter mask 1), %d incompressible ones stored "
           "as frames, %d edge chunks decoded (%d of them also byte-identical)\n", total_chunks,
           total_raw, total_big, total_edge, total_edge_same);
    CHECK(total_raw == 0 && total_big > 0 && total_edge > 0,
          "raw chunks, or no incompressible or no edge chunks compared");
    fallbacks(file, corepath);
    ext_params(file);
    ext_parse();
    rank1_parse();
    checksum_params(file);
    H5Fclose(file);
    remove(corepath);
    return b2t_summary("test_h5write");
}
