/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz target: b2_h5_reader (serial and parallel paths) fed hostile chunk bytes,
 * addresses and sizes through a valid HDF5 file. Each input builds a small file
 * with the real HDF5 library and our filter (b2_h5_register): a dataset written
 * through filter 32026 whose one chunk is then replaced, with H5Dwrite_chunk,
 * by the input's bytes. HDF5's own metadata is never touched (Debian's libhdf5
 * does not defend against hostile metadata); lying addresses and sizes reach the
 * reader through its look-up hook instead. Input:
 *   byte 0      bits 0-1 threads (1, 2, 3, 4); bit 2 rank 2 (else rank 1);
 *               bit 3 the whole dataset (else the box below); bit 4 filter
 *               mask 1 on the replaced chunk (stored raw); bit 5 no replacement;
 *               bit 6 chunks read through HDF5 (H5Dread_chunk) rather than
 *               looked up by address (then address lies change nothing)
 *   byte 1      which chunk is replaced (modulo the number of chunks)
 *   byte 2      hook: 0 none, 1 address + delta, 2 size + delta, 3 address past
 *               the end of the file, 4 size 0, 5 address and size from delta
 *               (chunks HDF5 reports stored raw are left alone: H5Dread reads them)
 *   4 bytes LE  delta (signed)
 *   4 bytes     box: start and count selectors, one byte each for 2 dimensions
 *   the rest    the chunk's stored bytes
 * Without hook lies, a read that succeeds must equal H5Dread when that succeeds
 * too. Seeds (fuzz_make_seeds): chunks the filter stores, a plain frame, raw
 * bytes, each with and without lies. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "b2_h5filter.h"
#include "fuzz_common.h"
#include "h5read_int.h"

#define R2_D0 24
#define R2_D1 20
#define R1_N 480

typedef struct lie_state {
    int mode;
    int64_t delta;
    hsize_t target[2];
    int rank;
    haddr_t eof;
} lie_state;

static void lie(void *ud, const hsize_t *coff, unsigned *mask, haddr_t *addr, hsize_t *size)
{
    lie_state *l = ud;
    /* Lies are about where a frame is. A chunk stored raw goes to H5Dread, which
     * sees HDF5's true size: hiding a short raw chunk's size from the reader's
     * check would only make Debian's libhdf5 copy past it (not our code). */
    if (*mask)
        return;
    for (int d = 0; d < l->rank; d++)
        if (coff[d] != l->target[d])
            return;
    switch (l->mode) {
    case 1: *addr = (haddr_t)((int64_t)*addr + l->delta); break;
    case 2: *size = (hsize_t)((int64_t)*size + l->delta); break;
    case 3: *addr = l->eof + (haddr_t)(l->delta & 0xffff); break;
    case 4: *size = 0; break;
    case 5:
        *addr = (haddr_t)(uint32_t)l->delta;
        *size = (hsize_t)((uint64_t)l->delta >> 16 & 0xffff);
        break;
    default: break;
    }
}

static char path[256];

static void cleanup(void)
{
    remove(path);
}

static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    b2_h5_register();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/fuzz_h5reader_%d.h5", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    atexit(cleanup);
}

