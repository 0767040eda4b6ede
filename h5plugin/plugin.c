/* SPDX-License-Identifier: BSD-3-Clause */
/* The filter class and b2_h5_register() for programs that link statically; the
 * dynamic-plugin pair HDF5 looks up is in plugin_entry.c (plugin module only). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int b2_h5_register_with(const char *anchor)
{
    if (!anchor || !*anchor)
        return b2_h5_register();
    const void *hint = b2_h5_anchor_address(anchor);
    if (!hint)
        return -2;
    const b2_h5_api *api = b2_h5_api_get(hint);
    if (!api)
        return -1;
    /* The table is process-wide and bound once: the same library holds the
     * same H5Zregister, any other address means another HDF5 came first. */
    void *reg;
    memcpy(&reg, &api->Zregister, sizeof reg);
    if (reg != hint)
        return -3;
    return api->Zregister(&b2_h5_filter_class) < 0 ? -4 : 1;
}

int b2_h5_api_info(char *path, size_t cap, unsigned version[3])
{
    const b2_h5_api *api = b2_h5_api_peek();
    if (version)
        version[0] = version[1] = version[2] = 0;
    if (path && cap)
        path[0] = '\0';
    if (!api)
        return -1;
    void *reg;
    memcpy(&reg, &api->Zregister, sizeof reg);
    Dl_info di;
    if (path && cap && dladdr(reg, &di) && di.dli_fname)
        snprintf(path, cap, "%s", di.dli_fname);
    if (version && api->get_libversion)
        api->get_libversion(&version[0], &version[1], &version[2]);
    return 0;
}
