/* SPDX-License-Identifier: BSD-3-Clause */
/* The plugin's filter function, as HDF5 gets it: dlopen the plugin file and
 * take the class H5PLget_plugin_info returns (test_h5bufsize, test_h5threads).
 * The tests call it directly, to reach paths HDF5 itself never takes. */
#ifndef B2_TEST_PLUGIN_FILTER_H
#define B2_TEST_PLUGIN_FILTER_H
#include <dlfcn.h>

#include <hdf5.h>

#include "check.h"

typedef size_t (*filter_fn)(unsigned, size_t, const unsigned[], size_t, size_t *, void **);

/* The filter of the plugin at path, or NULL (counted as a failed check). The
 * handle stays open: the plugin is linked -z nodelete anyway. */
static inline filter_fn plugin_filter(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL, "dlopen %s: %s", path, dlerror());
    const void *(*info)(void) = NULL;
    if (h)
        *(void **)&info = dlsym(h, "H5PLget_plugin_info");
    const H5Z_class2_t *cls = info ? info() : NULL;
    CHECK(cls && cls->id == 32026 && cls->filter, "the plugin's filter class");
    return cls && cls->filter ? (filter_fn)cls->filter : NULL;
}
#endif