/* The file with dataset "d" (rank 1 or 2) written through the filter. */
static hid_t make_file(int rank, hsize_t *dims, hsize_t *cdims)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return -1;
    if (rank == 2) {
        dims[0] = R2_D0, dims[1] = R2_D1, cdims[0] = 8, cdims[1] = 10;
    } else {
        dims[0] = R1_N, cdims[0] = 100;
    }
    static const unsigned cd[7] = {0, 0, 0, 0, 5, 1, 1};
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, cdims);
    H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_OPTIONAL, 7, cd);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t ds = H5Dcreate2(f, "d", H5T_STD_I32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    static int32_t v[R1_N];
    for (int i = 0; i < R1_N; i++)
        v[i] = i * 5 + (i % 7);
    if (ds >= 0)
        H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Sclose(sp);
    H5Pclose(dcpl);
    if (ds < 0) {
        H5Fclose(f);
        return -1;
    }
    H5Dclose(ds);
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    fuzz_in in = {data, size};
    unsigned flags = (unsigned)fuzz_take(&in, 1);
    unsigned which = (unsigned)fuzz_take(&in, 1);
    lie_state l = {.mode = (int)(fuzz_take(&in, 1) % 6)};
    l.delta = (int32_t)(uint32_t)fuzz_take(&in, 4);
    uint8_t boxsel[4];
    for (int i = 0; i < 4; i++)
        boxsel[i] = (uint8_t)fuzz_take(&in, 1);
    int rank = flags & 4 ? 2 : 1, nthreads = 1 + (int)(flags & 3);
    hsize_t dims[2], cdims[2];
    hid_t f = make_file(rank, dims, cdims);
    if (f < 0)
        return 0;
    hid_t ds = H5Dopen2(f, "d", H5P_DEFAULT);
    hsize_t nc[2] = {1, 1}, off[2] = {0, 0};
    for (int d = 0; d < rank; d++)
        nc[d] = (dims[d] + cdims[d] - 1) / cdims[d];
    unsigned ci = which % (unsigned)(nc[0] * nc[1]);
    off[0] = (ci / nc[1]) * cdims[0];
    if (rank == 2)
        off[1] = (ci % nc[1]) * cdims[1];
    else
        off[0] = ci * cdims[0];
    if (!(flags & 32))
        H5Dwrite_chunk(ds, H5P_DEFAULT, flags & 16 ? 1 : 0, off, in.n, in.p);
    H5Dclose(ds);
    H5Fclose(f);

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = f >= 0 ? H5Dopen2(f, "d", H5P_DEFAULT) : -1;
    if (ds < 0) {
        if (f >= 0)
            H5Fclose(f);
        return 0;
    }
    hsize_t start[2] = {0, 0}, count[2] = {dims[0], rank == 2 ? dims[1] : 1};
    if (!(flags & 8))
        for (int d = 0; d < rank; d++) {
            start[d] = boxsel[2 * d] % dims[d];
            count[d] = 1 + boxsel[2 * d + 1] % (dims[d] - start[d]);
        }
    size_t n = 4;
    for (int d = 0; d < rank; d++)
        n *= count[d];
    int32_t *a = fuzz_malloc(n), *b = fuzz_malloc(n);
    b2_h5_reader *rd = NULL;
    if (b2_h5_reader_open(ds, &rd) == 0) {
        b2_h5_reader_set_nthreads(rd, nthreads);
        b2_h5_reader_set_par_min(rd, 0);
        b2_h5_reader_set_lookup(rd, flags & 64 ? B2_H5_LOOKUP_READ : B2_H5_LOOKUP_ADDR);
        if (l.mode) {
            FILE *fp = fopen(path, "rb");
            if (fp) {
                fseek(fp, 0, SEEK_END);
                l.eof = (haddr_t)ftell(fp);
                fclose(fp);
            }
            l.rank = rank;
            l.target[0] = off[0];
            l.target[1] = off[1];
            b2_h5_reader_set_chunk_hook(rd, lie, &l);
        }
        b2_h5_read_report rep;
        int rc = b2_h5_reader_read(rd, 0, start, count, a, n, &rep);
        FUZZ_CHECK(rc <= 0, "reader returned a positive code");
        FUZZ_CHECK(rc == 0 || *b2_last_error_message(), "an error without a message");
        if (rc == 0 && !l.mode) {
            hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(rank, count, NULL);
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
            herr_t hr = H5Dread(ds, H5T_NATIVE_INT32, ms, fs, H5P_DEFAULT, b);
            H5Sclose(ms);
            H5Sclose(fs);
            FUZZ_CHECK(hr < 0 || memcmp(a, b, n) == 0, "the reader and H5Dread differ");
        }
        b2_h5_reader_free(rd);
    }
    free(a);
    free(b);
    H5Dclose(ds);
    H5Fclose(f);
    return 0;
}

/* ---- seeds ---- */

