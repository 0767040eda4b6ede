/* SPDX-License-Identifier: BSD-3-Clause */
/* h5_dataset.c: write and read an HDF5 dataset compressed with the Blosc2 filter
 * (id 32026, the one PyTables and hdf5plugin use), from C.
 *
 * The same source builds two ways:
 *   - default: the filter is linked in (libb2_h5filter + libb2) and registered with
 *     b2_h5_register(); no plugin search happens.
 *   - with -DB2_EXAMPLE_USE_PLUGIN: the program links only libhdf5, and HDF5 loads
 *     the dynamic plugin libH5Zb2.so from HDF5_PLUGIN_PATH (or its default plugin
 *     directory) the first time the filter is needed.
 * Files written either way are ordinary HDF5 files that h5py + hdf5plugin read.
 *
 * Run: ./h5_dataset [path]   (default example.h5, overwritten). */
#include <hdf5.h>

#include <stdio.h>
#include <stdlib.h>

#ifndef B2_EXAMPLE_USE_PLUGIN
#include <b2_h5filter.h>
#else
#define B2_H5_FILTER_ID 32026
#endif

#define NX 400
#define NY 300

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example.h5";

#ifndef B2_EXAMPLE_USE_PLUGIN
    if (b2_h5_register() < 0) {
        fprintf(stderr, "b2_h5_register failed\n");
        return 1;
    }
    printf("filter %d registered statically with b2_h5_register()\n", B2_H5_FILTER_ID);
#else
    /* Asking whether the filter is available makes HDF5 search its plugin path. */
    if (H5Zfilter_avail(B2_H5_FILTER_ID) <= 0) {
        const char *pp = getenv("HDF5_PLUGIN_PATH");
        fprintf(stderr, "filter %d not found: is libH5Zb2.so in HDF5_PLUGIN_PATH (%s)?\n",
                B2_H5_FILTER_ID, pp ? pp : "unset");
        return 1;
    }
    printf("filter %d loaded as a plugin (HDF5_PLUGIN_PATH=%s)\n", B2_H5_FILTER_ID,
           getenv("HDF5_PLUGIN_PATH") ? getenv("HDF5_PLUGIN_PATH") : "unset");
#endif

    static int32_t in[NX][NY], out[NX][NY];
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            in[i][j] = i * 7 + j / 4;

    /* cd_values: (0, blocksize, 0, 0, clevel, filter, codec); slots 0, 2 and 3 are
     * filled in by the filter. Here: automatic block size, clevel 5, shuffle, zstd.
     * H5Z_FLAG_MANDATORY makes a missing filter an error instead of silently
     * storing the data uncompressed. */
    const unsigned cd[7] = {0, 0, 0, 0, 5, 1, 5};
    hsize_t dims[2] = {NX, NY}, chunk[2] = {100, 150};
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t space = H5Screate_simple(2, dims, NULL);
    if (file < 0 || dcpl < 0 || space < 0 || H5Pset_chunk(dcpl, 2, chunk) < 0 ||
        H5Pset_filter(dcpl, B2_H5_FILTER_ID, H5Z_FLAG_MANDATORY, 7, cd) < 0) {
        fprintf(stderr, "cannot set up %s\n", path);
        return 1;
    }
    hid_t ds = H5Dcreate2(file, "data", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) < 0) {
        fprintf(stderr, "cannot write the dataset\n");
        return 1;
    }
    hsize_t stored = H5Dget_storage_size(ds);
    printf("wrote %s:/data, %dx%d int32 in %dx%d chunks: %zu bytes stored for %zu\n", path,
           NX, NY, (int)chunk[0], (int)chunk[1], (size_t)stored, sizeof in);
    H5Dclose(ds);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Fclose(file);

    /* Read it back through a fresh handle; the filter decodes each chunk. */
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ds = file < 0 ? -1 : H5Dopen2(file, "data", H5P_DEFAULT);
    if (ds < 0 || H5Dread(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
        fprintf(stderr, "cannot read the dataset back\n");
        return 1;
    }
    /* The filter's cd_values as stored in the file (set_local completed them). */
    dcpl = H5Dget_create_plist(ds);
    unsigned flags, got[16];
    size_t ngot = 16;
    char name[64] = "";
    if (H5Pget_filter_by_id2(dcpl, B2_H5_FILTER_ID, &flags, &ngot, got, sizeof name, name,
                             NULL) < 0) {
        fprintf(stderr, "dataset has no filter %d\n", B2_H5_FILTER_ID);
        return 1;
    }
    printf("filter \"%s\" with %zu cd_values:", name, ngot);
    for (size_t i = 0; i < ngot && i < 16; i++)
        printf(" %u", got[i]);
    printf("\n");
    H5Pclose(dcpl);
    H5Dclose(ds);
    H5Fclose(file);

    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            if (out[i][j] != in[i][j]) {
                fprintf(stderr, "item (%d, %d) is %d, want %d\n", i, j, (int)out[i][j],
                        (int)in[i][j]);
                return 1;
            }
    if (stored == 0 || stored >= sizeof in) {
        fprintf(stderr, "data was not compressed\n");
        return 1;
    }
    printf("read back %d items: identical\n", NX * NY);
    printf("h5_dataset: OK\n");
    return 0;
}
