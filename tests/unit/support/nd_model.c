/* SPDX-License-Identifier: BSD-3-Clause */
/* The b2nd tests' model of an array (nd_model.h). */
#include <string.h>

#include "nd_model.h"

void ndt_params(b2_nd_params *p, int nd, const int64_t *shape, const int32_t *chunk,
                const int32_t *block, int32_t typesize)
{
    memset(p, 0, sizeof *p);
    p->ndim = nd;
    for (int i = 0; i < nd; i++) {
        p->shape[i] = shape[i];
        p->chunkshape[i] = chunk ? chunk[i] : 0;
        p->blockshape[i] = block ? block[i] : 0;
    }
    p->typesize = typesize;
}

int64_t ndt_nitems(int nd, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    return n;
}

/* One walk for both directions: the pointers are written only on their side. */
static void box_copy(uint8_t *full, const int64_t *shape, int nd, size_t ts, const int64_t *start,
                     const int64_t *stop, uint8_t *box, int to_full)
{
    if (nd == 0) {
        memcpy(to_full ? full : box, to_full ? box : full, ts);
        return;
    }
    int64_t idx[B2_ND_MAX_DIM];
    for (int i = 0; i < nd; i++) {
        if (stop[i] <= start[i])
            return;
        idx[i] = start[i];
    }
    /* whole runs along the last dimension, contiguous on both sides */
    size_t run = (size_t)(stop[nd - 1] - start[nd - 1]) * ts;
    for (;;) {
        int64_t off = 0;
        for (int i = 0; i < nd; i++)
            off = off * shape[i] + idx[i];
        uint8_t *at = full + off * (int64_t)ts;
        memcpy(to_full ? at : box, to_full ? box : at, run);
        box += run;
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < stop[d])
                break;
            idx[d] = start[d];
        }
        if (d < 0)
            return;
    }
}

void ndt_box_get(const uint8_t *full, const int64_t *shape, int nd, size_t ts,
                 const int64_t *start, const int64_t *stop, uint8_t *box)
{
    box_copy((uint8_t *)full, shape, nd, ts, start, stop, box, 0);
}

void ndt_box_put(uint8_t *full, const int64_t *shape, int nd, size_t ts, const int64_t *start,
                 const int64_t *stop, const uint8_t *box)
{
    box_copy(full, shape, nd, ts, start, stop, (uint8_t *)box, 1);
}
