/* SPDX-License-Identifier: BSD-3-Clause */
/* b2_h5_read_box (fast slicing, b2_h5filter.h) from every rank of an MPI job, on
 * the file examples/h5_parallel.c wrote in parallel:
 *   - opened with the MPI-IO driver (collectively), every rank's box must come
 *     through H5Dread (the direct path reads sec2 files only), reason given;
 *   - opened read-only with the default driver by every rank at once, every box
 *     must take the direct path (no chunk through H5Dread).
 * Boxes differ between ranks and cross slab and chunk boundaries; every value is
 * compared with the formula the writer used.
 *
 *   mpirun -np N test_h5_mpi_read_box FILE PLUGIN.so
 *
 * The function comes from the plugin file HDF5 loaded (dlsym), as in Python's
 * b2blosc_h5: this program links only the parallel libhdf5 and MPI. */
#include <dlfcn.h>
#include <hdf5.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2_h5filter.h"
#include "check.h"

typedef int (*read_box_fn)(hid_t, hid_t, const hsize_t *, const hsize_t *, void *, size_t,
                           b2_h5_read_report *);

/* examples/h5_parallel.c's values */
static float value(hsize_t z, hsize_t y, hsize_t x)
{
    return (float)(z * 1000 + y * 8) + 0.25f * (float)x;
}

/* Box number i of this rank: about a third of the dataset in each dimension, its
 * corner moving with rank and i; the last box of rank 0 is the whole dataset. */
static void box_of(int rank, int i, const hsize_t *dims, hsize_t *start, hsize_t *count)
{
    for (int d = 0; d < 3; d++) {
        count[d] = dims[d] / 3 + 1;
        start[d] = ((hsize_t)(rank * 5 + i * 3 + d) * 7) % (dims[d] - count[d] + 1);
    }
    if (rank == 0 && i == 3)
        for (int d = 0; d < 3; d++) {
            start[d] = 0;
            count[d] = dims[d];
        }
}

/* Read this rank's boxes of path's /data through the given access list; want_path
 * is the enum b2_h5_read_path every box must report. */
static void read_boxes(read_box_fn read_box, const char *path, hid_t fapl, int want_path,
                       int rank)
{
    const char *drv = want_path == B2_H5_READ_DIRECT ? "sec2" : "mpio";
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    hid_t ds = file < 0 ? -1 : H5Dopen2(file, "data", H5P_DEFAULT);
    CHECK(ds >= 0, "rank %d: %s: cannot open %s:/data", rank, drv, path);
    if (ds < 0)
        return;
    hsize_t dims[3] = {0, 0, 0};
    hid_t space = H5Dget_space(ds);
    CHECK(H5Sget_simple_extent_ndims(space) == 3, "rank %d: /data is not 3-D", rank);
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    float *buf = malloc(sizeof(float) * dims[0] * dims[1] * dims[2]);
    for (int i = 0; buf && i < 4; i++) {
        hsize_t start[3], count[3];
        box_of(rank, i, dims, start, count);
        size_t n = count[0] * count[1] * count[2];
        b2_h5_read_report rep;
        int rc = read_box(ds, H5T_NATIVE_FLOAT, start, count, buf, n * sizeof(float), &rep);
        CHECK(rc == 0, "rank %d: %s box %d: b2_h5_read_box returned %d", rank, drv, i, rc);
        CHECK(rep.path == want_path, "rank %d: %s box %d: path %d, want %d (reason: %s)", rank,
              drv, i, rep.path, want_path, rep.reason);
        if (want_path == B2_H5_READ_DIRECT)
            CHECK(rep.chunks_direct > 0 && rep.chunks_h5dread == 0 && rep.blocks_decoded > 0,
                  "rank %d: box %d: %lld chunks direct, %lld through H5Dread, %lld blocks", rank,
                  i, (long long)rep.chunks_direct, (long long)rep.chunks_h5dread,
                  (long long)rep.blocks_decoded);
        else
            CHECK(strstr(rep.reason, "driver") != NULL, "rank %d: box %d: reason '%s'", rank, i,
                  rep.reason);
        long bad = 0;
        const float *p = buf;
        for (hsize_t z = start[0]; z < start[0] + count[0]; z++)
            for (hsize_t y = start[1]; y < start[1] + count[1]; y++)
                for (hsize_t x = start[2]; x < start[2] + count[2]; x++, p++)
                    bad += *p != value(z, y, x);
        CHECK(rc == 0 && bad == 0, "rank %d: %s box %d at (%llu, %llu, %llu): %ld wrong items",
              rank, drv, i, (unsigned long long)start[0], (unsigned long long)start[1],
              (unsigned long long)start[2], bad);
    }
    free(buf);
    H5Dclose(ds);
    H5Fclose(file);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N %s FILE PLUGIN.so\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    /* HDF5 loads the plugin; dlopen then hands out the same copy */
    CHECK(H5Zfilter_avail(B2_H5_FILTER_ID) > 0, "rank %d: filter %d not available", rank,
          B2_H5_FILTER_ID);
    void *lib = dlopen(argv[2], RTLD_NOW);
    read_box_fn read_box = lib ? (read_box_fn)(uintptr_t)dlsym(lib, "b2_h5_read_box") : NULL;
    CHECK(read_box != NULL, "rank %d: no b2_h5_read_box in %s: %s", rank, argv[2],
          lib ? "missing symbol" : dlerror());

    if (read_box) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        read_boxes(read_box, argv[1], fapl, B2_H5_READ_H5DREAD, rank); /* collective open */
        H5Pclose(fapl);
        read_boxes(read_box, argv[1], H5P_DEFAULT, B2_H5_READ_DIRECT, rank);
    }
    long mine[2] = {b2t_checks, b2t_failures}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_h5_mpi_read_box: %d rank(s), %ld checks, %ld failures%s\n", size, all[0],
               all[1], all[1] ? "" : "\ntest_h5_mpi_read_box: OK");
    int failed = b2t_failures != 0;
    MPI_Finalize();
    return failed;
}
