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
    herr_t (*get_libversion)(unsigned *, unsigned *, unsigned *); /* NULL if absent */
    /* Error stack copies (all HDF5 >= 1.8; NULL if absent): HDF5 1.14.4+ pauses
     * the error stack around the filter call, see b2_h5_error. */
    hid_t (*Eget_current_stack)(void);
    herr_t (*Eset_current_stack)(hid_t);
    herr_t (*Eclose_stack)(hid_t);
    /* addresses of HDF5's global error class / major / minor id variables */
    const hid_t *err_cls, *maj_pline, *min_callback;
    void *handle; /* where they were found (dlsym handle; RTLD_DEFAULT possible) */
    int parallel; /* that HDF5 is a parallel build (exports H5Pset_fapl_mpio) */
} b2_h5_api;

/* H5D_chunk_iter_op_t as HDF5 1.10.10+, 1.12.3+, 1.14 and 2.x declare it (the
 * 1.10.8 headers we build with have none): offset in dataset elements, size an
 * hsize_t. The 1.13 development releases passed a uint32_t size (and, before
 * 1.13.3, offsets in chunks): b2_h5_read_api leaves Dchunk_iter NULL there. */
typedef int (*b2_h5_chunk_iter_op)(const hsize_t *offset, unsigned filter_mask, haddr_t addr,
                                   hsize_t size, void *op_data);

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
    /* every stored chunk in one pass (NULL where absent or of another signature,
     * see b2_h5_chunk_iter_op) */
    herr_t (*Dchunk_iter)(hid_t, hid_t, b2_h5_chunk_iter_op, void *);
    /* HDF5 1.10.3-1.14: H5Dread_chunk; 2.0 renamed it H5Dread_chunk1 and added
     * H5Dread_chunk2, which takes the buffer's size (preferred when present) */
    herr_t (*Dread_chunk)(hid_t, hid_t, const hsize_t *, uint32_t *, void *);
    herr_t (*Dread_chunk2)(hid_t, hid_t, const hsize_t *, uint32_t *, void *, size_t *);
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
    /* The sec2 driver's id: H5FD_sec2_init() up to 1.14, the variable
     * H5FD_SEC2_id_g (valid after H5open) from 2.0, which removed the
     * H5FD_*_init functions. Use b2_h5_driver_sec2(). */
    hid_t (*FD_sec2_init)(void);
    const hid_t *FD_sec2_id_g;
    herr_t (*open)(void);
    /* the writer (h5write.c) */
    herr_t (*Dwrite)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
    herr_t (*Dwrite_chunk)(hid_t, hid_t, uint32_t, const hsize_t *, size_t, const void *);
    herr_t (*Pget_fill_time)(hid_t, H5D_fill_time_t *);
    herr_t (*Pfill_value_defined)(hid_t, H5D_fill_value_t *);
    herr_t (*Pget_fill_value)(hid_t, hid_t, void *);
    htri_t (*Tdetect_class)(hid_t, H5T_class_t);
    htri_t (*Tis_variable_str)(hid_t);
    hid_t (*FD_mpio_init)(void); /* parallel builds only, up to 1.14 */
    const hid_t *FD_mpio_id_g;   /* parallel builds only, from 2.0 */
} b2_h5_read_api;

/* The sec2 (plain POSIX file) and mpio driver ids of that HDF5, or
 * H5I_INVALID_HID when it has no such driver. */
B2_HIDDEN hid_t b2_h5_driver_sec2(const b2_h5_read_api *h);
B2_HIDDEN hid_t b2_h5_driver_mpio(const b2_h5_read_api *h);

/* How many HDF5 libraries of one process the plugin serves at once. */
#define B2_H5_MAX_LIBS 4

/* The read table of b2_h5_api_get(NULL)'s library (resolved once per library),
 * or NULL when HDF5 or one of the required functions is missing. */
B2_HIDDEN const b2_h5_read_api *b2_h5_read_api_get(void);

/* The resolved API, or NULL when the process holds no usable HDF5 library.
 * hint is an address inside an HDF5 library (or NULL): that library's table
 * (resolved once per library, h5api.c); when hint lies in no HDF5, the default
 * one; NULL when that library finds no free slot. NULL hint: the
 * library running our callback on this thread (b2_h5_api_enter), else the
 * primary library, else the first one resolved, else one found in the process. */
B2_HIDDEN const b2_h5_api *b2_h5_api_get(const void *hint);

/* The table of the library containing hint only: NULL when it is not a usable
 * HDF5, or when B2_H5_MAX_LIBS other libraries hold every slot (then an error
 * saying so is pushed to that library). */
B2_HIDDEN const b2_h5_api *b2_h5_api_for(const void *hint);

/* The slot index of a table (0 .. B2_H5_MAX_LIBS-1), -1 for any other pointer. */
B2_HIDDEN int b2_h5_api_index(const b2_h5_api *api);

/* Select slot's library for this thread's b2_h5_api_get(NULL) until
 * b2_h5_api_leave(the returned previous selection): plugin.c's per-library
 * filter callbacks wrap the shared ones with these. */
B2_HIDDEN const b2_h5_api *b2_h5_api_enter(int slot);
B2_HIDDEN void b2_h5_api_leave(const b2_h5_api *prev);

/* Make api's library the primary one (whose ids b2blosc.h5's reader and
 * writer take). 0, or -3 when another library is primary already, -1 when api
 * is no slot's table. */
B2_HIDDEN int b2_h5_api_make_primary(const b2_h5_api *api);

/* An address inside the HDF5 library that the loaded object `anchor` (a path:
 * h5py's h5z extension module, or a libhdf5 itself) links, found the way the
 * dynamic linker binds that object's own calls; NULL when anchor is not loaded
 * in the process or reaches no HDF5. Never loads anything. */
B2_HIDDEN const void *b2_h5_anchor_address(const char *anchor);

/* The primary table (else the first resolved) if any, else NULL (never resolves). */
B2_HIDDEN const b2_h5_api *b2_h5_api_peek(void);

/* Push an HDF5 error (major H5E_PLINE, minor H5E_CALLBACK) with a printf-style
 * message naming the filter. Does nothing when api or Epush2 is missing.
 * keep: the failure fails the HDF5 call, so the message must reach the caller
 * even where HDF5 (1.14.4 and later) pauses its error stack around the filter
 * callback, which drops a plain H5Epush2. keep == 0 (an optional filter's
 * failure, which HDF5 ignores) pushes plainly: HDF5 drops or clears it. */
B2_HIDDEN void b2_h5_error(const b2_h5_api *api, int keep, const char *file, const char *func,
                          unsigned line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#define B2_H5_ERROR(api, ...) b2_h5_error((api), 1, __FILE__, __func__, __LINE__, __VA_ARGS__)
/* For failures HDF5 ignores (an optional filter declining to compress). */
#define B2_H5_NOTE(api, ...) b2_h5_error((api), 0, __FILE__, __func__, __LINE__, __VA_ARGS__)

#endif
