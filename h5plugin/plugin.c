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

/* One filter class per HDF5 library (h5api.c's slots): its callbacks select
 * their slot for the call, so the shared callbacks look up symbols in, and
 * push errors to, the HDF5 that called them, never another copy's. */
#define B2_H5_SLOT_THUNKS(i)                                                         \
    static size_t filter_##i(unsigned flags, size_t n, const unsigned cd[], size_t nbytes, \
                             size_t *buf_size, void **buf)                          \
    {                                                                                \
        const b2_h5_api *prev = b2_h5_api_enter(i);                                  \
        size_t r = b2_h5_filter(flags, n, cd, nbytes, buf_size, buf);                \
        b2_h5_api_leave(prev);                                                       \
        return r;                                                                    \
    }                                                                                \
    static herr_t set_local_##i(hid_t dcpl, hid_t type, hid_t space)                 \
    {                                                                                \
        const b2_h5_api *prev = b2_h5_api_enter(i);                                  \
        herr_t r = b2_h5_set_local(dcpl, type, space);                               \
        b2_h5_api_leave(prev);                                                       \
        return r;                                                                    \
    }
B2_H5_SLOT_THUNKS(0)
B2_H5_SLOT_THUNKS(1)
B2_H5_SLOT_THUNKS(2)
B2_H5_SLOT_THUNKS(3)
#undef B2_H5_SLOT_THUNKS

#define B2_H5_SLOT_CLASS(i)                                                          \
    {H5Z_CLASS_T_VERS, (H5Z_filter_t)B2_H5_FILTER_ID, 1, 1, "blosc2", NULL, set_local_##i, \
     filter_##i}
static const H5Z_class2_t slot_class[] = {B2_H5_SLOT_CLASS(0), B2_H5_SLOT_CLASS(1),
                                          B2_H5_SLOT_CLASS(2), B2_H5_SLOT_CLASS(3)};
#undef B2_H5_SLOT_CLASS
_Static_assert(sizeof slot_class / sizeof slot_class[0] == B2_H5_MAX_LIBS,
               "one filter class per library slot");

const H5Z_class2_t *b2_h5_filter_class_for(const b2_h5_api *api)
{
    int i = b2_h5_api_index(api);
    return i < 0 ? NULL : &slot_class[i];
}

/* Register api's class with api's library, which becomes the primary one. */
static int register_primary(const b2_h5_api *api)
{
    const H5Z_class2_t *cls = b2_h5_filter_class_for(api);
    if (!cls)
        return -1;
    /* b2blosc.h5's reader and writer serve one library: the first chosen. */
    if (b2_h5_api_make_primary(api) < 0)
        return -3;
    return api->Zregister(cls) < 0 ? -4 : 1;
}

int b2_h5_register(void)
{
    const b2_h5_api *api = b2_h5_api_get(NULL);
    if (!api)
        return -1;
    return register_primary(api) < 0 ? -1 : 1;
}

int b2_h5_register_with(const char *anchor)
{
    if (!anchor || !*anchor)
        return b2_h5_register();
    const void *hint = b2_h5_anchor_address(anchor);
    if (!hint)
        return -2;
    const b2_h5_api *api = b2_h5_api_for(hint);
    if (!api)
        return -1;
    return register_primary(api);
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
