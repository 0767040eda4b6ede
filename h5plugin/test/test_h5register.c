/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that links HDF5 and the filter statically (no plugin search):
 * b2_h5_register(), then write and read datasets through the C API, including
 * an optional and a mandatory filter, fletcher32 before and after Blosc2, and a
 * hostile chunk written with H5Dwrite_chunk whose read must fail with our
 * message on the HDF5 error stack. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "b2_h5filter.h"
#include "check.h"

static char last_msg[1024];

static herr_t walk_cb(unsigned n, const H5E_error2_t *e, void *ud)
{
    (void)n;
    (void)ud;
    if (e->desc && strstr(e->desc, "blosc2"))
        snprintf(last_msg, sizeof last_msg, "%s", e->desc);
    return 0;
}

/* Write nx*ny floats with the given pipeline, read them back, compare. */
static hid_t roundtrip(hid_t file, const char *name, int f32_before, int f32_after,
                       unsigned flags, const unsigned *cd, size_t ncd)
{
    enum { NX = 97, NY = 61 };
    hsize_t dims[2] = {NX, NY}, chunk[2] = {32, 20};
    static float in[NX * NY], out[NX * NY];
    for (int i = 0; i < NX * NY; i++)
        in[i] = (float)(i % 113) * 0.5f;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    if (f32_before)
        H5Pset_fletcher32(dcpl);
    CHECK(H5Pset_filter(dcpl, B2_H5_FILTER_ID, flags, ncd, cd) >= 0, "%s: set_filter", name);
    if (f32_after)
        H5Pset_fletcher32(dcpl);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t ds = H5Dcreate2(file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds >= 0, "%s: create", name);
    CHECK(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0, "%s: write",
          name);
    H5Dclose(ds);
    ds = H5Dopen2(file, name, H5P_DEFAULT);
    memset(out, 0, sizeof out);
    CHECK(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0 &&
              memcmp(in, out, sizeof in) == 0,
          "%s: data read back differs", name);
    /* the stored cd_values (set_local) */
    unsigned fl, v[32];
    size_t n = 32;
    hid_t cp = H5Dget_create_plist(ds);
    CHECK(H5Pget_filter_by_id2(cp, B2_H5_FILTER_ID, &fl, &n, v, 0, NULL, NULL) >= 0 &&
              n == 10 && v[0] == 1 && v[2] == 4 && v[3] == 32 * 20 * 4 && v[7] == 2 &&
              v[8] == 32 && v[9] == 20,
          "%s: stored cd_values (n %zu)", name, n);
    H5Pclose(cp);
    H5Sclose(space);
    H5Pclose(dcpl);
    return ds;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "test_h5register.h5";
    CHECK(H5Zfilter_avail(B2_H5_FILTER_ID) <= 0 || getenv("HDF5_PLUGIN_PATH"),
          "filter available before registration");
    CHECK(b2_h5_register() == 1, "b2_h5_register failed");
    CHECK(H5Zfilter_avail(B2_H5_FILTER_ID) > 0, "filter not available after registration");
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    unsigned cd[7] = {0, 0, 0, 0, 5, 1, 1};
    hid_t a = roundtrip(file, "optional", 0, 0, H5Z_FLAG_OPTIONAL, cd, 7);
    hid_t b = roundtrip(file, "mandatory_f32_after", 0, 1, H5Z_FLAG_MANDATORY, cd, 7);
    hid_t c = roundtrip(file, "f32_before", 1, 0, H5Z_FLAG_OPTIONAL, cd, 7);

    /* a chunk that is not a frame: the read fails and our message is on the stack */
    hsize_t off[2] = {0, 0};
    const char junk[] = "this is not a blosc2 frame at all";
    CHECK(H5Dwrite_chunk(a, H5P_DEFAULT, 0, off, sizeof junk, junk) >= 0, "write_chunk");
    H5Dclose(a);
    a = H5Dopen2(file, "optional", H5P_DEFAULT);
    static float buf[97 * 61];
    herr_t rc;
    H5E_BEGIN_TRY { rc = H5Dread(a, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); }
    H5E_END_TRY;
    CHECK(rc < 0, "reading a junk chunk succeeded");
    /* read again with automatic printing off and walk the stack of the failure */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    rc = H5Dread(a, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    last_msg[0] = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, NULL);
    H5Eclear2(H5E_DEFAULT);
    CHECK(rc < 0 && strstr(last_msg, "not a Blosc2 frame"), "error message: \"%s\"", last_msg);
    H5Dclose(a);
    H5Dclose(b);
    H5Dclose(c);
    H5Fclose(file);
    remove(path);
    printf("test_h5register: %ld checks, %ld failures (message: %s)\n", b2t_checks, b2t_failures,
           last_msg);
    return b2t_failures ? 1 : 0;
}
