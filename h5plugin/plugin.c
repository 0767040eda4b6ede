/* SPDX-License-Identifier: BSD-3-Clause */
/* The filter class and b2_h5_register() for programs that link statically; the
 * dynamic-plugin pair HDF5 looks up is in plugin_entry.c (plugin module only). */
#include <stdlib.h>

#include "b2_h5filter.h"
#include "h5api.h"
#include "h5filter.h"
#include "h5params.h"

const H5Z_class2_t b2_h5_filter_class = {
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)B2_H5_FILTER_ID,
    1, /* encoder present */
    1, /* decoder present */
    "blosc2",
    NULL, /* can_apply */
    b2_h5_set_local,
    b2_h5_filter,
};

int b2_h5_register(void)
{
    const b2_h5_api *api = b2_h5_api_get(NULL);
    if (!api)
        return -1;
    return api->Zregister(&b2_h5_filter_class) < 0 ? -1 : 1;
}
