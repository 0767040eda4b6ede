/* SPDX-License-Identifier: BSD-3-Clause */
/* The filter class and its callbacks (internal to the plugin). */
#ifndef B2_H5FILTER_INTERNAL_H
#define B2_H5FILTER_INTERNAL_H

#include <hdf5.h>

#include "h5common.h"

/* set_local callback: fill cd_values from the dataset's type and chunk shape. */
B2_HIDDEN herr_t b2_h5_set_local(hid_t dcpl, hid_t type, hid_t space);

/* The filter callback: compress (flags without H5Z_FLAG_REVERSE) or decompress one
 * chunk held in *buf (*buf_size bytes allocated, nbytes used). Returns the new
 * data size, or 0 on failure with an HDF5 error pushed. */
B2_HIDDEN size_t b2_h5_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
                             size_t nbytes, size_t *buf_size, void **buf);

/* The filter's class, id 32026, name "blosc2", with the shared callbacks. */
B2_HIDDEN extern const H5Z_class2_t b2_h5_filter_class;

struct b2_h5_api;
/* The class to hand api's library (its callbacks select api for their call),
 * or NULL when api is not a library slot's table (h5api.h). */
B2_HIDDEN const H5Z_class2_t *b2_h5_filter_class_for(const struct b2_h5_api *api);

#endif
