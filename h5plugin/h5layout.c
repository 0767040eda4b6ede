/* SPDX-License-Identifier: BSD-3-Clause */
/* The public face of what the filter stores (b2_h5filter.h): its parameters and
 * block shape for a chunk, and the frame header fields it writes, so programs
 * storing chunks themselves (b2 convert) produce the filter's bytes without a
 * copy of its rules. */
#include <string.h>

#include "b2_h5filter.h"
#include "h5params.h"

void b2_h5_frame_set_stored_fields(uint8_t *frame, size_t len, int32_t blocksize)
{
    b2_h5_patch_frame_header(frame, len, blocksize);
}

int b2_h5_chunk_params(const unsigned *cd_values, size_t ncd, int rank, const int32_t *dims,
                       int32_t typesize, b2_cparams *cp, int32_t *blockshape)
{
    B2_FAIL_IF(!cp || (ncd && !cd_values) || rank < 1 || rank > B2_H5_READ_MAXRANK || !dims ||
                   typesize < 1,
               B2_ERR_INVALID_PARAM, "chunk rank %d, typesize %d", rank, (int)typesize);
    unsigned v[B2_H5_MAX_CDVALUES] = {0, 0, 0, 0, 5, 1, 0};
    size_t n = 7;
    if (ncd > 7) { /* a dataset's stored values: rank and dims are theirs */
        B2_FAIL_IF(ncd > B2_H5_MAX_CDVALUES, B2_ERR_INVALID_PARAM, "%zu cd_values", ncd);
        memcpy(v, cd_values, ncd * sizeof *v);
        n = ncd;
    } else {
        memcpy(v, cd_values, ncd * sizeof *v);
        uint64_t bytes = (uint64_t)typesize;
        for (int i = 0; i < rank; i++) {
            B2_FAIL_IF(dims[i] < 1, B2_ERR_INVALID_PARAM, "chunk dimension %d is %d", i,
                       (int)dims[i]);
            bytes *= (uint64_t)dims[i];
            B2_FAIL_IF(bytes > UINT32_MAX, B2_ERR_INVALID_PARAM, "a chunk of over 4 GiB");
        }
        v[2] = (unsigned)typesize;
        v[3] = (unsigned)bytes;
        if (rank >= 2 && rank <= B2_H5_WRITE_MAXDIM) { /* what set_local records */
            v[7] = (unsigned)rank;
            for (int i = 0; i < rank; i++)
                v[8 + i] = (unsigned)dims[i];
            n = 8 + (size_t)rank;
        }
    }
    b2_h5_params p;
    char err[200];
    B2_FAIL_IF(b2_h5_params_parse(n, v, 1, &p, err, sizeof err) < 0, B2_ERR_INVALID_PARAM, "%s",
               err);
    b2_h5_make_cparams(&p, cp);
    if (blockshape)
        memset(blockshape, 0, (size_t)rank * sizeof *blockshape);
    if (blockshape && p.rank >= 1) { /* b2nd frames (rank 1: the 1-D layout) */
        int64_t b[B2_H5_READ_MAXDIM], target = b2_h5_block_target(&p);
        if (target < 0)
            return B2_FAIL(B2_ERR_INVALID_PARAM, "no block size for a chunk of %u bytes",
                           (unsigned)p.chunkbytes);
        if (p.blockshape[0]) {
            memcpy(blockshape, p.blockshape, (size_t)p.rank * sizeof *blockshape);
        } else {
            b2_h5_block_shape(&p, target, b);
            for (int i = 0; i < p.rank; i++)
                blockshape[i] = (int32_t)b[i];
        }
    }
    return B2_OK;
}
