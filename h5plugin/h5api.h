/* SPDX-License-Identifier: BSD-3-Clause */
/* The few HDF5 functions and globals the filter needs, resolved at run time.
 *
 * The plugin never links libhdf5: it must use the copy of HDF5 that loaded it,
 * whatever its soname (Debian's libhdf5_serial.so.103, a wheel's renamed
 * copy, ...). HDF5 headers are used for types and constants only. */
#ifndef B2_H5API_H
#define B2_H5API_H

#include <stdarg.h>
#include <stddef.h>
#include <hdf5.h>

#include "h5common.h"

/* Pointers to the HDF5 entry points the filter calls (all present since 1.10). */
typedef struct b2_h5_api {
    int (*Pget_chunk)(hid_t, int, hsize_t *);
    herr_t (*Pget_filter_by_id2)(hid_t, H5Z_filter_t, unsigned *, size_t *, unsigned[],
                                 size_t, char[], unsigned *);
    herr_t (*Pmodify_filter)(hid_t, H5Z_filter_t, unsigned, size_t, const unsigned[]);
    size_t (*Tget_size)(hid_t);
    H5T_class_t (*Tget_class)(hid_t);
    hid_t (*Tget_super)(hid_t);
    herr_t (*Tclose)(hid_t);
    herr_t (*Epush2)(hid_t, const char *, const char *, unsigned, hid_t, hid_t, hid_t,
                     const char *, ...);
    void *(*allocate_memory)(size_t, hbool_t);
    herr_t (*free_memory)(void *);
    herr_t (*Zregister)(const void *);
    /* addresses of HDF5's global error class / major / minor id variables */
    const hid_t *err_cls, *maj_pline, *min_callback;
    void *handle; /* where they were found (dlsym handle; RTLD_DEFAULT possible) */
    int parallel; /* that HDF5 is a parallel build (exports H5Pset_fapl_mpio) */
} b2_h5_api;

/* What the box reader (h5read*.c) and writer (h5write.c) call besides the
 * filter's table: dataset, dataspace, property and file queries, H5Dread and
 * H5Dwrite. Dget_chunk_info_by_coord is NULL before HDF5 1.10.5 (then every read
 * takes H5Dread), Dwrite_chunk before 1.10.3 (every write takes H5Dwrite),
 * Dget_chunk_storage_size and Dread_chunk before 1.10.3 (then every chunk is
 * looked up by coordinates). */
typedef struct b2_h5_read_api {
    hid_t (*Dget_space)(hid_t);
    hid_t (*Dget_type)(hid_t);
    hid_t (*Dget_create_plist)(hid_t);
    herr_t (*Dread)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
    herr_t (*Dget_chunk_info_by_coord)(hid_t, const hsize_t *, unsigned *, haddr_t *, hsize_t *);
    herr_t (*Dget_chunk_storage_size)(hid_t, const hsize_t *, hsize_t *);
    herr_t (*Dread_chunk)(hid_t, hid_t, const hsize_t *, uint32_t *, void *);
    herr_t (*Eget_auto2)(hid_t, H5E_auto2_t *, void **);
    herr_t (*Eset_auto2)(hid_t, H5E_auto2_t, void *);
    int (*Sget_simple_extent_ndims)(hid_t);
    int (*Sget_simple_extent_dims)(hid_t, hsize_t *, hsize_t *);
    H5S_class_t (*Sget_simple_extent_type)(hid_t);
    hid_t (*Screate_simple)(int, const hsize_t *, const hsize_t *);
    herr_t (*Sselect_hyperslab)(hid_t, H5S_seloper_t, const hsize_t *, const hsize_t *,
                                const hsize_t *, const hsize_t *);
    herr_t (*Sclose)(hid_t);
    H5D_layout_t (*Pget_layout)(hid_t);
    int (*Pget_nfilters)(hid_t);
    H5Z_filter_t (*Pget_filter2)(hid_t, unsigned, unsigned *, size_t *, unsigned[], size_t,
                                 char[], unsigned *);
    herr_t (*Pget_userblock)(hid_t, hsize_t *);
    hid_t (*Pget_driver)(hid_t);
    herr_t (*Pclose)(hid_t);
    htri_t (*Tequal)(hid_t, hid_t);
    hid_t (*Iget_file_id)(hid_t);
    ssize_t (*Fget_name)(hid_t, char *, size_t);
    herr_t (*Fget_intent)(hid_t, unsigned *);
    herr_t (*Fflush)(hid_t, H5F_scope_t);
    hid_t (*Fget_access_plist)(hid_t);
    hid_t (*Fget_create_plist)(hid_t);
    herr_t (*Fclose)(hid_t);
    hid_t (*FD_sec2_init)(void);
    /* the writer (h5write.c) */
    herr_t (*Dwrite)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
    herr_t (*Dwrite_chunk)(hid_t, hid_t, uint32_t, const hsize_t *, size_t, const void *);
    herr_t (*Pget_fill_time)(hid_t, H5D_fill_time_t *);
    herr_t (*Pfill_value_defined)(hid_t, H5D_fill_value_t *);
    herr_t (*Pget_fill_value)(hid_t, hid_t, void *);
    htri_t (*Tdetect_class)(hid_t, H5T_class_t);
    htri_t (*Tis_variable_str)(hid_t);
    hid_t (*FD_mpio_init)(void); /* parallel builds only */
} b2_h5_read_api;

/* The read table (resolved once, from where b2_h5_api_get found HDF5), or NULL
 * when HDF5 or one of the required functions is missing. */
B2_HIDDEN const b2_h5_read_api *b2_h5_read_api_get(void);

/* The resolved API, or NULL when the process holds no usable HDF5 library.
 * hint is an address inside the HDF5 library that is calling us (or NULL); the
 * library containing it is searched first. Resolution happens once per process:
 * later calls return the same table whatever their hint. */
B2_HIDDEN const b2_h5_api *b2_h5_api_get(const void *hint);

/* Push an HDF5 error (major H5E_PLINE, minor H5E_CALLBACK) with a printf-style
 * message naming the filter. Does nothing when api or Epush2 is missing. */
B2_HIDDEN void b2_h5_error(const b2_h5_api *api, const char *file, const char *func,
                          unsigned line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#define B2_H5_ERROR(api, ...) b2_h5_error((api), __FILE__, __func__, __LINE__, __VA_ARGS__)

#endif
