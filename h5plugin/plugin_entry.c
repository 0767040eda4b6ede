/* SPDX-License-Identifier: BSD-3-Clause */
/* The two functions HDF5 looks up in every library of HDF5_PLUGIN_PATH. They are
 * built into the plugin module only: the static filter library (b2_h5_register())
 * must not export unprefixed names a program could link twice. */
#include <H5PLextern.h>

#include "b2_h5filter.h" /* B2_H5_API */
#include "h5api.h"
#include "h5filter.h"

B2_H5_API H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

B2_H5_API const void *H5PLget_plugin_info(void)
{
    /* We are called from inside the HDF5 that dlopen'ed us: that library gets
     * its own table and class, even when another HDF5 of the process uses the
     * plugin too (h5api.c). */
    /* (A program calling us itself, as the tests do, gets the default HDF5.) */
    return b2_h5_filter_class_for(b2_h5_api_get(__builtin_return_address(0)));
}
