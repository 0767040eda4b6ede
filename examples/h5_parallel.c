/* SPDX-License-Identifier: BSD-3-Clause */
/* h5_parallel.c: a Blosc2-compressed HDF5 dataset (filter 32026) written and read
 * by several MPI processes through parallel HDF5 (>= 1.10.2).
 *
 *   mpicc/h5pcc ... -o h5_parallel h5_parallel.c      (links the parallel libhdf5 only)
 *   HDF5_PLUGIN_PATH=/dir/of/libH5Zb2.so mpirun -np 4 ./h5_parallel [path]
 *
 * The plugin is the same libH5Zb2.so serial HDF5 programs load: it does not link
 * libhdf5 and uses whichever HDF5 loaded it.
 *
 * 1. Every rank computes its slab of planes of a 3-D float32 array and writes it
 *    collectively. Parallel HDF5 runs filters only in collective writes: a chunk
 *    that several ranks write parts of is gathered on one rank, compressed once
 *    and written by it. The slabs here do not follow chunk boundaries, so with 2
 *    or more ranks some chunks are shared.
 * 2. The file is reopened in parallel and each rank reads the next rank's slab.
 * 3. Rank 0 alone writes the same array serially into <path>.serial.h5, reads both
 *    files back without MPI-IO and compares values and every stored chunk's bytes.
 * Prints "h5_parallel: OK" (rank 0) when every rank found everything equal. */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILTER_ID 32026
#define NZ 30
#define NY 100
#define NX 128

/* Exact in float32 (multiples of 1/4 below 2^15), so every reader can recompute it. */
static float value(int z, int y, int x) { return (float)(z * 1000 + y * 8) + 0.25f * (float)x; }

/* First plane of rank r's slab out of n ranks (slab r is [first(r), first(r + 1))). */
static int first(int r, int n) { return (int)((long)NZ * r / n); }

