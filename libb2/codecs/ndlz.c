/* SPDX-License-Identifier: BSD-3-Clause */
/* ndlz (codec 32): what both directions check before touching a stream. */
#include "ndlz.h"

int b2_ndlz_setup(const b2_codec_use *u, const char *what, int *cell, int32_t *b0, int32_t *b1)
{
    B2_FAIL_IF(u->meta != 4 && u->meta != 8, B2_ERR_UNSUPPORTED,
               "ndlz %s: codec meta %d is not a cell side of 4 or 8", what, u->meta);
    /* The reference reads the shape from the b2nd metalayer; a chunk on its own
     * has none, and the caller must say it (b2_dctx_set_geometry). */
    B2_FAIL_IF(!u->geom || u->geom->ndim == 0, B2_ERR_INVALID_PARAM,
               "ndlz %s needs the block shape (b2nd metalayer or b2_dctx_set_geometry)", what);
    B2_FAIL_IF(u->geom->ndim != 2, B2_ERR_UNSUPPORTED,
               "ndlz %s: blocks of %d dimensions (ndlz works on 2-D blocks only)", what,
               u->geom->ndim);
    B2_FAIL_IF(u->geom->blockshape[0] < 1 || u->geom->blockshape[1] < 1, B2_ERR_INVALID_PARAM,
               "ndlz %s: block shape %d x %d", what, (int)u->geom->blockshape[0],
               (int)u->geom->blockshape[1]);
    *cell = u->meta;
    *b0 = u->geom->blockshape[0];
    *b1 = u->geom->blockshape[1];
    return B2_OK;
}
