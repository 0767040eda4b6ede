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

#include "b2_internal.h"

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
} b2_h5_api;

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
