/* SPDX-License-Identifier: BSD-3-Clause */
/* set_local: complete the user's cd_values with the dataset's type and chunk
 * shape, exactly as the reference filter does (doc/format/hdf5-filter.md §2).
 * Rank-1 chunks keep the classic seven values, which every reader takes, unless
 * the user asks for HDF5-Blosc2 2.0's one-dimensional layout (rank 1 in slot 7)
 * or gives extra values, which only that layout can carry (§2a). */
#include <string.h>

#include "h5api.h"
#include "h5filter.h"
#include "h5params.h"

/* The size of the elements Blosc2 shuffles: an array type's base type's (the
 * chunk size counts whole elements), else full, the type's; 0 after pushing an
 * error when HDF5 cannot tell. */
static size_t base_size(const b2_h5_api *api, hid_t type, size_t full)
{
    if (api->Tget_class(type) != H5T_ARRAY)
        return full;
    hid_t super = api->Tget_super(type);
    if (super < 0) {
        B2_H5_ERROR(api, "blosc2 filter: cannot get the base type of an array type");
        return 0;
    }
    size_t base = api->Tget_size(super);
    api->Tclose(super);
    if (base == 0)
        B2_H5_ERROR(api, "blosc2 filter: the array base type has size 0");
    return base;
}

/* Complete the dataset's cd_values (the filter's set_local callback). */
herr_t b2_h5_set_local(hid_t dcpl, hid_t type, hid_t space)
{
    (void)space;
    const b2_h5_api *api = b2_h5_api_get(NULL);
    if (!api)
        return -1;
    unsigned v[B2_H5_MAX_CDVALUES];
    memset(v, 0, sizeof v);
    unsigned flags = 0;
    size_t n = B2_H5_MAX_CDVALUES;
    if (api->Pget_filter_by_id2(dcpl, B2_H5_FILTER_ID, &flags, &n, v, 0, NULL, NULL) < 0) {
        B2_H5_ERROR(api, "blosc2 filter: cannot read the filter's settings from the "
                        "dataset creation property list");
        return -1;
    }
    if (n > B2_H5_MAX_CDVALUES)
        n = B2_H5_MAX_CDVALUES; /* only that many were copied */
    /* The extra values (h5params.h): the user puts them right after the codec
     * (slot 7); values copied from a dataset have them after the chunk dims. */
    unsigned ext[B2_H5_MAX_CDVALUES];
    size_t next = 0, at = 0;
    if (n > 7 && v[7] == B2_H5_EXT_MARKER)
        at = 7;
    else if (n > 8 && v[7] >= 1 && v[7] <= B2_H5_READ_MAXDIM && n > 8 + (size_t)v[7] &&
             v[8 + v[7]] == B2_H5_EXT_MARKER)
        at = 8 + (size_t)v[7];
    /* rank 1 in slot 7: the user's (or a copied dataset's) one-dimensional layout */
    int want_1d = n > 7 && v[7] == 1;
    if (at) {
        next = n - at;
        memcpy(ext, v + at, next * sizeof *v);
        n = 7;
    }
    if (n < 4)
        n = 4;
    v[0] = B2_H5_REVISION;

    hsize_t dims[H5S_MAX_RANK];
    int rank = api->Pget_chunk(dcpl, H5S_MAX_RANK, dims);
    if (rank < 0 || rank > H5S_MAX_RANK) {
        B2_H5_ERROR(api, "blosc2 filter: cannot get the chunk shape (rank %d)", rank);
        return -1;
    }

    size_t full = api->Tget_size(type);
    if (full == 0) {
        B2_H5_ERROR(api, "blosc2 filter: cannot get the datatype size (or it is 0)");
        return -1;
    }
    size_t base = base_size(api, type, full);
    if (base == 0)
        return -1;
    uint64_t bytes = full;
    for (int i = 0; i < rank; i++)
        bytes *= dims[i];
    v[2] = (unsigned)base;
    v[3] = (unsigned)(uint32_t)bytes; /* the reference stores it as 32 bits */

    int layout_1d = rank == 1 && (want_1d || next);
    if ((rank >= 2 && rank <= B2_H5_WRITE_MAXDIM) || layout_1d) {
        if (layout_1d)
            v[0] = B2_H5_REVISION_RANK1; /* as HDF5-Blosc2 2.0 writes it */
        if (n < 5)
            v[4] = 5;
        if (n < 6)
            v[5] = 1;
        if (n < 7)
            v[6] = 0;
        v[7] = (unsigned)rank;
        for (int i = 0; i < rank; i++)
            v[8 + i] = (unsigned)dims[i];
        n = 8 + (size_t)rank;
        if (next) {
            b2_h5_params p;
            char err[300];
            memset(&p, 0, sizeof p);
            p.rank = rank;
            for (int i = 0; i < rank; i++)
                p.dims[i] = dims[i];
            int bad = b2_h5_params_parse_ext(ext, next, &p, err, sizeof err) < 0;
            if (bad && at != 7 && next > 3 + B2_H5_EXT_FIXED) {
                /* values copied from another dataset (h5repack -l): a block shape
                 * that does not fit the new chunk falls back to the automatic one */
                ext[2] = B2_H5_EXT_FIXED;
                next = 3 + B2_H5_EXT_FIXED;
                bad = b2_h5_params_parse_ext(ext, next, &p, err, sizeof err) < 0;
            }
            if (bad) {
                B2_H5_ERROR(api, "blosc2 filter: bad extra values: %s", err);
                return -1;
            }
            memcpy(v + n, ext, next * sizeof *v);
            n += next;
        }
    } else if (next) {
        B2_H5_ERROR(api, "blosc2 filter: the extra values (filters, block shape, use_dict, "
                         "checksums) need a chunk rank of 1..%d, not %d (cd_values[7] holds "
                         "the rank, and no reader takes a larger one)", B2_H5_WRITE_MAXDIM,
                    rank);
        return -1;
    } else if (n > 7) {
        /* no rank recorded: stale slots 7.. must not be read as one */
        n = 7;
    }
    if (api->Pmodify_filter(dcpl, B2_H5_FILTER_ID, flags, n, v) < 0) {
        B2_H5_ERROR(api, "blosc2 filter: cannot store the filter's settings");
        return -1;
    }
    return 0;
}
