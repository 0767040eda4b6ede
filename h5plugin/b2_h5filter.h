/* libb2 HDF5 filter: Blosc2, filter id 32026 ("blosc2"), interchangeable with the
 * filter PyTables and hdf5plugin ship.
 *
 * As a dynamic plugin (libH5Zb2.so) HDF5 finds it through HDF5_PLUGIN_PATH or its
 * default plugin directory. Programs that link libb2 and this filter statically
 * call b2_h5_register() once instead. The filter uses the HDF5 library already
 * present in the process (found at run time); it never links one itself.
 *
 * cd_values (compression_opts in h5py): (0, blocksize, 0, 0, clevel, filter, codec)
 * with filter 0 none, 1 shuffle, 2 bitshuffle, 3 delta and codec 0 blosclz, 1 lz4,
 * 2 lz4hc, 4 zlib, 5 zstd. Threads: $B2_H5_NTHREADS, else $BLOSC_NTHREADS, else 1.
 *
 * User codecs and filters (ids 160..255, b2_plugin.h): the filter sees only the
 * process table of the libb2 it runs with. A program linking the filter
 * statically registers its ids with b2_register_codec / b2_register_filter, and
 * they then also work in cd_values[6] and in stored frames; the dynamic plugin
 * carries a private copy of libb2 whose table no application can reach. */
#ifndef B2_H5FILTER_H
#define B2_H5FILTER_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define B2_H5_API __attribute__((visibility("default")))
#else
#define B2_H5_API
#endif

#define B2_H5_FILTER_ID 32026

/* Register filter 32026 with the HDF5 library of this process (which must export
 * its symbols, as a shared libhdf5 does). Returns 1 on success, -1 when HDF5
 * cannot be found or refuses the registration. */
B2_H5_API int b2_h5_register(void);

#ifdef __cplusplus
}
#endif
#endif
