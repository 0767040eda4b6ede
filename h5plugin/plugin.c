/* Entry points: the dynamic-plugin pair HDF5 looks up in every library of
 * HDF5_PLUGIN_PATH, and b2_h5_register() for programs that link statically. */
#include <stdlib.h>

#include <H5PLextern.h>

#include "b2_h5filter.h"
#include "h5api.h"
#include "h5filter.h"
#include "h5params.h"

const H5Z_class2_t b2h5_filter_class = {
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)B2H5_FILTER_ID,
    1, /* encoder present */
    1, /* decoder present */
    "blosc2",
    NULL, /* can_apply */
    b2h5_set_local,
    b2h5_filter,
};

B2_H5_API H5PL_type_t H5PLget_plugin_type(void)
{
    return H5PL_TYPE_FILTER;
}

B2_H5_API const void *H5PLget_plugin_info(void)
{
    /* We are called from inside the HDF5 that dlopen'ed us: use that one. */
    if (!b2h5_api_get(__builtin_return_address(0)))
        return NULL;
    return &b2h5_filter_class;
}

int b2_h5_register(void)
{
    const b2h5_api *api = b2h5_api_get(NULL);
    if (!api)
        return -1;
    return api->Zregister(&b2h5_filter_class) < 0 ? -1 : 1;
}