static void fill(float *buf, int z0, int z1)
{
    for (int z = z0; z < z1; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                *buf++ = value(z, y, x);
}

/* Number of items of buf (planes z0..z1) that differ from value(); prints the first. */
static long mismatches(const char *what, const float *buf, int z0, int z1)
{
    long bad = 0;
    for (int z = z0; z < z1; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++, buf++)
                if (*buf != value(z, y, x) && bad++ == 0)
                    fprintf(stderr, "%s: item (%d, %d, %d) is %g, want %g\n", what, z, y, x,
                            (double)*buf, (double)value(z, y, x));
    return bad;
}

/* Select planes [z0, z1) of the dataset's space, and a memory space for them. */
static hid_t select_planes(hid_t fspace, int z0, int z1)
{
    hsize_t start[3] = {(hsize_t)z0, 0, 0}, count[3] = {(hsize_t)(z1 - z0), NY, NX};
    if (z1 <= z0) { /* more ranks than planes: this rank takes part with nothing */
        H5Sselect_none(fspace);
        hid_t m = H5Screate_simple(3, count, NULL);
        H5Sselect_none(m);
        return m;
    }
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    return H5Screate_simple(3, count, NULL);
}

/* cd_values: (0, blocksize, 0, 0, clevel, filter, codec); the plugin fills slots 0, 2,
 * 3 and the chunk shape in. lz4 at clevel 5 with byte shuffle, automatic blocks. */
static const unsigned cd[7] = {0, 0, 0, 0, 5, 1, 1};

static hid_t create_dataset(hid_t file)
{
    hsize_t dims[3] = {NZ, NY, NX}, chunk[3] = {8, 50, 64}; /* 100 KB chunks */
    hid_t space = H5Screate_simple(3, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds = -1;
    /* MANDATORY: a missing plugin is an error, not silently uncompressed data */
    if (H5Pset_chunk(dcpl, 3, chunk) >= 0 &&
        H5Pset_filter(dcpl, FILTER_ID, H5Z_FLAG_MANDATORY, 7, cd) >= 0)
        ds = H5Dcreate2(file, "data", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
}

/* Step 1: every rank writes its slab, collectively. */
static int write_parallel(const char *path, int rank, int size)
{
    int z0 = first(rank, size), z1 = first(rank + 1, size), err = 1;
    float *buf = malloc(sizeof(float) * (size_t)(z1 > z0 ? z1 - z0 : 1) * NY * NX);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE); /* independent writes refuse filters */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl); /* collective */
    hid_t ds = file < 0 ? -1 : create_dataset(file);                 /* collective */
    if (buf && ds >= 0) {
        fill(buf, z0, z1);
        hid_t fspace = H5Dget_space(ds), mspace = select_planes(fspace, z0, z1);
        err = H5Dwrite(ds, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, buf) < 0;
        H5Sclose(mspace);
        H5Sclose(fspace);
    }
    if (err)
        fprintf(stderr, "rank %d: cannot write planes %d..%d of %s\n", rank, z0, z1, path);
    if (ds >= 0)
        H5Dclose(ds);
    if (file >= 0)
        H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
    return err;
}

/* Step 2: every rank reads the next rank's slab, collectively. */
static int read_parallel(const char *path, int rank, int size)
{
    int other = (rank + 1) % size, z0 = first(other, size), z1 = first(other + 1, size);
    float *buf = malloc(sizeof(float) * (size_t)(z1 > z0 ? z1 - z0 : 1) * NY * NX);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    hid_t ds = file < 0 ? -1 : H5Dopen2(file, "data", H5P_DEFAULT);
    long bad = -1;
    if (buf && ds >= 0) {
        hid_t fspace = H5Dget_space(ds), mspace = select_planes(fspace, z0, z1);
        if (H5Dread(ds, H5T_NATIVE_FLOAT, mspace, fspace, dxpl, buf) >= 0)
            bad = mismatches("parallel read", buf, z0, z1);
        H5Sclose(mspace);
        H5Sclose(fspace);
    }
    if (bad < 0)
        fprintf(stderr, "rank %d: cannot read planes %d..%d of %s\n", rank, z0, z1, path);
    else if (bad > 0)
        fprintf(stderr, "rank %d: %ld wrong items in rank %d's planes\n", rank, bad, other);
    if (ds >= 0)
        H5Dclose(ds);
    if (file >= 0)
        H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(buf);
    return bad != 0;
}

/* Every stored chunk of a and b: same offsets, filter masks and bytes (HDF5 >= 1.10.5). */
static int same_chunks(hid_t a, hid_t b)
{
#if H5_VERSION_GE(1, 10, 5)
    /* a dataspace of the dataset's shape: 1.10's H5Dget_num_chunks refuses H5S_ALL */
    hid_t space = H5Dget_space(a);
    hsize_t na = 0, nb = 0;
    if (H5Dget_num_chunks(a, space, &na) < 0 || H5Dget_num_chunks(b, space, &nb) < 0 ||
        na != nb || na == 0)
        fprintf(stderr, "chunk counts differ: %llu and %llu\n", (unsigned long long)na,
                (unsigned long long)nb);
    size_t total = 0;
    hsize_t i = 0;
    for (; na == nb && i < na; i++) {
        hsize_t off[3], size_a = 0, size_b = 0;
        haddr_t addr;
        unsigned mask;
        uint32_t fa = 0, fb = 0;
        char *ba = NULL, *bb = NULL;
        int same = H5Dget_chunk_info(a, space, i, off, &mask, &addr, &size_a) >= 0 &&
                   H5Dget_chunk_storage_size(b, off, &size_b) >= 0 && size_a == size_b &&
                   (ba = malloc(size_a)) && (bb = malloc(size_a)) &&
                   H5Dread_chunk(a, H5P_DEFAULT, off, &fa, ba) >= 0 &&
                   H5Dread_chunk(b, H5P_DEFAULT, off, &fb, bb) >= 0 && fa == fb &&
                   memcmp(ba, bb, size_a) == 0;
        free(ba);
        free(bb);
        if (!same) {
            fprintf(stderr, "stored chunk %llu differs from the serial write's\n",
                    (unsigned long long)i);
            break;
        }
        total += size_a;
    }
    H5Sclose(space);
    if (na != nb || na == 0 || i < na)
        return 0;
    printf("the %llu stored chunks (%zu bytes) are byte for byte the serial write's\n",
           (unsigned long long)na, total);
#else
    (void)a;
    (void)b;
    printf("HDF5 older than 1.10.5: stored chunks not compared\n");
#endif
    return 1;
}

/* Whole dataset read back through the default (sec2) driver; NULL on failure. */
static float *read_all(hid_t ds)
{
    float *buf = malloc(sizeof(float) * NZ * NY * NX);
    if (buf && H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

/* Step 3 (rank 0 alone): a serial write of the same array, both files read serially. */
static int check_serially(const char *path)
{
    char spath[4096];
    snprintf(spath, sizeof spath, "%s.serial.h5", path);
    float *all = malloc(sizeof(float) * NZ * NY * NX);
    hid_t sf = H5Fcreate(spath, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sd = sf < 0 ? -1 : create_dataset(sf);
    int ok = all && sd >= 0;
    if (ok) {
        fill(all, 0, NZ);
        ok = H5Dwrite(sd, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0;
    }
    free(all);
    if (sd >= 0)
        H5Dclose(sd);
    if (sf >= 0)
        H5Fclose(sf);
    if (!ok) {
        fprintf(stderr, "cannot write %s\n", spath);
        return 1;
    }

    hid_t pf = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    sf = H5Fopen(spath, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t pd = pf < 0 ? -1 : H5Dopen2(pf, "data", H5P_DEFAULT);
    sd = sf < 0 ? -1 : H5Dopen2(sf, "data", H5P_DEFAULT);
    float *p = pd < 0 ? NULL : read_all(pd), *s = sd < 0 ? NULL : read_all(sd);
    ok = p && s && mismatches("serial read of the parallel file", p, 0, NZ) == 0 &&
         memcmp(p, s, sizeof(float) * NZ * NY * NX) == 0;
    if (ok) {
        /* the filter is in the dataset's pipeline, with the cd_values given */
        hid_t dcpl = H5Dget_create_plist(pd);
        unsigned flags, got[16];
        size_t n = 16;
        ok = H5Pget_filter_by_id2(dcpl, FILTER_ID, &flags, &n, got, 0, NULL, NULL) >= 0 &&
             n >= 7 && got[4] == cd[4] && got[5] == cd[5] && got[6] == cd[6];
        H5Pclose(dcpl);
        hsize_t stored = H5Dget_storage_size(pd);
        printf("serial read: %d x %d x %d float32 equal to the serial write; filter %d "
               "stores %llu bytes for %zu (x%.1f)\n",
               NZ, NY, NX, FILTER_ID, (unsigned long long)stored, sizeof(float) * NZ * NY * NX,
               stored ? (double)(sizeof(float) * NZ * NY * NX) / (double)stored : 0.0);
        if (!ok)
            fprintf(stderr, "%s:/data does not carry filter %d with the cd_values given\n",
                    path, FILTER_ID);
    }
    ok = ok && same_chunks(pd, sd);
    free(p);
    free(s);
    if (pd >= 0)
        H5Dclose(pd);
    if (sd >= 0)
        H5Dclose(sd);
    if (pf >= 0)
        H5Fclose(pf);
    if (sf >= 0)
        H5Fclose(sf);
    return !ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "h5_parallel.h5";

    /* Every rank loads the plugin (HDF5 searches HDF5_PLUGIN_PATH on first use). */
    int err = H5Zfilter_avail(FILTER_ID) <= 0, any;
    if (err)
        fprintf(stderr, "rank %d: filter %d not found: is libH5Zb2.so in HDF5_PLUGIN_PATH (%s)?\n",
                rank, FILTER_ID, getenv("HDF5_PLUGIN_PATH") ? getenv("HDF5_PLUGIN_PATH") : "unset");
    MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (any) {
        MPI_Finalize();
        return 1;
    }
    if (rank == 0)
        printf("%d rank(s) write %s:/data, %d x %d x %d float32, planes split between ranks\n",
               size, path, NZ, NY, NX);

    err = write_parallel(path, rank, size);
    MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (!any) {
        err = read_parallel(path, rank, size);
        MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        if (!any && rank == 0)
            printf("parallel read: every rank read the next rank's planes back exactly\n");
    }
    if (!any && rank == 0)
        any = check_serially(path);
    MPI_Bcast(&any, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "h5_parallel: FAILED\n" : "h5_parallel: OK\n");
    MPI_Finalize();
    return any ? 1 : 0;
}