static int write_input(const char *outdir, const char *name, unsigned flags, unsigned which,
                       int mode, int32_t delta, const uint8_t *chunk, size_t len)
{
    uint8_t *buf = malloc(11 + len);
    if (!buf)
        return 0;
    buf[0] = (uint8_t)flags;
    buf[1] = (uint8_t)which;
    buf[2] = (uint8_t)mode;
    for (int i = 0; i < 4; i++)
        buf[3 + i] = (uint8_t)((uint32_t)delta >> (8 * i));
    buf[7] = 3, buf[8] = 200, buf[9] = 5, buf[10] = 17;
    if (len)
        memcpy(buf + 11, chunk, len);
    int ok = fuzz_write_seed(outdir, name, buf, 11 + len);
    free(buf);
    return ok;
}

int fuzz_make_seeds(const char *outdir, int argc, char **argv)
{
    (void)argc, (void)argv;
    setup();
    int nseeds = 0;
    for (int rank = 1; rank <= 2; rank++) {
        hsize_t dims[2], cdims[2], off[2] = {0, 0};
        hid_t f = make_file(rank, dims, cdims);
        if (f < 0)
            return -1;
        hid_t ds = H5Dopen2(f, "d", H5P_DEFAULT);
        hsize_t sz = 0;
        uint32_t m = 0;
        H5Dget_chunk_storage_size(ds, off, &sz);
        uint8_t *chunk = malloc((size_t)sz ? (size_t)sz : 1);
        H5Dread_chunk(ds, H5P_DEFAULT, off, &m, chunk);
        H5Dclose(ds);
        H5Fclose(f);
        unsigned r2 = rank == 2 ? 4 : 0;
        char name[64];
        static const struct { unsigned flags; int mode; int32_t delta; const char *tag; } v[] = {
            {1 | 8, 0, 0, "stored_whole_2t"}, {3, 0, 0, "stored_box_4t"},
            {0 | 8, 0, 0, "stored_whole_1t"}, {1 | 8, 3, 100, "past_eof"},
            {1 | 8, 2, 1000, "size_plus"}, {3 | 8, 2, -9, "size_minus"},
            {1 | 8, 1, 17, "addr_shift"}, {2 | 8, 4, 0, "size_zero"},
            {1 | 8 | 32, 0, 0, "untouched"}, {1 | 8 | 16, 0, 0, "raw_mask"},
            {1 | 8 | 64, 0, 0, "via_hdf5_whole_2t"}, {3 | 64, 2, 1000, "via_hdf5_size_plus"},
            {1 | 8 | 16 | 64, 0, 0, "via_hdf5_raw_mask"}};
        for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
            snprintf(name, sizeof name, "r%d_%s", rank, v[i].tag);
            nseeds += write_input(outdir, name, v[i].flags | r2, 1, v[i].mode, v[i].delta, chunk,
                                  (size_t)sz);
        }
        /* a plain frame of the chunk's bytes, and one of half of them */
        b2_cparams cp;
        b2_cparams_init(&cp);
        cp.typesize = 4;
        cp.codec = B2_CODEC_LZ4;
        cp.clevel = 5;
        int32_t vals[100];
        for (int i = 0; i < 100; i++)
            vals[i] = i * 3;
        for (int half = 0; half < 2; half++) {
            b2_schunk *s = NULL;
            fuzz_create(NULL, 0, &cp, &s); /* s stays NULL when it fails */
            uint8_t *fr = NULL;
            size_t flen = 0;
            int32_t nb = (int32_t)(cdims[0] * (rank == 2 ? cdims[1] : 1) * 4) / (half + 1);
            if (s && b2_schunk_append_buffer(s, vals, nb) == 1 && b2_schunk_to_buffer(s, &fr, &flen) >= 0) {
                snprintf(name, sizeof name, "r%d_plain%s", rank, half ? "_half" : "");
                nseeds += write_input(outdir, name, 1 | 8 | r2, 0, 0, 0, fr, flen);
            }
            free(fr);
            b2_schunk_free(s);
        }
        free(chunk);
    }
    return nseeds;
}
