/* SPDX-License-Identifier: BSD-3-Clause */
/* Incompressible chunks written collectively through the optional filter (as h5py
 * always sets it). Serially the filter declines them and HDF5 stores them raw with
 * the filter's mask bit set; parallel HDF5 1.10 drops that bit in collective
 * writes, so under a parallel HDF5 the filter must keep them as frames
 * (h5plugin/filter.c). Every rank writes its rows of a uint8 dataset whose chunks
 * alternate between random bytes and a constant, rows split across chunks; then
 *   - every rank reads the next rank's rows back (collectively);
 *   - rank 0 reads the file through the default driver: every value, and every
 *     chunk stored filtered (mask 0) and no larger than the chunk plus a frame's
 *     overhead, the random ones above 90% of their random bytes, the constant
 *     ones tiny.
 *
 *   mpirun -np N test_h5_mpi_incompressible FILE */
#include <hdf5.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define FILTER_ID 32026
#define NROWS 100
#define NCOLS 4096
#define CROWS 16 /* rows per chunk: 7 chunks, the last one partial */

/* Chunks of even index hold random bytes, the others a constant. */
static uint8_t item(uint64_t row, uint64_t col)
{
    if ((row / CROWS) % 2)
        return 7;
    uint64_t x = (row * NCOLS + col + 1) * 0x9E3779B97F4A7C15ull; /* splitmix64 */
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return (uint8_t)(x ^ (x >> 31));
}

static int first(int r, int n) { return (int)((long)NROWS * r / n); }

static hid_t rows(hid_t fspace, int r0, int r1)
{
    hsize_t start[2] = {(hsize_t)r0, 0}, count[2] = {(hsize_t)(r1 - r0), NCOLS};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    return H5Screate_simple(2, count, NULL);
}

static long wrong_items(const uint8_t *buf, int r0, int r1)
{
    long bad = 0;
    for (int r = r0; r < r1; r++)
        for (int c = 0; c < NCOLS; c++)
            bad += *buf++ != item((uint64_t)r, (uint64_t)c);
    return bad;
}

static void write_parallel(const char *path, int rank, int size)
{
    int r0 = first(rank, size), r1 = first(rank + 1, size);
    uint8_t *buf = malloc((size_t)(r1 - r0) * NCOLS + 1);
    for (int r = r0; r < r1; r++)
        for (int c = 0; c < NCOLS; c++)
            buf[(size_t)(r - r0) * NCOLS + c] = item((uint64_t)r, (uint64_t)c);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hsize_t dims[2] = {NROWS, NCOLS}, chunk[2] = {CROWS, NCOLS};
    const unsigned cd[7] = {0, 0, 0, 0, 5, 1, 1}; /* lz4 5 + shuffle */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(2, dims, NULL);
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_filter(dcpl, FILTER_ID, H5Z_FLAG_OPTIONAL, 7, cd);
    hid_t ds = file < 0 ? -1 : H5Dcreate2(file, "data", H5T_STD_U8LE, space, H5P_DEFAULT, dcpl,
                                          H5P_DEFAULT);
    CHECK(ds >= 0, "rank %d: cannot create %s:/data", rank, path);
    if (ds >= 0) {
        hid_t mspace = rows(space, r0, r1);
        CHECK(H5Dwrite(ds, H5T_NATIVE_UINT8, mspace, space, dxpl, buf) >= 0,
              "rank %d: collective write of rows %d..%d failed", rank, r0, r1);
        H5Sclose(mspace);
        H5Dclose(ds);
    }
    H5Sclose(space);
    H5Pclose(dcpl);
    if (file >= 0)
        H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
}

static void read_parallel(const char *path, int rank, int size)
{
    int other = (rank + 1) % size, r0 = first(other, size), r1 = first(other + 1, size);
    uint8_t *buf = malloc((size_t)(r1 - r0) * NCOLS + 1);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    hid_t ds = file < 0 ? -1 : H5Dopen2(file, "data", H5P_DEFAULT);
    int ok = 0;
    if (ds >= 0) {
        hid_t space = H5Dget_space(ds), mspace = rows(space, r0, r1);
        ok = H5Dread(ds, H5T_NATIVE_UINT8, mspace, space, dxpl, buf) >= 0;
        H5Sclose(mspace);
        H5Sclose(space);
        H5Dclose(ds);
    }
    CHECK(ok, "rank %d: parallel read of rank %d's rows failed", rank, other);
    if (ok)
        CHECK(wrong_items(buf, r0, r1) == 0, "rank %d: rank %d's rows read back wrong", rank,
              other);
    if (file >= 0)
        H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
}

/* Rank 0: values and stored chunks through the default driver. */
static void check_serially(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = file < 0 ? -1 : H5Dopen2(file, "data", H5P_DEFAULT);
    CHECK(ds >= 0, "cannot open %s:/data serially", path);
    if (ds < 0)
        return;
    uint8_t *all = malloc((size_t)NROWS * NCOLS);
    int ok = H5Dread(ds, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0;
    CHECK(ok, "serial read failed (a raw chunk taken for a frame?)");
    if (ok)
        CHECK(wrong_items(all, 0, NROWS) == 0, "serial read: wrong items");
    free(all);
    size_t chunk_bytes = (size_t)CROWS * NCOLS;
    for (int i = 0; i * CROWS < NROWS; i++) {
        hsize_t off[2] = {(hsize_t)i * CROWS, 0}, size = 0;
        unsigned mask = 99;
        haddr_t addr;
        int got = H5Dget_chunk_info_by_coord(ds, off, &mask, &addr, &size) >= 0;
        CHECK(got && mask == 0, "chunk %d: filter mask %u, want 0 (stored as a frame)", i, mask);
        /* the edge chunk's rows beyond the dataset hold zeros */
        size_t random_bytes = (size_t)(NROWS - i * CROWS < CROWS ? NROWS - i * CROWS : CROWS) * NCOLS;
        if (i % 2 == 0)
            CHECK(got && size > random_bytes * 9 / 10 && size < chunk_bytes + 1024,
                  "random chunk %d: %llu bytes stored for %zu random ones", i,
                  (unsigned long long)size, random_bytes);
        else
            CHECK(got && size < chunk_bytes / 20, "constant chunk %d: %llu bytes stored", i,
                  (unsigned long long)size);
    }
    H5Dclose(ds);
    H5Fclose(file);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "incompressible.h5";
    CHECK(H5Zfilter_avail(FILTER_ID) > 0, "rank %d: filter %d not available", rank, FILTER_ID);
    write_parallel(path, rank, size);
    read_parallel(path, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_serially(path);
    long mine[2] = {b2t_checks, b2t_failures}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_h5_mpi_incompressible: %d rank(s), %ld checks, %ld failures%s\n", size,
               all[0], all[1], all[1] ? "" : "\ntest_h5_mpi_incompressible: OK");
    int failed = b2t_failures != 0;
    MPI_Finalize();
    return failed;
}
